"""Whose task it is: the one an agent holds, and the one a lapse took but left to them.

A reservation lapses when the agent goes silent (AGENT_IDLE_SECONDS) or does nothing with
the task for OFFER_TIMEOUT_SECONDS; the clock then returns the task to its queue. An agent
who was on the phone all along must not lose what they chose: while nobody else has taken
or changed the task since it was delivered to them, their close is still accepted
(`task_to_close`). Otherwise `TaskTaken` says what happened to it, who did it and when.

`fate_of` tells the open desk the same, as soon as it happens (app/desk/live.py): what
became of the task it shows, from the audit trail, while the agent has not acted yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, func, select

from app.extensions import db
from app.models import AuditRecord, Campaign, Task, User
from app.services.actors import ActorKind
from app.services.audit.reading import describe_actor
from app.services.delivery import rules
from app.services.errors import TaskTaken
from app.services.values import moment_text

# The clock's changes that leave a lapsed task the agent's to close: its reservation
# lapsed, its preferred agent's hold ended.
LAPSES = ("task.reservation_lapsed", "task.preferred_agent_cleared")
# A call's events (the worker's, following a call the contact flow placed) change the
# attempt, never the task: they take nothing from its agent.
CALLS = ("call.started", "call.connected", "call.ended")
# What the trail's actions say of a task that is no longer the agent's.
DONE = {
    "task.delivered": "taken",
    "task.closed": "closed",
    "task.deleted": "deleted",
    "task.transferred": "moved",
    "task.status_changed": "changed",
    "task.updated": "changed",
    "task.released": "released",
}


def _tenant_task(agent: User, record_id: str, *, lock: bool = True) -> Task | None:
    query = (
        select(Task)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(Campaign.tenant_id == agent.tenant_id, Task.record_id == record_id)
    )
    return db.session.scalar(query.with_for_update(of=Task) if lock else query)


def held_task(agent: User, record_id: str) -> Task:
    """The open task with this previewRecordID that the agent holds, else TaskTaken."""
    task = _tenant_task(agent, record_id)
    if task is None or task.reserved_by_id != agent.id or not _open(task):
        raise not_yours(agent, record_id, task)
    return task


def task_to_close(agent: User, record_id: str, now: datetime) -> Task:
    """The task the agent may close: the one they hold, or the one whose reservation
    lapsed while they worked it, as long as it is still free and nobody else has changed
    it since its delivery to them; else TaskTaken."""
    task = _tenant_task(agent, record_id)
    if task is not None and _open(task):
        if task.reserved_by_id == agent.id:
            return task
        if (
            _free(task, now)
            and task.last_attempt_agent == agent.login_user_id
            and _changed_by_others(task, agent) is None
        ):
            return task
    raise not_yours(agent, record_id, task)


def _open(task: Task) -> bool:
    return task.worked_state in rules.OPEN_STATES


def _free(task: Task, now: datetime) -> bool:
    """Reserved by nobody, or by a reservation that has lapsed."""
    return task.reserved_by_id is None or task.reserved_at <= now - rules.seconds(
        "OFFER_TIMEOUT_SECONDS"
    )


def _task_records(agent: User, record_id: str) -> tuple:
    return (
        AuditRecord.tenant_id == agent.tenant_id,
        AuditRecord.entity_kind == "task",
        AuditRecord.entity_id == record_id,
    )


def _by_others(agent: User) -> ColumnElement[bool]:
    return ~(
        (AuditRecord.actor_kind == ActorKind.AGENT.value)
        & (AuditRecord.actor_id == agent.login_user_id)
    )


def _changed_by_others(task: Task, agent: User) -> AuditRecord | None:
    """The newest change of the task since its last delivery made by anyone but the agent,
    other than the clock's lapses (`LAPSES`), if any."""
    delivered = (
        select(func.max(AuditRecord.id))
        .where(*_task_records(agent, task.record_id), AuditRecord.action == "task.delivered")
        .scalar_subquery()
    )
    return db.session.scalar(
        select(AuditRecord)
        .where(
            *_task_records(agent, task.record_id),
            AuditRecord.id > delivered,
            AuditRecord.action.not_in(LAPSES + CALLS),
            _by_others(agent),
        )
        .order_by(AuditRecord.id.desc())
        .limit(1)
    )


def _last_change(agent: User, record_id: str) -> AuditRecord | None:
    """The newest change of the task by anyone but the agent (its deletion included)."""
    return db.session.scalar(
        select(AuditRecord)
        .where(
            *_task_records(agent, record_id), _by_others(agent), AuditRecord.action.not_in(CALLS)
        )
        .order_by(AuditRecord.id.desc())
        .limit(1)
    )


def not_yours(agent: User, record_id: str, task: Task | None) -> TaskTaken:
    """Why the task is not the agent's to act on: what happened to it, by whom, when."""
    if task is not None and task.reserved_by_id not in (None, agent.id):
        holder = task.last_attempt_agent
        what, at, via = "taken", task.last_attempt_at, None
        who = f"agent {holder}" if holder else "another agent"
    elif (change := _last_change(agent, record_id)) is not None:
        what = DONE.get(change.action, "changed")
        who, at = describe_actor(change.actor_kind, change.actor_id), change.at
        via = change.actor_via
    else:
        return TaskTaken(
            f"agent '{agent.login_user_id}' holds no task with previewRecordID '{record_id}'",
            what="unknown",
            who=None,
            at=None,
        )
    when = f" at {moment_text(at)} UTC" if at else ""
    through = f" via {via}" if via else ""
    return TaskTaken(
        f"task '{record_id}' is no longer agent '{agent.login_user_id}''s: "
        f"{what} by {who}{through}{when}",
        what=what,
        who=who,
        at=at,
        via=via,
    )


@dataclass(frozen=True)
class TaskFate:
    """What became of a task an agent was shown: `what` ("deleted", "moved", "changed",
    "released", "closed", "taken"), by `who` (None: the agent themself), `at` (UTC), `via`
    (a bulk job, when one did it), and whether the agent `holds` it still (changed while
    held: an update leaves a delivered task with its agent)."""

    what: str
    who: str | None
    at: datetime | None
    via: str | None = None
    holds: bool = False


def fate_of(agent: User, record_id: str, seen: int = 0) -> TaskFate | None:
    """What became of the task `record_id` shown to the agent, read without a lock: None
    while it is theirs to work and nobody else changed it after the audit record `seen`
    (the newest the page knew of), nor while a lapse left it theirs to close."""
    task = _tenant_task(agent, record_id, lock=False)
    if task is not None and _open(task) and task.reserved_by_id in (None, agent.id):
        change = _changed_by_others(task, agent)
        if task.reserved_by_id == agent.id:
            if change is None or change.id <= seen:
                return None
            return _fate(change, holds=True)
        if change is None and task.last_attempt_agent == agent.login_user_id:
            return None  # lapsed, still the agent's to close (`task_to_close`)
    if task is not None and task.reserved_by_id not in (None, agent.id):
        holder = task.last_attempt_agent
        return TaskFate("taken", f"agent {holder}" if holder else "another agent",
                        task.last_attempt_at)  # fmt: skip
    change = newest_change(agent, record_id)
    return _fate(change) if change is not None else TaskFate("gone", None, None)


def _fate(change: AuditRecord, holds: bool = False) -> TaskFate:
    own = change.actor_kind == ActorKind.AGENT.value
    who = None if own else describe_actor(change.actor_kind, change.actor_id)
    what = DONE.get(change.action, "changed")
    return TaskFate(what, who, change.at, change.actor_via, holds)


def newest_change(agent: User, record_id: str) -> AuditRecord | None:
    """The task's newest change by anyone (the agent included), calls and lapses aside."""
    return db.session.scalar(
        select(AuditRecord)
        .where(*_task_records(agent, record_id), AuditRecord.action.not_in(LAPSES + CALLS))
        .order_by(AuditRecord.id.desc())
        .limit(1)
    )


def newest_record_id(agent: User, record_id: str) -> int:
    """The id of the task's newest audit record (0: none): what the desk's page knew."""
    newest = db.session.scalar(
        select(func.max(AuditRecord.id)).where(*_task_records(agent, record_id))
    )
    return newest or 0
