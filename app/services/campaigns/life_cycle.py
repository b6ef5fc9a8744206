"""A campaign's life cycle: pause, resume, archive, restore; and what delivery makes of it.

- ACTIVE: its tasks are delivered.
- PAUSED: nothing new is delivered; the campaign still takes tasks (Preview API, intake
  files, the pages) and they wait. The desk and the Progress panel say it is paused.
- ARCHIVED: nothing is delivered and no new task is taken (an add, a transfer into it, an
  intake file are refused); its tasks are kept: search finds them, and they may still be
  changed, moved out or deleted. Lists leave it out unless asked. Restoring brings it back
  PAUSED, so that delivery starts again only when someone resumes it.
- An agent holding a task when its campaign is paused or archived keeps it and may finish
  (or release) it; nothing new is delivered. A preferred agent's hold does not run out
  while its campaign delivers nothing (the clock leaves it); resuming starts it afresh.
- Every change of status records who and when on the campaign, an audit record and an event
  (`campaign.paused`, `.resumed`, `.archived`, `.restored`) in the caller's transaction.
  Asking for the status a campaign already has changes and records nothing; a move the
  life cycle does not have (pausing an archived campaign) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import ColumnElement, bindparam, or_, select, true, update

from app.db.transactions import take_write_lock
from app.extensions import db
from app.models import Campaign, CampaignStatus, Task
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import record
from app.services.campaigns.catalogue import campaign_change
from app.services.contactability.seat import Blocked, OtherRules, Seat
from app.services.errors import InvalidInput
from app.services.fields import Field

ACTIVE, PAUSED, ARCHIVED = (s.value for s in CampaignStatus)
OPEN_STATES = ("NOTWORKED", "WORKED")


@dataclass(frozen=True)
class Move:
    """One move of the life cycle: its event, from which statuses it goes, and to which.
    From any other status it changes nothing, except that an archived campaign is neither
    paused nor resumed: it is restored first."""

    action: str
    allowed_from: tuple[str, ...]
    to: str


MOVES = {
    "pause": Move("campaign.paused", (ACTIVE,), PAUSED),
    "resume": Move("campaign.resumed", (PAUSED,), ACTIVE),
    "archive": Move("campaign.archived", (ACTIVE, PAUSED), ARCHIVED),
    "restore": Move("campaign.restored", (ARCHIVED,), PAUSED),
}


def _locked(campaign: Campaign) -> Campaign:
    """The campaign read again under the write lock (SQLite) and its row lock (PostgreSQL)."""
    take_write_lock(db.session)
    return db.session.scalar(
        select(Campaign)
        .where(Campaign.id == campaign.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )


def change_status(
    campaign: Campaign, move: str, *, actor: Actor, now: datetime | None = None
) -> bool:
    """Pause, resume, archive or restore the campaign (`move`); False when it already had
    the status asked for (nothing changed, nothing recorded)."""
    step = MOVES[move]
    now = now or utcnow()
    campaign = _locked(campaign)
    if campaign.status == ARCHIVED and move in ("pause", "resume"):
        raise InvalidInput(
            f"campaign '{campaign.name}' is archived: restore it first (it comes back paused)"
        )
    if campaign.status not in step.allowed_from:
        return False
    before = campaign.status
    campaign.status = step.to
    campaign.status_changed_at = now
    campaign.status_changed_by_kind, campaign.status_changed_by_id = actor.kind.value, actor.id
    if move == "resume":
        _restart_holds(campaign, now)
    change = campaign_change(
        campaign, step.action, {"status": before}, {"status": step.to}, previousStatus=before
    )
    record(actor, change, at=now)
    return True


def pause(campaign: Campaign, *, actor: Actor, now: datetime | None = None) -> bool:
    """Deliver nothing new from the campaign; it still takes tasks."""
    return change_status(campaign, "pause", actor=actor, now=now)


def resume(campaign: Campaign, *, actor: Actor, now: datetime | None = None) -> bool:
    """Deliver the paused campaign's tasks again."""
    return change_status(campaign, "resume", actor=actor, now=now)


def archive(campaign: Campaign, *, actor: Actor, now: datetime | None = None) -> bool:
    """Deliver nothing, take no new task, leave it out of lists; its tasks are kept."""
    return change_status(campaign, "archive", actor=actor, now=now)


def restore(campaign: Campaign, *, actor: Actor, now: datetime | None = None) -> bool:
    """Bring an archived campaign back, paused."""
    return change_status(campaign, "restore", actor=actor, now=now)


def _restart_holds(campaign: Campaign, now: datetime) -> None:
    """Holds that ran out (or ran on) while the campaign was paused start afresh: the
    preferred agent gets PREFERRED_AGENT_HOLD_SECONDS from now, as for a task just due."""
    hold = timedelta(seconds=current_app.config["PREFERRED_AGENT_HOLD_SECONDS"])
    db.session.execute(
        update(Task)
        .where(
            Task.campaign_id == campaign.id,
            Task.preferred_agent.is_not(None),
            Task.worked_state.in_(OPEN_STATES),
            or_(Task.next_earliest_work_at.is_(None), Task.next_earliest_work_at <= now),
        )
        .values(hold_until=now + hold)
        .execution_options(synchronize_session=False)
    )


def check_takes_tasks(campaign: Campaign, field: Field | None = None) -> None:
    """Refuse a new task for an archived campaign (an add, a transfer into it, a file); the
    refusal is about `field` when the request names the campaign by one (a transfer's)."""
    if campaign.status == ARCHIVED:
        raise InvalidInput(
            f"{field or 'campaign'} '{campaign.name}' is archived: it takes no new tasks "
            "(restore it first)",
            field=field,
        )


# --- delivery --------------------------------------------------------------------------------


def stopped_ids() -> ColumnElement:
    """The campaigns that deliver nothing, as a subquery (the clock's sweeps)."""
    return select(Campaign.id).where(Campaign.status != ACTIVE).scalar_subquery()


def _stopped(seat: Seat) -> dict[int, tuple[str, str]]:
    """The seat's tenant's campaigns that deliver nothing: id → (name, status), read once."""
    return seat.remembered("stopped campaigns", lambda: _read_stopped(seat.tenant_id))


def _read_stopped(tenant_id: int) -> dict[int, tuple[str, str]]:
    query = select(Campaign.id, Campaign.name, Campaign.status).where(Campaign.status != ACTIVE)
    if tenant_id:
        query = query.where(Campaign.tenant_id == tenant_id)
    return {row.id: (row.name, row.status) for row in db.session.execute(query)}


def _listed(values, negate: bool = False) -> ColumnElement[bool]:
    """`campaign_id IN (...)`, the values written into the SQL as calling windows do."""
    column = Task.campaign_id
    values = bindparam(None, list(values), type_=column.type, expanding=True, literal_execute=True)
    return column.not_in(values) if negate else column.in_(values)


def campaign_delivers(seat: Seat) -> ColumnElement[bool]:
    """Eligibility: the task's campaign is ACTIVE (no condition while none is stopped)."""
    stopped = _stopped(seat)
    return _listed(stopped, negate=True) if stopped else true()


def delivering() -> ColumnElement[bool]:
    """The campaigns delivery looks into."""
    return Campaign.status == ACTIVE


def _any(*conditions: ColumnElement[bool]) -> bool:
    return db.session.scalar(select(Task.id).where(*conditions).limit(1)) is not None


def stopped_campaigns(
    seat: Seat, ready: ColumnElement[bool], _others: OtherRules | None = None
) -> Blocked | None:
    """When ready tasks wait only because their campaign is paused: which (the clock never
    ends it: None for when).

    For an agent (a seat with queues), paused campaigns are named only when no ready task of
    a delivering campaign is there (those, kept back by another rule, have that rule's
    answer); an archived campaign's tasks are no work of theirs and are not named. For the
    supervisors' counts of one campaign (a seat without queues), an archived campaign says so.
    """
    stopped = _stopped(seat)
    if not stopped:
        return None
    spoken = {PAUSED} if seat.queue_ids else {PAUSED, ARCHIVED}
    waiting = [
        (name, status)
        for campaign_id, (name, status) in sorted(stopped.items(), key=lambda kv: kv[1][0])
        if status in spoken and _any(ready, Task.campaign_id == campaign_id)
    ]
    if not waiting:
        return None
    if seat.queue_ids and _any(ready, _listed(stopped, negate=True)):
        return None
    return Blocked(stopped_reason(waiting))


def stopped_reason(waiting: list[tuple[str, str]]) -> str:
    """`the Spring Renewals campaign is paused`; several: `the A and B campaigns are paused`."""
    parts = []
    for status in (PAUSED, ARCHIVED):
        names = [name for name, said in waiting if said == status]
        if len(names) == 1:
            parts.append(f"the {names[0]} campaign is {status.lower()}")
        elif names:
            listed = ", ".join(names[:-1]) + f" and {names[-1]}"
            parts.append(f"the {listed} campaigns are {status.lower()}")
    return "; ".join(parts)
