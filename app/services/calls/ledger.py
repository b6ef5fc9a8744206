"""The attempt ledger's rules: when an attempt opens, when and how it ends.

An attempt opens when a task is delivered to an agent (`open_attempt`); offering the agent
the task they already hold opens none. It ends, in the transaction of the change that ends
the reservation, as `EndedHow` says: closed with an outcome, released by the agent, lapsed
on the clock, taken back by a supervisor, or changed elsewhere (a status change, a transfer
or a deletion through the API, a bulk job or the pages).

A task whose reservation lapsed may still be closed by its agent (delivery's
`ownership.task_to_close`): the lapsed attempt then ends CLOSED after all, as it was worked.
A task delivered before the ledger existed has no attempt, and none is made up for it.

The ledger keeps two rollups on the attempt for the reports, in the transaction of the
change: `contact` (a person was reached: a chosen work code flagged contact, or a call
that ended ANSWERED) and `success` (a chosen code flagged success). The flags only ever
say yes, so an ANSWERED call stays a contact whatever unflagged codes the agent chose; a
code flagged success but not contact leaves an unanswered call no contact (the flags say
what the supervisor set, nothing is inferred). Both are read when the call ends and at
close; a flag changed later leaves the attempts already made as they were.

Every change of an attempt made here moves the reports' rollups in the same flush
(app/services/reports/rollups.py).

Every call placed is its own record (`Call`): `begin_call` adds one to the attempt, and a
redial inside the attempt (Call again, or another of the task's numbers) is a second one;
both are kept, each with its number, start, connection, end and result, and each call's id
stays known (its events are still accepted). The attempt keeps the columns of its last call
(`mirror`), which the reports and the API read as before. A task's calls tell the number it
was called on last (`last_called_key`: its numbers rotate from it) and the numbers whose call
ended INVALID_NUMBER (`invalid_numbers`: not dialled again while the item keeps that value).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, insert, select, update

from app.extensions import db
from app.models import Attempt, Call, CallResult, EndedHow, Task, TaskItem, User, WorkCodeChoice


def open_attempt(task: Task, agent: User, at: datetime) -> Attempt:
    """The attempt of delivering `task` to `agent` at `at`: a new one, unless the agent's
    attempt is open already. Called before the task is reserved for the agent: an attempt
    another agent left open (their reservation lapsed, nobody swept it yet) ends LAPSED."""
    current = _open_of(task) if task.reserved_by_id is not None else None
    if current is not None:
        if current.agent_id == agent.id:
            return current
        _end(current, EndedHow.LAPSED, at)
    attempt = Attempt(
        task_id=task.id,
        campaign_id=task.campaign_id,
        skill_queue_id=task.skill_queue_id,
        agent_id=agent.id,
        agent_login=agent.login_user_id,
        delivered_at=at,
        time_zone=task.time_zone,
        work_codes=[],
    )
    db.session.add(attempt)
    return attempt


def end_attempt(
    task: Task,
    how: EndedHow,
    at: datetime,
    *,
    outcome: str | None = None,
    codes: Sequence[tuple[str, str]] = (),
    chosen: Sequence[WorkCodeChoice] = (),
    note: str | None = None,
) -> Attempt | None:
    """End the task's open attempt as `how`; a CLOSED one keeps its outcome and codes
    (`chosen`: the codes' choices, whose flags make the rollups). None when the task has
    no attempt to end (never delivered since the ledger began)."""
    attempt = _open_of(task)
    if attempt is None and how == EndedHow.CLOSED:
        attempt = _lapsed_of(task)
    if attempt is None:
        return None
    _end(attempt, how, at)
    if how == EndedHow.CLOSED:
        attempt.closed_at, attempt.outcome = at, outcome
        attempt.work_codes = [{"key": key, "value": value} for key, value in codes]
        attempt.note = note
        roll_up(attempt, chosen)
    return attempt


def roll_up(attempt: Attempt, chosen: Sequence[WorkCodeChoice] = ()) -> None:
    """The attempt's `contact` and `success` from its call's result and the chosen codes'
    flags (see the module's docstring)."""
    answered = attempt.call_result == CallResult.ANSWERED.value
    attempt.contact = answered or any(choice.contact for choice in chosen)
    attempt.success = any(choice.success for choice in chosen)


def roll_up_call(attempt: Attempt) -> None:
    """The call ended (or a new one began): an ANSWERED call is a contact; a contact the
    codes already made (a close before the call's end arrived) stays one."""
    if attempt.call_result == CallResult.ANSWERED.value:
        attempt.contact = True
    elif attempt.closed_at is None:
        attempt.contact = False


def end_attempts(tasks: Sequence[Task], how: EndedHow, at: datetime) -> None:
    """End the open attempts of tasks changed alike (a bulk job's batch) in one query; only
    reserved tasks have one, so a batch of free tasks costs nothing. Each is ended through
    the session, so the reports' rollups move with it."""
    ids = [task.id for task in tasks if task.reserved_by_id is not None]
    if not ids:
        return
    for attempt in db.session.scalars(
        select(Attempt).where(Attempt.task_id.in_(ids), Attempt.ended_how.is_(None))
    ):
        _end(attempt, how, at)


def keep_deleted_tasks(tasks: Sequence[Task]) -> None:
    """Tasks about to be deleted: their attempts keep the task's id (`deleted_task_id`),
    so the reports still count each as one task attempted once its `task_id` is NULL."""
    ids = [task.id for task in tasks]
    if ids:
        db.session.execute(
            update(Attempt)
            .where(Attempt.task_id.in_(ids))
            .values(deleted_task_id=Attempt.task_id)
            .execution_options(synchronize_session=False)
        )


def open_attempt_of(task: Task) -> Attempt | None:
    """The task's open attempt (its agent's current one), if any."""
    return _open_of(task)


def seconds_between(start: datetime | None, end: datetime | None) -> float | None:
    """Seconds from `start` to `end` (to the millisecond); None unless both are known."""
    if start is None or end is None:
        return None
    return round((end - start).total_seconds(), 3)


def call_summary(attempt: Attempt | None) -> dict[str, Any] | None:
    """The attempt's call as `task.closed` tells it (its times as datetimes, for the trail to
    write); None when the attempt placed none."""
    if attempt is None or attempt.call_id is None:
        return None
    return {
        "callId": attempt.call_id,
        "result": attempt.call_result,
        "startedAt": attempt.call_started_at,
        "connectedAt": attempt.connected_at,
        "endedAt": attempt.call_ended_at,
        "previewSeconds": seconds_between(attempt.delivered_at, attempt.call_started_at),
        "talkSeconds": seconds_between(attempt.connected_at, attempt.call_ended_at),
        "wrapUpSeconds": seconds_between(attempt.call_ended_at, attempt.closed_at),
    }


def task_attempts(task: Task) -> list[Attempt]:
    """The task's attempts, newest first."""
    return list(
        db.session.scalars(
            select(Attempt)
            .where(Attempt.task_id == task.id)
            .order_by(Attempt.delivered_at.desc(), Attempt.id.desc())
        )
    )


# --- the calls -------------------------------------------------------------------------------


def begin_call(
    attempt: Attempt, task: Task, key: str, number: str, placed_by: str, now: datetime
) -> Call:
    """A new call of the attempt to the phone item `key` (`number`): its own record, kept
    beside the attempt's earlier calls; the attempt's call columns become this call's."""
    if attempt.id is None:
        db.session.flush()  # an attempt opened at the click: its id first
    call = Call(
        attempt_id=attempt.id,
        task_id=task.id,
        call_id=str(uuid.uuid4()),
        phone_key=key,
        phone_number=number,
        placed_by=placed_by,
        started_at=now,
    )
    db.session.add(call)
    attempt.call_id = call.call_id  # the attempt's last call from now on
    mirror(call, attempt)
    return call


def mirror(call: Call, attempt: Attempt) -> None:
    """The attempt's call columns from its last call (`call`, when it is that one): the
    reports and the API read the attempt as before. An earlier call changes nothing here."""
    if attempt.call_id != call.call_id:
        return
    attempt.call_started_at = call.started_at
    attempt.phone_key, attempt.phone_number = call.phone_key, call.phone_number
    attempt.placed_by, attempt.contact_id = call.placed_by, call.contact_id
    attempt.connected_at, attempt.call_ended_at = call.connected_at, call.ended_at
    attempt.call_result = call.result
    roll_up_call(attempt)


def last_call_of(attempt: Attempt) -> Call | None:
    """The attempt's last call (the one its call columns show), if it placed any."""
    if attempt.call_id is None:
        return None
    return db.session.scalar(select(Call).where(Call.call_id == attempt.call_id))


def calls_of(attempts: Iterable[Attempt]) -> dict[int, list[Call]]:
    """The calls of each attempt (by its id), oldest first: one query."""
    ids = [attempt.id for attempt in attempts]
    calls: dict[int, list[Call]] = defaultdict(list)
    if ids:
        for call in db.session.scalars(
            select(Call).where(Call.attempt_id.in_(ids)).order_by(Call.started_at, Call.id)
        ):
            calls[call.attempt_id].append(call)
    return calls


def last_called_key(task: Task) -> str | None:
    """The phone item the task's newest call dialled (any attempt's), if it had a call."""
    return db.session.scalar(
        select(Call.phone_key)
        .where(Call.task_id == task.id)
        .order_by(Call.started_at.desc(), Call.id.desc())
        .limit(1)
    )


def calls_from_attempts(campaign_ids: Sequence[int]) -> None:
    """The calls of attempts written as plain rows (the demo's past): one per attempt of
    these campaigns that placed one and has none recorded yet, set-based."""
    if not campaign_ids:
        return
    columns = ("attempt_id", "task_id", "call_id", "phone_key", "phone_number", "placed_by",
               "contact_id", "started_at", "connected_at", "ended_at", "result")  # fmt: skip
    rows = select(
        Attempt.id,
        Attempt.task_id,
        Attempt.call_id,
        func.coalesce(Attempt.phone_key, ""),
        func.coalesce(Attempt.phone_number, ""),
        Attempt.placed_by,
        Attempt.contact_id,
        Attempt.call_started_at,
        Attempt.connected_at,
        Attempt.call_ended_at,
        Attempt.call_result,
    ).where(
        Attempt.campaign_id.in_(campaign_ids),
        Attempt.call_id.is_not(None),
        Attempt.call_started_at.is_not(None),
        ~select(Call.id).where(Call.attempt_id == Attempt.id).exists(),
    )
    db.session.execute(insert(Call).from_select(columns, rows))


def _end(attempt: Attempt, how: EndedHow, at: datetime) -> None:
    attempt.ended_how, attempt.ended_at = how.value, at


def _open_of(task: Task) -> Attempt | None:
    return db.session.scalar(
        select(Attempt)
        .where(Attempt.task_id == task.id, Attempt.ended_how.is_(None))
        .order_by(Attempt.id.desc())
        .limit(1)
    )


def _lapsed_of(task: Task) -> Attempt | None:
    """The task's newest attempt, when it lapsed and was its last agent's: the one their
    close after the lapse finishes."""
    newest = db.session.scalar(
        select(Attempt).where(Attempt.task_id == task.id).order_by(Attempt.id.desc()).limit(1)
    )
    if (
        newest is not None
        and newest.ended_how == EndedHow.LAPSED
        and newest.agent_login == task.last_attempt_agent
    ):
        return newest
    return None


# --- wrong numbers -------------------------------------------------------------------------
# The one read of "this number was found wrong for this task" (the contact rules'
# INVALID_NUMBER): a call of the task to the phone item that ended INVALID_NUMBER while the
# item held the value it holds now. A data update that changes the item's value makes it
# callable again. Both forms below read the same rows: swap them together.


def invalid_numbers(task: Task) -> dict[tuple[str, str], datetime | None]:
    """(phone key, number) of the task's calls that ended INVALID_NUMBER, with when the
    latest of them ended."""
    rows = db.session.execute(
        select(Call.phone_key, Call.phone_number, Call.ended_at).where(
            Call.task_id == task.id, Call.result == CallResult.INVALID_NUMBER.value
        )
    )
    found: dict[tuple[str, str], datetime | None] = {}
    for key, number, ended in rows:
        if key is None or number is None:
            continue
        earlier = found.get((key, number))
        found[(key, number)] = ended if earlier is None or (ended and ended > earlier) else earlier
    return found


def invalid_number_condition() -> ColumnElement[bool]:
    """SQL on `task_items` (correlated): the item's current value was found wrong for its
    task (`invalid_numbers`'s rows)."""
    return exists(
        select(Call.id)
        .where(
            and_(
                Call.task_id == TaskItem.task_id,
                Call.phone_key == TaskItem.key,
                Call.phone_number == TaskItem.value,
                Call.result == CallResult.INVALID_NUMBER.value,
            )
        )
        .correlate(TaskItem)
    )
