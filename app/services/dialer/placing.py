"""Calls: placing the call of the agent's attempt.

`start_call` checks again, at the moment of the click, what delivery checked when the task
was delivered: the agent holds the task, the number chosen is one of its phone items, and
every contact rule lets the task and that number be called now (`contact_rules.engine`:
the campaign delivers, the queue is open, the calling window, the do-not-call list, a wrong
number, the contact limits, the attempt limit). Each refusal is NotAvailable naming the
rule (HeldBack, with when the call may be placed), and changes nothing. Without a phoneKey
the suggested number is dialled (`dialer.numbers`: the next callable one after the number
called last). The contact limits are counted again under their locks in the call's own
transaction (`admit_call`).

The call belongs to the agent's open attempt (the ledger's; a task delivered before the
ledger gets one now): its id (a UUID), start, phone item and number, and who places it
(`CallPlacement`: the desk, or the contact flow through the contact centre's API).

- startCall again while the call is in progress with the same phone item returns the same
  call (a retried click: nothing recorded); with another item, the earlier call ends
  CANCELLED and the new one starts.
- After the call ended, a new call (a redial) is a second call of the attempt: both are
  kept (`Call`), each with its own events, and the earlier call's id stays known (its
  events are accepted as before). The attempt's call columns are its last call's.
- Without `phoneKey` the call dials the task's suggested number (`numbers.suggested_key`:
  the first callable one after the one called last); with the key of a number that may not
  be called now (do-not-call, INVALID_NUMBER, a contact limit per number) it is refused
  naming the rule.
- A campaign whose calls the contact flow places asks the tenant's instance to place it
  (`start_outbound_call`, the call's id as its client token). When the instance fails, the
  call is recorded as started and ended FAILED, and `PlacedCall.failure` says why: the
  caller commits that record and answers the failure (the Desk API's FAIL).

What a call's events do (CONNECTED, ENDED with its result), whoever reports them, is
app/services/dialer/call_events.py, whose audit record and event `call.started` leaves too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from app.extensions import db
from app.models import (
    Attempt,
    Call,
    CallResult,
    Campaign,
    Task,
    Tenant,
    User,
)
from app.models.campaigns import CallPlacement
from app.models.types import stamped
from app.services.actors import Actor
from app.services.calls import ledger
from app.services.contact_centre import InstanceError, OutboundCall, instance_for
from app.services.contact_limits.counts import admit_call
from app.services.contact_rules import engine as contact_rules
from app.services.delivery.ownership import held_task
from app.services.dialer import call_events
from app.services.dialer import numbers as task_numbers
from app.services.dialer.evidence import evidence_of
from app.services.errors import InvalidInput, NotAvailable, TaskNotFound, TaskTaken
from app.services.fields import TASK_PHONE_KEY
from app.services.values import moment_text
from app.services.work_codes.choices import offered, suggested

# How this module's refusals name their fields.
PHONE_KEY = TASK_PHONE_KEY.said_as("phoneKey")


@dataclass(frozen=True)
class PlacedCall:
    """The call placed (the attempt's last); `failure` says why the contact centre could
    not place it (the call is then recorded as ended FAILED)."""

    attempt: Attempt
    call: Call
    failure: str | None = None

    @property
    def call_id(self) -> str:
        return self.call.call_id

    @property
    def phone_number(self) -> str:
        return self.call.phone_number

    @property
    def key(self) -> str:
        return self.call.phone_key


# --- the rules of placing a call ---------------------------------------------------------


def _holds(agent: User, record_id: str) -> Task:
    """The task the agent holds, else NotAvailable saying what became of it."""
    try:
        return held_task(agent, record_id)
    except TaskTaken as taken:
        if taken.who is None:
            why = f"agent '{agent.login_user_id}' does not hold it"
        else:
            when = f" at {moment_text(taken.at)} UTC" if taken.at else ""
            why = f"{taken.what} by {taken.who}{when}"
        raise NotAvailable(f"task '{record_id}' is not yours: {why}") from None


def check_callable(
    agent: User, task: Task, phone_key: str | None, now: datetime
) -> tuple[str, str]:
    """(key, number) to call: `phone_key`'s item, else the suggested one (the rotation's),
    once every contact rule (app/services/contact_rules) lets it be called now; HeldBack
    (NotAvailable) naming the rule and when the call may be placed."""
    key, number, _found = _callable(agent, task, phone_key, now)
    return key, number


def _callable(
    agent: User, task: Task, phone_key: str | None, now: datetime
) -> tuple[str, str, contact_rules.Explanation]:
    """`check_callable`'s answer, and the task's explanation at `now` it was read from."""
    found = contact_rules.explain(task, now, agent.time_zone or "UTC")
    numbers = [task_numbers.Number.of(verdict) for verdict in found.numbers]
    if phone_key is not None and not any(number.key == phone_key for number in numbers):
        known = ", ".join(number.key for number in numbers) or "none"
        raise InvalidInput(
            f"phoneKey '{phone_key}' is not a phone item of task '{task.record_id}' "
            f"(its phone items: {known})",
            field=PHONE_KEY,
        )
    if phone_key is None:
        # None callable: the one the clock frees first, whose refusal says when.
        phone_key = task_numbers.suggested_key(task, numbers) or task_numbers.first_freed(numbers)
    chosen = contact_rules.check_call(found, phone_key)
    if chosen is None:
        raise NotAvailable(f"task '{task.record_id}' has no phone number to call")
    return (*chosen, found)


# A reload after the countdown ran out (or all but ran out) still warns before it dials.
COUNTDOWN_GRACE_SECONDS = 3


def countdown_seconds(task: Task | None, call: Attempt | None, now: datetime) -> int | None:
    """Seconds left of the campaign's preview countdown, counted from the task's delivery
    (so a reload goes on where it was), never under COUNTDOWN_GRACE_SECONDS; None when the
    campaign has none or the attempt placed its call already."""
    if task is None or not task.campaign.auto_dial_seconds:
        return None
    if call is not None and call.call_id is not None:
        return None
    total = task.campaign.auto_dial_seconds
    if call is None:
        return total
    elapsed = (now - call.delivered_at).total_seconds()
    return max(COUNTDOWN_GRACE_SECONDS, int(total - elapsed + 0.999))


# --- placing it -------------------------------------------------------------------------


def start_call(
    agent: User,
    record_id: str,
    phone_key: str | None = None,
    *,
    actor: Actor,
    now: datetime | None = None,
) -> PlacedCall:
    """Place the call of the agent's attempt at the task's phone item `phone_key` (default:
    its first); see the module's docstring for the rules and a call started twice."""
    task = _holds(agent, record_id)
    now = stamped(now)  # once the task is locked: a wait for it is not the call's
    attempt = ledger.open_attempt_of(task)
    mine = attempt is not None and attempt.agent_id == agent.id
    current = ledger.last_call_of(attempt) if mine else None
    in_progress = current is not None and current.ended_at is None
    if in_progress and phone_key in (None, current.phone_key):
        task.reserved_at = now  # a call is activity: the offer timeout restarts
        return PlacedCall(attempt, current)  # the same click again, before any rule
    key, number, found = _callable(agent, task, phone_key, now)
    if not mine:
        attempt = ledger.open_attempt(task, agent, now)
    task.reserved_at = now  # a call is activity: the offer timeout restarts
    if in_progress:  # another number chosen: this call ends, cancelled
        call_events.end_call(
            attempt, task, CallResult.CANCELLED.value, None, actor=actor, now=now, call=current
        )
    seat = found.seat
    # Every call counts: its marks, under the scopes' locks, by the limits the rules read.
    counted = admit_call(
        task, number, now=now, zone=seat.zone, limits=contact_rules.tenant_limits(seat)
    )
    placed_by = task.campaign.call_placement or CallPlacement.DESK.value
    call = ledger.begin_call(attempt, task, key, number, placed_by, now)
    call.evidence = evidence_of(
        task, key, number, now, counted=counted, rules=contact_rules.regional_rules(seat)
    )
    failure = None
    if call.placed_by == CallPlacement.CONTACT_FLOW.value:
        try:
            call.contact_id = _place(task, call)
            ledger.mirror(call, attempt)
        except InstanceError as error:
            failure = error.message
    db.session.flush()
    call_events.trace(actor, "call.started", task, attempt, now, **call_events.started(call))
    if failure is not None:
        call_events.end_call(
            attempt, task, CallResult.FAILED.value, None, actor=actor, now=now, call=call
        )
    return PlacedCall(attempt, call, failure)


def _place(task: Task, call: Call) -> str:
    """Have the contact flow place the call; the contact's id (InstanceError otherwise)."""
    campaign: Campaign = task.campaign
    if not campaign.connect_contact_flow_id:
        raise InstanceError(
            f"the {campaign.name} campaign names no contact flow to place its calls"
        )
    call = OutboundCall(
        destination=call.phone_number,
        contact_flow_id=campaign.connect_contact_flow_id,
        queue_arn=campaign.connect_queue_arn,
        caller_id=campaign.connect_caller_id,
        attributes={
            "previewRecordID": task.record_id,
            "campaignName": campaign.name,
            "clientId": task.client_id,
        },
        client_token=call.call_id,
    )
    return instance_for(campaign.tenant).start_outbound_call(call)


# --- what the desk and the reports read ----------------------------------------------------


def current_call(task: Task) -> Attempt | None:
    """The task's open attempt (its call's state shows on the desk), if any."""
    return ledger.open_attempt_of(task)


def task_attempts(tenant: Tenant, record_id: str) -> list[Attempt]:
    """The attempts of the tenant's task, newest first; TaskNotFound when it has none such."""
    task = db.session.scalar(
        select(Task)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(Campaign.tenant_id == tenant.id, Task.record_id == record_id)
    )
    if task is None:
        raise TaskNotFound(f"no task with previewRecordID '{record_id}'")
    return ledger.task_attempts(task)


def suggested_codes(task: Task, result: str) -> list[tuple[str, str]]:
    """(group, code) of the enabled codes of the task's queue that suggest this call result,
    in the order the desk offers them (work_codes.offers.suggested)."""
    if task.skill_queue is None:
        return []
    return suggested(offered(task.skill_queue), result)
