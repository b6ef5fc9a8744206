"""The Desk API: JSON actions of one agent, for integrations (a softphone, a workspace app).

`POST /desk-api/v1/<action>` with the five X-sc- headers (401 rules of the other APIs); the
body names the `tenant` (as in the User Provisioning API) and the `agent` (a loginUserId).
Every answer is HTTP 200 with `result` and `message`. Each action calls one function of
app/services/delivery, the same ones the desk page calls; a successful action also counts
as the agent's heartbeat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.desk import api_bp
from app.desk.schemas import (
    CallEventRequest,
    CloseTaskRequest,
    DeskRequest,
    NextTaskRequest,
    ReleaseTaskRequest,
    SetAgentStateRequest,
    StartCallRequest,
    TaskAttemptsRequest,
)
from app.models import Attempt, Call, Task, User
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.calls import ledger
from app.services.campaigns.dialing import dial_settings
from app.services.contact_limits.counts import ContactLimitReached
from app.services.contact_rules.engine import CONTACT_LIMIT, HeldBack
from app.services.delivery import agent_state, closing, offers
from app.services.dialer import call_events, placing
from app.services.dialer.numbers import Number, suggested_key, task_numbers
from app.services.errors import NotAvailable, NotFound, ServiceError, TaskNotFound
from app.services.people.users import find_user
from app.services.tasks.data import TaskData, with_data
from app.services.tasks.display import agent_view_of
from app.services.tasks.snapshots import snapshot, task_snapshot
from app.services.tasks.validation import NEXT_EARLIEST
from app.services.work_codes.choices import offered as offered_work_codes
from app.web.api_keys import Caller
from app.web.json_actions import json_action
from app.wire.tasks import shown
from app.wire.times import epoch_ms, sent_time, to_epoch_ms

PREFIX = api_bp.url_prefix
# The outcome a closing applied, as the task's state tells it.
CLOSED_BY_STATE = {"COMPLETED": "COMPLETE", "WORKED": "RESCHEDULE", "REMOVED": "REMOVE"}
# closeTask's and releaseTask's answer when nothing was closed.
CLOSED_NOTHING = {"task": None, "outcome": None, "closeReason": None}
# NOT_AVAILABLE, NOT_FOUND (a task the agent does not hold), else INVALID_ARGUMENTS.
RESULT_OF: tuple[tuple[type[ServiceError], str], ...] = (
    (NotAvailable, "NOT_AVAILABLE"),
    (TaskNotFound, "NOT_FOUND"),
)


def _agent(tenant, login_user_id: str) -> User:
    """The tenant's user acting as agent; an unknown one is INVALID_ARGUMENTS."""
    agent = find_user(tenant, login_user_id)
    if agent is None:
        raise NotFound(f"agent '{login_user_id}' is not a user of this environment")
    if not agent.active:
        raise NotFound(f"agent '{login_user_id}' is deactivated")
    agent_state.hold_agent(agent)  # a deletion under way finishes first, or waits for us
    return agent


def _run(
    schema: type[DeskRequest],
    action: Callable[[User, Any, Actor], dict],
    refused_fields: Callable[[ServiceError], dict[str, Any]] | None = None,
    **empty: Any,
):
    """Validate, act as the agent, count the heartbeat (see json_action)."""

    def act(caller: Caller, body: dict[str, Any]) -> dict:
        request = schema.model_validate(body)
        agent = _agent(caller.tenant, request.agent)
        answer = action(agent, request, Actor.agent(agent.login_user_id))
        agent_state.heartbeat(agent)
        return {**empty, **answer}

    return json_action(act, RESULT_OF, "INVALID_ARGUMENTS", empty, refused_fields)


def offered(
    task: Task, data: TaskData | None = None, numbers: list[Number] | None = None
) -> dict[str, Any]:
    """The task as search returns it, its campaignName, and what the agent sees of it (its
    data read here unless given), each phone detail with whether it may be called now."""
    data = data or with_data([task])[0]
    view = agent_view_of(task, data.items)
    states = {number.key: number for number in numbers}
    return {
        **shown(snapshot(data)),
        "agentView": {
            "banner": view.banner,
            "details": [
                {
                    "key": d.key,
                    "label": d.label,
                    "value": d.value,
                    "kind": d.kind,
                    "href": d.href,
                    "highlighted": d.highlighted,
                    "callable": states[d.key].callable if d.key in states else None,
                    "blockedBy": states[d.key].blocked_by if d.key in states else None,
                }
                for d in view.details
            ],
        },
    }


def offered_codes(task: Task) -> list[dict[str, Any]]:
    """The work-code groups closing the task offers, as a softphone renders them."""
    return [
        {
            "name": group.name,
            "required": group.required,
            "multiple": group.multiple,
            "codes": [
                {
                    "name": code.name,
                    "description": code.description,
                    "outcome": code.outcome,
                    "rescheduleMinutes": code.reschedule_minutes,
                    "addsToDnc": code.adds_to_dnc,
                    "revokesConsent": code.revokes_consent,
                    "suggestedFor": code.suggested_for,
                }
                for code in group.codes
            ],
        }
        for group in offered_work_codes(task.skill_queue)
    ]


@api_bp.post("/setAgentState", provide_automatic_options=False)
def set_agent_state():
    """Set the agent's state: AVAILABLE, AWAY (with one of the tenant's reasons, or none)
    or OFFLINE (which releases the agent's task)."""

    def action(agent: User, request: SetAgentStateRequest, actor: Actor) -> dict:
        agent_state.set_agent_state(agent, request.state, reason=request.reason, actor=actor)
        reason = agent.desk_state_reason
        return {
            "message": f"agent '{agent.login_user_id}' is {request.state}"
            + (f" ({reason})" if reason else ""),
            "state": request.state,
            "reason": reason,
        }

    return _run(SetAgentStateRequest, action, state=None, reason=None)


@api_bp.post("/nextTask", provide_automatic_options=False)
def next_task():
    """The agent's task: the one held, else the next deliverable one, else why none."""

    def action(agent: User, _request: NextTaskRequest, actor: Actor) -> dict:
        offer = offers.next_task(agent, actor=actor)
        if offer.task is None:
            due = offer.next_due and to_epoch_ms(offer.next_due)
            return {"message": offer.reason, "reason": offer.reason, "nextDueTime": due}
        numbers = task_numbers(offer.task, utcnow(), zone=agent.time_zone or "UTC")
        return {
            "message": f"task '{offer.task.record_id}' is yours",
            "task": offered(offer.task, offer.data, numbers),
            "workCodeGroups": offered_codes(offer.task),
            **dialling(offer.task),
            "suggestedPhoneKey": suggested_key(offer.task, numbers),
        }

    return _run(
        NextTaskRequest,
        action,
        task=None,
        reason=None,
        nextDueTime=None,
        workCodeGroups=None,
        dialMode=None,
        suggestedPhoneKey=None,
        autoDialSeconds=None,
        canSkip=None,
    )


def dialling(task: Task) -> dict[str, Any]:
    """How the desk dials the task: its campaign's settings."""
    settings = dial_settings(task.campaign)
    return {
        "dialMode": settings.mode,
        "autoDialSeconds": settings.auto_dial_seconds,
        "canSkip": settings.can_skip,
    }


@api_bp.post("/closeTask", provide_automatic_options=False)
def close_task():
    """End the agent's task with an outcome (COMPLETE, RESCHEDULE, REMOVE), named or implied
    by its work codes: one attempt."""

    def action(agent: User, request: CloseTaskRequest, actor: Actor) -> dict:
        codes = [(code.key, code.value) for code in request.workCodes or ()]
        task = closing.close_task(
            agent,
            request.previewRecordID,
            request.outcome,
            next_earliest=sent_time(request.nextEarliestWorkTimeUTC, NEXT_EARLIEST),
            work_codes=codes,
            note=request.note,
            personal_callback=request.personalCallback,
            actor=actor,
        )
        outcome = CLOSED_BY_STATE.get(task.worked_state)
        message = f"task '{task.record_id}' closed: {outcome}"
        if task.close_reason:
            message += f" ({task.close_reason})"
        return {
            "message": message,
            "task": shown(task_snapshot(task)),
            "outcome": outcome,
            "closeReason": task.close_reason,
        }

    return _run(CloseTaskRequest, action, _callback_time, **CLOSED_NOTHING, nextCallableAt=None)


def _callback_time(refused: ServiceError) -> dict[str, Any]:
    """A personal callback at a time the customer may not be called: the first allowed."""
    if isinstance(refused, closing.CallbackNotCallable) and refused.until is not None:
        return {"nextCallableAt": to_epoch_ms(refused.until)}
    return {}


@api_bp.post("/releaseTask", provide_automatic_options=False)
def release_task():
    """Give the task back to the queue without counting an attempt."""

    def action(agent: User, request: ReleaseTaskRequest, actor: Actor) -> dict:
        task = closing.release_task(agent, request.previewRecordID, actor=actor)
        message = f"task '{task.record_id}' released"
        return {"message": message, "task": shown(task_snapshot(task))}

    return _run(ReleaseTaskRequest, action, **CLOSED_NOTHING)


def call_answer(call: Call) -> dict[str, Any]:
    """One call of an attempt as taskAttempts lists it (times in epoch ms)."""
    return {
        "callId": call.call_id,
        "phoneKey": call.phone_key,
        "phoneNumber": call.phone_number,
        "startedAt": to_epoch_ms(call.started_at),
        "connectedAt": epoch_ms(call.connected_at),
        "endedAt": epoch_ms(call.ended_at),
        "result": call.result,
        "evidence": call.evidence,
    }


def attempt_answer(attempt: Attempt, calls: list[Call] | None = None) -> dict[str, Any]:
    """One attempt as taskAttempts and callEvent answer it (times in epoch ms), with its
    calls oldest first (read here unless given)."""
    if calls is None:
        calls = ledger.calls_of([attempt]).get(attempt.id, [])
    return {
        "attemptId": attempt.id,
        "agent": attempt.agent_login,
        "deliveredAt": to_epoch_ms(attempt.delivered_at),
        "callStartedAt": epoch_ms(attempt.call_started_at),
        "connectedAt": epoch_ms(attempt.connected_at),
        "callEndedAt": epoch_ms(attempt.call_ended_at),
        "callResult": attempt.call_result,
        "contactId": attempt.contact_id,
        "phoneKey": attempt.phone_key,
        "phoneNumber": attempt.phone_number,
        "closedAt": epoch_ms(attempt.closed_at),
        "outcome": attempt.outcome,
        "workCodes": [
            {"key": code["key"], "value": code["value"]} for code in attempt.work_codes or ()
        ],
        "endedHow": attempt.ended_how,
        "previewSeconds": ledger.seconds_between(
            attempt.delivered_at, attempt.call_started_at or attempt.ended_at
        ),
        "talkSeconds": ledger.seconds_between(attempt.connected_at, attempt.call_ended_at),
        "wrapUpSeconds": ledger.seconds_between(attempt.call_ended_at, attempt.closed_at),
        "note": attempt.note,
        "calls": [call_answer(call) for call in calls],
    }


@api_bp.post("/startCall", provide_automatic_options=False)
def start_call():
    """Check again that the agent may call the task now, and record the call's start."""

    def action(agent: User, request: StartCallRequest, actor: Actor) -> dict:
        placed = placing.start_call(agent, request.previewRecordID, request.phoneKey, actor=actor)
        call = {"callId": placed.call_id, "phoneNumber": placed.phone_number, "key": placed.key}
        if placed.failure is not None:
            # Recorded (started, ended FAILED) and committed: the answer says it failed.
            return {"result": "FAIL", "message": placed.failure, "call": call}
        message = f"call {placed.call_id} to {placed.phone_number} started"
        return {"message": message, "call": call}

    return _run(StartCallRequest, action, _when_callable, call=None, nextCallableAt=None, rule=None)


def _when_callable(refused: ServiceError) -> dict[str, Any]:
    """A call the contact rules hold back: the rule's name, and when the call would be
    allowed (epoch ms; a contact limit's, a calling window's, ...)."""
    told: dict[str, Any] = {}
    if isinstance(refused, ContactLimitReached | HeldBack):
        told["rule"] = getattr(refused, "rule", CONTACT_LIMIT)
        if refused.until is not None:
            told["nextCallableAt"] = to_epoch_ms(refused.until)
    return told


@api_bp.post("/callEvent", provide_automatic_options=False)
def call_event():
    """How the agent's call went: CONNECTED, or ENDED with its result."""

    def action(agent: User, request: CallEventRequest, actor: Actor) -> dict:
        attempt = call_events.call_event(
            agent,
            request.previewRecordID,
            request.callId,
            request.event,
            request.result,
            request.contactId,
            actor=actor,
        )
        return {
            "message": f"call {request.callId}: {request.event} recorded",
            "attempt": attempt_answer(attempt),
        }

    return _run(CallEventRequest, action, attempt=None)


@api_bp.post("/taskAttempts", provide_automatic_options=False)
def task_attempts():
    """The attempts of any task of the tenant, newest first."""

    def action(agent: User, request: TaskAttemptsRequest, _actor: Actor) -> dict:
        attempts = placing.task_attempts(agent.tenant, request.previewRecordID)
        calls = ledger.calls_of(attempts)
        return {
            "message": f"{len(attempts)} attempt(s) of task '{request.previewRecordID}'",
            "attempts": [
                attempt_answer(attempt, calls.get(attempt.id, [])) for attempt in attempts
            ],
        }

    return _run(TaskAttemptsRequest, action, attempts=None)
