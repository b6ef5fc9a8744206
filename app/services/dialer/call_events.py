"""Calls: how the call of an agent's attempt went, whoever reports it.

`record_call_event` is the rule for what a call's events do, whoever reports them (the desk
through `call_event`, the worker following the contact flow's calls): CONNECTED once, before
the end; ENDED once, with a CallResult. An event out of order or repeated changes nothing.
An event may come after the attempt ended (the agent closed the task before the end event
arrived). Each call is its own record (`Call`): an event names its call by id, and an
earlier call of the attempt (before a redial) is still known, its events accepted as
before; the attempt's call columns follow its last call only (`ledger.mirror`). Every
change leaves its audit record and its event (`call.started`,
`call.connected`, `call.ended`) in the caller's transaction; the subject is the task.
Placing the call is app/services/dialer/placing.py.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, Call, CallResult, Campaign, Task, User
from app.models.types import stamped
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.calls import ledger
from app.services.errors import InvalidInput, TaskNotFound
from app.services.fields import CALL_EVENT, CALL_RESULT

# How this module's refusals name their fields.
EVENT = CALL_EVENT.said_as("event")
RESULT = CALL_RESULT.said_as("result")

CONNECTED, ENDED = "CONNECTED", "ENDED"
CALL_EVENTS = (CONNECTED, ENDED)
RESULTS = tuple(result.value for result in CallResult)


class CallNotFound(TaskNotFound):
    """No call with this id of this agent on this task."""


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
    attempt, call = _agents_call(agent, record_id, call_id)
    now = stamped(now)  # once the attempt is read under the request's locks
    if record_call_event(attempt, event, result, contact_id, actor=actor, now=now, call=call):
        task = db.session.get(Task, attempt.task_id)
        if task is not None and task.reserved_by_id == agent.id:
            task.reserved_at = now  # activity: the offer timeout restarts
    return attempt


def _agents_call(agent: User, record_id: str, call_id: str) -> tuple[Attempt, Call]:
    """The agent's call `call_id` on the task (its last one or an earlier one) and its
    attempt, the attempt under its row lock."""
    attempt = db.session.scalar(
        select(Attempt)
        .join(Call, Call.attempt_id == Attempt.id)
        .join(Task, Task.id == Attempt.task_id)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(
            Call.call_id == call_id,
            Attempt.agent_id == agent.id,
            Campaign.tenant_id == agent.tenant_id,
            Task.record_id == record_id,
        )
        .with_for_update(of=Attempt)
    )
    call = (
        db.session.scalar(select(Call).where(Call.call_id == call_id))
        if attempt is not None
        else None
    )
    if attempt is None or call is None:
        raise CallNotFound(
            f"agent '{agent.login_user_id}' has no call '{call_id}' on task '{record_id}'"
        )
    return attempt, call


def record_call_event(
    attempt: Attempt,
    event: str,
    result: str | None = None,
    contact_id: str | None = None,
    *,
    actor: Actor,
    now: datetime,
    call: Call | None = None,
) -> bool:
    """Apply a call's event to the call (default: the attempt's last one) and, when it is
    the last, to the attempt's call columns; True when it changed something (CONNECTED
    before the end, ENDED once), False for an event out of order or repeated."""
    _check_event(event, result)
    call = call or ledger.last_call_of(attempt)
    if call is None or call.ended_at is not None:
        return False
    task = db.session.get(Task, attempt.task_id) if attempt.task_id is not None else None
    if event == CONNECTED:
        if call.connected_at is not None:
            return False
        call.connected_at = max(now, call.started_at)
        call.contact_id = call.contact_id or contact_id
        ledger.mirror(call, attempt)
        trace(
            actor,
            "call.connected",
            task,
            attempt,
            now,
            callId=call.call_id,
            contactId=call.contact_id,
        )
        return True
    end_call(attempt, task, result or "", contact_id, actor=actor, now=now, call=call)
    return True


def end_call(
    attempt: Attempt,
    task: Task | None,
    result: str,
    contact_id: str | None,
    *,
    actor: Actor,
    now: datetime,
    call: Call | None = None,
) -> None:
    """End the call (default: the attempt's last one) with `result`, leaving `call.ended`."""
    call = call or ledger.last_call_of(attempt)
    if call is None:
        return
    call.ended_at = max(now, call.started_at)
    call.result = result
    call.contact_id = call.contact_id or contact_id
    ledger.mirror(call, attempt)
    trace(actor, "call.ended", task, attempt, now, **ended(call))


def started(call: Call) -> dict[str, Any]:
    """`call.started`'s data: the call, the number and who places it."""
    return {
        "callId": call.call_id,
        "phoneKey": call.phone_key,
        "phoneNumber": call.phone_number,
        "placedBy": call.placed_by,
        "contactId": call.contact_id,
    }


def ended(call: Call) -> dict[str, Any]:
    """`call.ended`'s data: the result and how long the call rang and talked."""
    rang_until = call.connected_at or call.ended_at
    return {
        **started(call),
        "result": call.result,
        "startedAt": call.started_at,
        "connectedAt": call.connected_at,
        "endedAt": call.ended_at,
        "ringSeconds": ledger.seconds_between(call.started_at, rang_until),
        "talkSeconds": ledger.seconds_between(call.connected_at, call.ended_at),
    }


def trace(
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
