"""Calls: placing the call of the agent's attempt.

`start_call` checks again, at the moment of the click, what delivery checked when the task
was delivered: the agent holds the task, the number chosen is one of its phone items and is
not on the do-not-call list, the campaign delivers (not paused, not archived), the task's
queue is open and the task is inside its campaign's calling window. Each refusal is
NotAvailable naming the rule, and changes nothing. The rules are delivery's own
(`campaigns.life_cycle`, `schedules.queue_hours`, `schedules.calling_windows`, `dialer.numbers`),
asked for this one task.

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
    CampaignStatus,
    Task,
    Tenant,
    User,
)
from app.models.campaigns import CallPlacement
from app.models.types import stamped
from app.services.actors import Actor
from app.services.calls import ledger
from app.services.campaigns import life_cycle
from app.services.contact_centre import InstanceError, OutboundCall, instance_for
from app.services.contact_limits.counts import admit_call
from app.services.contactability.seat import Seat
from app.services.delivery.ownership import held_task
from app.services.dialer import call_events
from app.services.dialer import numbers as task_numbers
from app.services.errors import InvalidInput, NotAvailable, TaskNotFound, TaskTaken
from app.services.fields import TASK_PHONE_KEY
from app.services.schedules import calling_windows, queue_hours
from app.services.schedules.window_clock import zones_inside
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


def _phone_item(task: Task, phone_key: str | None, now: datetime, zone: str) -> tuple[str, str]:
    """(key, number) of the phone item chosen: `phone_key`'s, else the suggested one;
    NotAvailable naming the rule when that number may not be called now (a contact limit's
    hold is the call's own count's to refuse, `admit_call`, which says until when)."""
    numbers = task_numbers.task_numbers(task, now, zone=zone)
    if phone_key is not None:
        found = next((n for n in numbers if n.key == phone_key), None)
        if found is None:
            known = ", ".join(n.key for n in numbers) or "none"
            raise InvalidInput(
                f"phoneKey '{phone_key}' is not a phone item of task '{task.record_id}' "
                f"(its phone items: {known})",
                field=PHONE_KEY,
            )
    else:
        if not numbers:
            raise NotAvailable(f"task '{task.record_id}' has no phone number to call")
        suggested = task_numbers.suggested_key(task, numbers)
        # None callable: the one a contact limit frees first (its refusal says when), else
        # the first, refused below by what holds it.
        limited = [n for n in numbers if n.rule == task_numbers.CONTACT_LIMIT]
        fallback = min(limited, key=lambda n: n.until or now) if limited else numbers[0]
        found = next((n for n in numbers if n.key == suggested), fallback)
    if found.rule in (task_numbers.DO_NOT_CALL, task_numbers.INVALID_NUMBER):
        raise NotAvailable(found.blocked_by or f"{found.value} may not be called")
    return found.key, found.value


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
    key, number = _phone_item(task, phone_key, now, agent.time_zone or "UTC")
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
    current = ledger.last_call_of(attempt)
    if current is not None and current.ended_at is None:
        if current.phone_key == key:
            return PlacedCall(attempt, current)  # the same click again
        call_events.end_call(
            attempt, task, CallResult.CANCELLED.value, None, actor=actor, now=now, call=current
        )
    admit_call(task, number, now=now, zone=agent.time_zone or "UTC")  # every call counts
    placed_by = task.campaign.call_placement or CallPlacement.DESK.value
    call = ledger.begin_call(attempt, task, key, number, placed_by, now)
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
