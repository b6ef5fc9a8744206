"""How a delivered task ends: closed with an outcome (an attempt), or released (none).

Only the agent holding the task may release it, and close it, with one allowance
(`ownership.task_to_close`): a task whose reservation lapsed while the agent worked it may
still be closed by them while it is free and nobody else has changed it. Any other task
(deleted, transferred, its status changed elsewhere, taken by another agent after it
lapsed) is TaskTaken, which says what happened to it, by whom and when.

Work codes (app/services/work_codes/choices.py): when the task's queue has work-code groups, the
codes must be the queue's (`check_choice`). The outcome may then be left out if
the codes imply one: the strongest wins (REMOVE > COMPLETE > RESCHEDULE), and a RESCHEDULE
without a time takes the longest default delay of the chosen RESCHEDULE codes. What the
agent chooses wins over the codes: an outcome named, or a time alone (a RESCHEDULE). The
agent heard the customer, and an integration that always names its outcome keeps working
when a supervisor later gives one of its codes an outcome.

The campaign's attempt limit (`max_attempts`): a RESCHEDULE that brings `workAttempts` to
the limit closes the task COMPLETED instead, with `close_reason` saying so.

The agent may write a note on the attempt (at most NOTE_LIMIT characters, blanks around it
dropped, an empty one is none): kept with the attempt, told by `task.closed`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.models import EndedHow, Task, User, WorkCode, WorkCodeChoice, WorkedState
from app.models.types import stamped
from app.services.actors import Actor
from app.services.calls.ledger import call_summary, end_attempt
from app.services.consent import ledger as consent
from app.services.contact_rules import engine
from app.services.contactability.seat import local_text
from app.services.delivery import rules
from app.services.delivery.ownership import held_task, task_to_close
from app.services.dnc import numbers as dnc
from app.services.errors import NOT_CALLABLE, PAST, REQUIRED, InvalidInput, NotAvailable
from app.services.fields import (
    TASK_NEXT_EARLIEST,
    TASK_NOTE,
    TASK_OUTCOME,
    TASK_PERSONAL_CALLBACK,
)
from app.services.snapshots import with_fields
from app.services.tasks.snapshots import task_snapshot
from app.services.tasks.tracing import trace_change
from app.services.tasks.validation import NEXT_EARLIEST
from app.services.tasks.writes import hold_end, touch
from app.services.values import SentTime, checked_time, moment_text
from app.services.work_codes.choices import check_choice


class Outcome(StrEnum):
    COMPLETE = "COMPLETE"
    RESCHEDULE = "RESCHEDULE"
    REMOVE = "REMOVE"


# The outcome the chosen codes imply when the agent names none: the first of these any
# code implies.
STRONGEST_FIRST = (Outcome.REMOVE, Outcome.COMPLETE, Outcome.RESCHEDULE)


@dataclass(frozen=True)
class Closing:
    """What the agent chose: the outcome, the next earliest time, the work codes."""

    outcome: Outcome
    next_work: datetime | None
    work_codes: tuple[tuple[str, str], ...]
    now: datetime
    # The codes as the queue's groups define them (none: the queue has no groups).
    chosen: tuple[WorkCodeChoice, ...] = ()
    # Why the outcome differs from the one chosen (the attempt limit), else None.
    reason: str | None = None


# How long a task a supervisor took back from an agent is kept from that agent: as long as
# a preferred agent's hold, the time the others of the queue get to take it.
PASSED_OVER_FOR = "PREFERRED_AGENT_HOLD_SECONDS"
# The longest note an agent may keep with an attempt, in characters.
NOTE_LIMIT = 2000

# The fields as this module's messages name them (the spec's names).
OUTCOME = TASK_OUTCOME.said_as("outcome")
NOTE = TASK_NOTE.said_as("note")

# Checks every closing passes before it is applied, each raising a ServiceError to refuse.
OUTCOME_RULES: list[Callable[[Task, Closing], None]] = []


def _asked(outcome: str | None) -> Outcome | None:
    if outcome is None:
        return None
    if outcome not in set(Outcome):
        raise InvalidInput(
            f"{OUTCOME} '{outcome}' is not one of {', '.join(Outcome)}", field=OUTCOME
        )
    return Outcome(outcome)


def checked_note(note: str | None) -> str | None:
    """The note as kept: blanks around it dropped, empty is none, NOTE_LIMIT at most."""
    if note is None:
        return None
    note = note.strip()
    if len(note) > NOTE_LIMIT:
        raise InvalidInput(
            f"{NOTE} is longer than {NOTE_LIMIT:,} characters ({len(note):,})", field=NOTE
        )
    if "\x00" in note:
        raise InvalidInput(f"{NOTE} holds a NUL character", field=NOTE)
    return note or None


def implied_outcome(codes: Sequence[WorkCodeChoice]) -> Outcome | None:
    """The strongest outcome the codes imply (REMOVE > COMPLETE > RESCHEDULE), or None."""
    implied = {code.outcome for code in codes}
    return next((outcome for outcome in STRONGEST_FIRST if outcome in implied), None)


def _next_work(
    next_earliest: SentTime | None, codes: Sequence[WorkCodeChoice], now: datetime
) -> datetime:
    """A RESCHEDULE's time: the one sent, else now plus the longest delay of the chosen
    RESCHEDULE codes (so no code's wait is cut short)."""
    if next_earliest is None:
        delays = [
            c.reschedule_minutes
            for c in codes
            if c.outcome == Outcome.RESCHEDULE and c.reschedule_minutes
        ]
        if delays:
            return now + timedelta(minutes=max(delays))
        raise InvalidInput(
            f"{NEXT_EARLIEST} is required to RESCHEDULE",
            field=NEXT_EARLIEST,
            kind=REQUIRED,
        )
    next_work = checked_time(next_earliest, NEXT_EARLIEST)
    if next_work <= now:
        raise InvalidInput(
            f"{NEXT_EARLIEST} must be in the future (now {moment_text(now)} UTC)",
            field=NEXT_EARLIEST,
            kind=PAST,
        )
    return next_work


def _closing(
    task: Task,
    asked: Outcome | None,
    next_earliest: SentTime | None,
    sent: Sequence,
    now: datetime,
) -> Closing:
    pairs = tuple((str(key), str(value)) for key, value in sent)
    chosen = tuple(check_choice(task.skill_queue, pairs) or ())
    if asked is None and next_earliest is not None:
        asked = Outcome.RESCHEDULE  # a time chosen is a reschedule chosen
    outcome = asked or implied_outcome(chosen)
    if outcome is None:
        raise InvalidInput(
            f"{OUTCOME} is required: one of {', '.join(Outcome)}"
            + (", as no work code chosen implies one" if chosen else ""),
            field=OUTCOME,
            kind=REQUIRED,
        )
    next_work = None
    if outcome == Outcome.RESCHEDULE:
        next_work = _next_work(next_earliest, chosen, now)
    return Closing(outcome, next_work, pairs, now, chosen)


def attempt_limit(task: Task, closing: Closing) -> Closing:
    """A RESCHEDULE that brings the attempts to the campaign's limit completes the task."""
    limit = task.campaign.max_attempts
    if closing.outcome != Outcome.RESCHEDULE or not limit or task.work_attempts < limit:
        return closing
    attempts = task.work_attempts
    reason = f"attempt limit reached ({attempts} attempt{'' if attempts == 1 else 's'})"
    return replace(closing, outcome=Outcome.COMPLETE, next_work=None, reason=reason)


def _apply(task: Task, closing: Closing) -> None:
    task.close_reason = closing.reason
    if closing.outcome == Outcome.COMPLETE:
        task.worked_state = WorkedState.COMPLETED
    elif closing.outcome == Outcome.REMOVE:
        task.worked_state = WorkedState.REMOVED
    else:
        task.worked_state = WorkedState.WORKED
        task.next_earliest_work_at = closing.next_work
        # A preferred agent's hold runs again from when the task is due again.
        task.hold_until = hold_end(task.preferred_agent, closing.next_work, closing.now)


def _store_work_codes(task: Task, codes: tuple[tuple[str, str], ...]) -> None:
    """The last attempt's work codes replace any earlier ones."""
    task.work_codes.clear()
    db.session.flush()
    for position, (key, value) in enumerate(codes):
        task.work_codes.append(WorkCode(key=key, value=value, position=position))


def _checked(
    agent: User,
    record_id: str,
    outcome: str | None,
    next_earliest: SentTime | None,
    work_codes: Sequence[tuple[str, str]],
    now: datetime | None,
) -> tuple[Task, Closing, datetime]:
    """The task to close, the closing chosen (every rule passed; else the refusal) and the
    time it is stamped with: read once the task is locked, so that a wait for it is not
    the attempt's."""
    asked = _asked(outcome)
    task = task_to_close(agent, record_id, stamped(now))
    now = stamped(now)
    closing = _closing(task, asked, next_earliest, work_codes, now)
    for rule in OUTCOME_RULES:
        rule(task, closing)
    return task, closing, now


def outcome_of(
    agent: User,
    record_id: str,
    outcome: str | None = None,
    *,
    next_earliest: SentTime | None = None,
    work_codes: Sequence[tuple[str, str]] = (),
    now: datetime | None = None,
) -> Outcome:
    """The outcome `close_task` would apply to this closing, with the refusal it would
    raise; nothing changes. The desk asks before every closing that removes the task."""
    _task, closing, _now = _checked(agent, record_id, outcome, next_earliest, work_codes, now)
    return closing.outcome


class CallbackNotCallable(InvalidInput):
    """A personal callback at a time the customer may not be called; `until`: the first
    allowed time after it (None: no rule of the clock frees it)."""

    def __init__(self, message: str, *, until: datetime | None) -> None:
        super().__init__(message, field=TASK_NEXT_EARLIEST, kind=NOT_CALLABLE)
        self.until = until


# What a callback's time is not checked against: the task's own state and time (the
# closing sets them), the attempt limit (it completes the task instead) and a pause (a
# supervisor's, which a resume ends).
NOT_CHECKED_FOR_CALLBACKS = frozenset(
    {engine.STATE, engine.NEXT_EARLIEST_TIME, engine.ATTEMPT_LIMIT, engine.CAMPAIGN_PAUSED}
)


def check_callback(task: Task, agent: User, closing: Closing) -> None:
    """A personal callback is a RESCHEDULE at a time the contact rules let the customer be
    called (the window, the queue's hours, the regional rules, the limits, the numbers),
    as they stand now; CallbackNotCallable with the first allowed time otherwise."""
    if closing.outcome != Outcome.RESCHEDULE or closing.next_work is None:
        raise InvalidInput(
            "a personal callback is a RESCHEDULE at a time", field=TASK_PERSONAL_CALLBACK
        )
    at, zone = closing.next_work, agent.time_zone or "UTC"
    found = engine.explain(task, at, zone)
    reasons = [r for r in found.reasons if r.rule not in NOT_CHECKED_FOR_CALLBACKS]
    wanted = engine.Explanation(task, at, reasons, found.numbers, found.seat)
    if wanted.callable_now:
        return
    until = wanted.next_callable_at
    first = f"; the first allowed time is {local_text(until, zone)}" if until else ""
    raise CallbackNotCallable(
        f"the customer may not be called at {local_text(at, zone)} "
        f"({', '.join(wanted.rules)}: {wanted.message(zone)}){first}",
        until=until,
    )


def close_task(
    agent: User,
    record_id: str,
    outcome: str | None = None,
    *,
    next_earliest: SentTime | None = None,
    work_codes: Sequence[tuple[str, str]] = (),
    note: str | None = None,
    personal_callback: bool = False,
    actor: Actor,
    now: datetime | None = None,
) -> Task:
    """End the agent's attempt: one more work attempt, reservation ended. The outcome is
    the one named, else the one the work codes imply; see the module's docstring."""
    note = checked_note(note)
    task, closing, now = _checked(agent, record_id, outcome, next_earliest, work_codes, now)
    before = task_snapshot(task)
    if personal_callback:
        check_callback(task, agent, closing)
    task.work_attempts = (task.work_attempts or 0) + 1
    closing = attempt_limit(task, closing)
    _apply(task, closing)
    if personal_callback and closing.outcome == Outcome.RESCHEDULE:
        # Kept for this agent from its time (the first tier of delivery), then the queue's.
        hold = timedelta(minutes=current_app.config["CALLBACK_HOLD_MINUTES"])
        task.preferred_agent, task.hold_until = agent.login_user_id, closing.next_work + hold
    _store_work_codes(task, closing.work_codes)
    if any(code.adds_to_dnc for code in closing.chosen):
        dnc.add_task_numbers(task, actor=actor)
    if any(code.revokes_consent for code in closing.chosen):
        consent.revoke_task_numbers(task, actor=actor, now=now)
    attempt = end_attempt(
        task,
        EndedHow.CLOSED,
        now,
        outcome=closing.outcome.value,
        codes=closing.work_codes,
        chosen=closing.chosen,
        note=note,
    )
    end_reservation(task)
    touch(task, now)
    after = task_snapshot(task)
    if closing.reason:
        after = with_fields(after, closeReason=closing.reason)
    trace_change(
        actor,
        "task.closed",
        task,
        before,
        after,
        outcome=closing.outcome.value,
        attempt=task.work_attempts,
        workCodes=[{"key": key, "value": value} for key, value in closing.work_codes],
        closeReason=closing.reason,
        call=call_summary(attempt),
        note=note,
    )
    return task


def end_reservation(task: Task) -> None:
    task.reserved_by_id, task.reserved_at = None, None


def release(
    task: Task,
    *,
    actor: Actor,
    now: datetime,
    reason: str = "task.released",
    passed_over: str | None = None,
    how: EndedHow = EndedHow.RELEASED,
) -> None:
    """Return a reserved task to the queue without counting an attempt; its ledger
    attempt ends as `how` (the agent's release, the clock's lapse, a supervisor's).

    `passed_over` (a supervisor's release): the agent the task is taken from. Any hold ends
    with it, and the task is not offered to that agent for PREFERRED_AGENT_HOLD_SECONDS; the
    audit record and the event say both (`holdEnded`, `passedOver`)."""
    before = task_snapshot(task)
    end_attempt(task, how, now)
    end_reservation(task)
    extra: dict = {}
    if passed_over is not None:
        extra = _pass_over(task, passed_over, now)
    touch(task, now)
    after = with_fields(task_snapshot(task), **extra)
    trace_change(actor, reason, task, before, after)


def _pass_over(task: Task, agent: str, now: datetime) -> dict:
    """End the task's hold and keep it from `agent` for a while; what the trail says of it."""
    held = task.preferred_agent is not None
    task.preferred_agent, task.hold_until = None, None
    task.passed_over_agent, task.passed_over_until = agent, now + rules.seconds(PASSED_OVER_FOR)
    return {
        "holdEnded": held,
        "passedOver": {"agent": agent, "until": task.passed_over_until},
    }


def release_task(agent: User, record_id: str, *, actor: Actor, now: datetime | None = None) -> Task:
    """The agent gives the task back (skip): it returns to the queue, no attempt counted.
    A campaign that does not let agents skip (`can_skip` off) refuses: its task ends with
    an outcome. Going offline, signing out, a supervisor and the clock still release it."""
    task = held_task(agent, record_id)
    if not task.campaign.can_skip:
        raise NotAvailable(
            f"the {task.campaign.name} campaign does not let agents skip a task: "
            "close it with an outcome"
        )
    release(task, actor=actor, now=stamped(now))  # once the task is locked
    return task


def release_all(
    agent: User, *, actor: Actor, now: datetime, how: EndedHow = EndedHow.RELEASED
) -> int:
    """Release every task the agent holds (signing out, going offline, deleted)."""
    tasks = list(db.session.scalars(select(Task).where(Task.reserved_by_id == agent.id)))
    for task in tasks:
        release(task, actor=actor, now=now, how=how)
    return len(tasks)
