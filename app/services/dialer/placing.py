"""Calls: placing the call of the agent's attempt, and learning how it went.

`start_call` checks again, at the moment of the click, what delivery checked when the task
was delivered: the agent holds the task, the number chosen is one of its phone items and is
not on the do-not-call list, the campaign delivers (not paused, not archived), the task's
queue is open and the task is inside its campaign's calling window. Each refusal is
NotAvailable naming the rule, and changes nothing. The rules are delivery's own
(`campaigns.life_cycle`, `schedules.queue_hours`, `schedules.calling_windows`, `dnc.numbers`),
asked for this one task.

The call belongs to the agent's open attempt (the ledger's; a task delivered before the
ledger gets one now): its id (a UUID), start, phone item and number, and who places it
(`CallPlacement`: the desk, or the contact flow through the contact centre's API).

- startCall again while the call is in progress with the same phone item returns the same
  call (a retried click: nothing recorded); with another item, the earlier call ends
  CANCELLED and the new one starts.
- After the call ended, a new call (a redial) replaces the attempt's call columns: each call
  has its own events; reports count attempts. The earlier call's id is then unknown.
- A campaign whose calls the contact flow places asks the tenant's instance to place it
  (`start_outbound_call`, the call's id as its client token). When the instance fails, the
  call is recorded as started and ended FAILED, and `PlacedCall.failure` says why: the
  caller commits that record and answers the failure (the Desk API's FAIL).

`record_call_event` is the rule for what a call's events do, whoever reports them (the desk
through `call_event`, the worker following the contact flow's calls): CONNECTED once, before
the end; ENDED once, with a CallResult. An event out of order or repeated changes nothing.
An event may come after the attempt ended (the agent closed the task before the end event
arrived). Every change leaves its audit record and its event (`call.started`,
`call.connected`, `call.ended`) in the caller's transaction; the subject is the task.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from app.extensions import db
from app.models import (
    Attempt,
    CallResult,
    Campaign,
    CampaignStatus,
    Task,
    Tenant,
    User,
)
from app.models.campaigns import CallPlacement
from app.models.types import stamped
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.calls import ledger
from app.services.campaigns import life_cycle
from app.services.contact_centre import InstanceError, OutboundCall, instance_for
from app.services.contactability.seat import Seat
from app.services.delivery.ownership import held_task
from app.services.dnc import numbers as dnc
from app.services.errors import InvalidInput, NotAvailable, TaskNotFound, TaskTaken
from app.services.fields import CALL_EVENT, CALL_RESULT, TASK_PHONE_KEY
from app.services.schedules import calling_windows, queue_hours
from app.services.schedules.window_clock import zones_inside
from app.services.tasks.display import agent_view_of
from app.services.values import format_time
from app.services.work_codes.choices import offered, suggested

# How this module's refusals name their fields.
PHONE_KEY = TASK_PHONE_KEY.said_as("phoneKey")
EVENT = CALL_EVENT.said_as("event")
RESULT = CALL_RESULT.said_as("result")

CONNECTED, ENDED = "CONNECTED", "ENDED"
CALL_EVENTS = (CONNECTED, ENDED)
RESULTS = tuple(result.value for result in CallResult)
# The phone items of the agent's view: dialable, or shown as listed (and refused here).
PHONE_KINDS = ("phone", "blocked")


class CallNotFound(TaskNotFound):
    """No call with this id of this agent on this task."""


@dataclass(frozen=True)
class PlacedCall:
    """The call of the agent's attempt; `failure` says why the contact centre could not
    place it (the call is then recorded as ended FAILED)."""

    attempt: Attempt
    failure: str | None = None

    @property
    def call_id(self) -> str:
        return self.attempt.call_id or ""

    @property
    def phone_number(self) -> str:
        return self.attempt.phone_number or ""

    @property
    def key(self) -> str:
        return self.attempt.phone_key or ""


# --- the rules of placing a call ---------------------------------------------------------


def _holds(agent: User, record_id: str) -> Task:
    """The task the agent holds, else NotAvailable saying what became of it."""
    try:
        return held_task(agent, record_id)
    except TaskTaken as taken:
        if taken.who is None:
            why = f"agent '{agent.login_user_id}' does not hold it"
        else:
            when = f" at {format_time(taken.at)} UTC" if taken.at else ""
            why = f"{taken.what} by {taken.who}{when}"
        raise NotAvailable(f"task '{record_id}' is not yours: {why}") from None


def _phone_item(task: Task, phone_key: str | None) -> tuple[str, str]:
    """(key, number) of the phone item chosen: `phone_key`'s, else the first one."""
    phones = [d for d in agent_view_of(task).details if d.kind in PHONE_KINDS]
    if phone_key is not None:
        found = next((d for d in phones if d.key == phone_key), None)
        if found is None:
            known = ", ".join(d.key for d in phones) or "none"
            raise InvalidInput(
                f"phoneKey '{phone_key}' is not a phone item of task '{task.record_id}' "
                f"(its phone items: {known})",
                field=PHONE_KEY,
            )
        return found.key, found.value
    if not phones:
        raise NotAvailable(f"task '{task.record_id}' has no phone number to call")
    return phones[0].key, phones[0].value


def _not_listed(task: Task, number: str) -> None:
    if dnc.listed_numbers(task.campaign.tenant_id, [number]):
        raise NotAvailable(f"{number} is on the do-not-call list")


def _campaign_delivers(task: Task) -> None:
    campaign = task.campaign
    if campaign.status != CampaignStatus.ACTIVE.value:
        raise NotAvailable(life_cycle.stopped_reason([(campaign.name, campaign.status)]))


def _queue_open(task: Task, seat: Seat) -> None:
    """The task's own queue open now (delivery's rule and its words)."""
    if task.skill_queue_id is None:
        return
    blocked = queue_hours.closed_queues(seat, Task.id == task.id, list)
    if blocked is not None:
        raise NotAvailable(blocked.reason)


def _in_window(task: Task, seat: Seat) -> None:
    campaign = task.campaign
    window = calling_windows.window_of(campaign)
    if window is None or task.time_zone in zones_inside(window, seat.now):
        return
    opens = calling_windows.next_window_opening(campaign, task.time_zone, seat.now)
    raise NotAvailable(
        f"outside the campaign's calling window ({window} {task.time_zone}): "
        f"the task can be called from {seat.local(opens)}"
    )


def _seat(agent: User, task: Task, now: datetime) -> Seat:
    """The agent at the task's queue only (the rules asked for this one task)."""
    queues = (task.skill_queue_id,) if task.skill_queue_id is not None else ()
    return Seat(
        agent.id, agent.login_user_id, queues, now, agent.tenant_id, agent.time_zone or "UTC"
    )


def check_callable(
    agent: User, task: Task, phone_key: str | None, now: datetime
) -> tuple[str, str]:
    """(key, number) to call, once every rule of calling the task now allows it."""
    key, number = _phone_item(task, phone_key)
    _not_listed(task, number)
    _campaign_delivers(task)
    seat = _seat(agent, task, now)
    _queue_open(task, seat)
    _in_window(task, seat)
    return key, number


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
    key, number = check_callable(agent, task, phone_key, now)
    attempt = ledger.open_attempt_of(task)
    if attempt is None or attempt.agent_id != agent.id:
        attempt = ledger.open_attempt(task, agent, now)
    task.reserved_at = now  # a call is activity: the offer timeout restarts
    if attempt.call_id is not None and attempt.call_ended_at is None:
        if attempt.phone_key == key:
            return PlacedCall(attempt)  # the same click again
        _end_call(attempt, task, CallResult.CANCELLED.value, None, actor=actor, now=now)
    _begin_call(attempt, task, key, number, now)
    failure = None
    if attempt.placed_by == CallPlacement.CONTACT_FLOW.value:
        try:
            attempt.contact_id = _place(task, attempt)
        except InstanceError as error:
            failure = error.message
    db.session.flush()
    _trace(actor, "call.started", task, attempt, now, **_started(attempt))
    if failure is not None:
        _end_call(attempt, task, CallResult.FAILED.value, None, actor=actor, now=now)
    return PlacedCall(attempt, failure)


def _begin_call(attempt: Attempt, task: Task, key: str, number: str, now: datetime) -> None:
    """A new call on the attempt: its columns replace those of an earlier call."""
    attempt.call_id = str(uuid.uuid4())
    attempt.call_started_at = now
    attempt.phone_key, attempt.phone_number = key, number
    attempt.placed_by = task.campaign.call_placement or CallPlacement.DESK.value
    attempt.contact_id = None
    attempt.connected_at, attempt.call_ended_at, attempt.call_result = None, None, None
    ledger.roll_up_call(attempt)


def _place(task: Task, attempt: Attempt) -> str:
    """Have the contact flow place the call; the contact's id (InstanceError otherwise)."""
    campaign: Campaign = task.campaign
    if not campaign.connect_contact_flow_id:
        raise InstanceError(
            f"the {campaign.name} campaign names no contact flow to place its calls"
        )
    call = OutboundCall(
        destination=attempt.phone_number or "",
        contact_flow_id=campaign.connect_contact_flow_id,
        queue_arn=campaign.connect_queue_arn,
        caller_id=campaign.connect_caller_id,
        attributes={
            "previewRecordID": task.record_id,
            "campaignName": campaign.name,
            "clientId": task.client_id,
        },
        client_token=attempt.call_id or "",
    )
    return instance_for(campaign.tenant).start_outbound_call(call)


# --- its events -------------------------------------------------------------------------


def _check_event(event: str, result: str | None) -> None:
    if event not in CALL_EVENTS:
        raise InvalidInput(f"event '{event}' is not one of {', '.join(CALL_EVENTS)}", field=EVENT)
    if event == ENDED:
        if result is None:
            raise InvalidInput("result is required with ENDED", field=RESULT)
        if result not in RESULTS:
            raise InvalidInput(
                f"result '{result}' is not one of {', '.join(RESULTS)}", field=RESULT
            )


def call_event(
    agent: User,
    record_id: str,
    call_id: str,
    event: str,
    result: str | None = None,
    contact_id: str | None = None,
    *,
    actor: Actor,
    now: datetime | None = None,
) -> Attempt:
    """The desk tells how the agent's call went (CONNECTED, ENDED with a result); repeated
    or out-of-order events change nothing. CallNotFound for a call that is not the agent's
    on this task."""
    _check_event(event, result)
    attempt = _agents_call(agent, record_id, call_id)
    now = stamped(now)  # once the attempt is read under the request's locks
    if record_call_event(attempt, event, result, contact_id, actor=actor, now=now):
        task = db.session.get(Task, attempt.task_id)
        if task is not None and task.reserved_by_id == agent.id:
            task.reserved_at = now  # activity: the offer timeout restarts
    return attempt


def _agents_call(agent: User, record_id: str, call_id: str) -> Attempt:
    attempt = db.session.scalar(
        select(Attempt)
        .join(Task, Task.id == Attempt.task_id)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(
            Attempt.call_id == call_id,
            Attempt.agent_id == agent.id,
            Campaign.tenant_id == agent.tenant_id,
            Task.record_id == record_id,
        )
        .with_for_update(of=Attempt)
    )
    if attempt is None:
        raise CallNotFound(
            f"agent '{agent.login_user_id}' has no call '{call_id}' on task '{record_id}'"
        )
    return attempt


def record_call_event(
    attempt: Attempt,
    event: str,
    result: str | None = None,
    contact_id: str | None = None,
    *,
    actor: Actor,
    now: datetime,
) -> bool:
    """Apply a call's event to its attempt; True when it changed something (CONNECTED
    before the end, ENDED once), False for an event out of order or repeated."""
    _check_event(event, result)
    if attempt.call_id is None or attempt.call_ended_at is not None:
        return False
    task = db.session.get(Task, attempt.task_id) if attempt.task_id is not None else None
    if event == CONNECTED:
        if attempt.connected_at is not None:
            return False
        attempt.connected_at = max(now, attempt.call_started_at or now)
        attempt.contact_id = attempt.contact_id or contact_id
        _trace(
            actor,
            "call.connected",
            task,
            attempt,
            now,
            callId=attempt.call_id,
            contactId=attempt.contact_id,
        )
        return True
    _end_call(attempt, task, result or "", contact_id, actor=actor, now=now)
    return True


def _end_call(
    attempt: Attempt,
    task: Task | None,
    result: str,
    contact_id: str | None,
    *,
    actor: Actor,
    now: datetime,
) -> None:
    attempt.call_ended_at = max(now, attempt.call_started_at or now)
    attempt.call_result = result
    attempt.contact_id = attempt.contact_id or contact_id
    ledger.roll_up_call(attempt)
    _trace(actor, "call.ended", task, attempt, now, **ended(attempt))


def _started(attempt: Attempt) -> dict[str, Any]:
    return {
        "callId": attempt.call_id,
        "phoneKey": attempt.phone_key,
        "phoneNumber": attempt.phone_number,
        "placedBy": attempt.placed_by,
        "contactId": attempt.contact_id,
    }


def ended(attempt: Attempt) -> dict[str, Any]:
    """`call.ended`'s data: the result and how long the call rang and talked."""
    rang_until = attempt.connected_at or attempt.call_ended_at
    return {
        **_started(attempt),
        "result": attempt.call_result,
        "startedAt": format_time(attempt.call_started_at),
        "connectedAt": format_time(attempt.connected_at),
        "endedAt": format_time(attempt.call_ended_at),
        "ringSeconds": ledger.seconds_between(attempt.call_started_at, rang_until),
        "talkSeconds": ledger.seconds_between(attempt.connected_at, attempt.call_ended_at),
    }


def _trace(
    actor: Actor, action: str, task: Task | None, attempt: Attempt, now: datetime, **data: Any
) -> None:
    """The call's audit record and event; the task is their subject (the attempt, when the
    task was deleted meanwhile)."""
    if task is not None:
        kind, entity, subject = "task", task.record_id, task.record_id
        tenant_id = task.campaign.tenant_id
        data = {"previewRecordID": task.record_id, "clientId": task.client_id, **data}
    else:
        kind, entity, subject = "attempt", str(attempt.id), None
        tenant_id = db.session.get(Campaign, attempt.campaign_id).tenant_id
    change = Change(
        action,
        kind,
        entity,
        tenant_id,
        None,
        data,
        event_type=action,
        event_data=data,
        subject=subject,
    )
    record(actor, change, now)


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
