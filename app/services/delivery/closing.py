"""How a delivered task ends: closed with an outcome (an attempt), or released (none).

Only the agent holding the task may close or release it; any other task, or one whose
reservation ended (deleted, transferred, its status changed elsewhere, taken by another
agent after it lapsed), is TaskNotFound, which the desk shows as "no longer yours".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import select

from app.extensions import db
from app.models import Campaign, Task, User, WorkCode, WorkedState
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import rules
from app.services.errors import InvalidInput, TaskNotFound
from app.services.rules import format_time, from_epoch_ms
from app.services.task_trail import trace_change
from app.services.task_wire import task_snapshot
from app.services.task_writes import hold_end, touch


class Outcome(StrEnum):
    COMPLETE = "COMPLETE"
    RESCHEDULE = "RESCHEDULE"
    REMOVE = "REMOVE"


@dataclass(frozen=True)
class Closing:
    """What the agent chose: the outcome, the next earliest time, the work codes."""

    outcome: Outcome
    next_work: datetime | None
    work_codes: tuple[tuple[str, str], ...]
    now: datetime


# Checks every closing passes before it is applied, each raising a ServiceError to refuse.
# Work-code groups (issue 11: codes required, single or multiple choice) append theirs here.
OUTCOME_RULES: list[Callable[[Task, Closing], None]] = []


def held_task(agent: User, record_id: str) -> Task:
    """The open task with this previewRecordID that the agent holds, else TaskNotFound."""
    task = db.session.scalar(
        select(Task)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(
            Campaign.tenant_id == agent.tenant_id,
            Task.record_id == record_id,
            Task.reserved_by_id == agent.id,
            rules.in_open_state(),
        )
        .with_for_update(of=Task)
    )
    if task is None:
        raise TaskNotFound(
            f"agent '{agent.login_user_id}' holds no task with previewRecordID '{record_id}'"
        )
    return task


def _closing(
    outcome: str, next_earliest_ms: int | None, work_codes: Sequence, now: datetime
) -> Closing:
    if outcome not in set(Outcome):
        raise InvalidInput(f"outcome '{outcome}' is not one of {', '.join(Outcome)}")
    next_work = None
    if outcome == Outcome.RESCHEDULE:
        if next_earliest_ms is None:
            raise InvalidInput("nextEarliestWorkTimeUTC is required to RESCHEDULE")
        next_work = from_epoch_ms(next_earliest_ms, "nextEarliestWorkTimeUTC")
        if next_work <= now:
            raise InvalidInput(
                f"nextEarliestWorkTimeUTC must be in the future (now {format_time(now)} UTC)"
            )
    codes = tuple((str(key), str(value)) for key, value in work_codes)
    return Closing(Outcome(outcome), next_work, codes, now)


def _apply(task: Task, closing: Closing) -> None:
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


def close_task(
    agent: User,
    record_id: str,
    outcome: str,
    *,
    next_earliest_ms: int | None = None,
    work_codes: Sequence[tuple[str, str]] = (),
    actor: Actor,
    now: datetime | None = None,
) -> Task:
    """End the agent's attempt with an outcome: one more work attempt, reservation ended."""
    now = now or utcnow()
    closing = _closing(outcome, next_earliest_ms, work_codes, now)
    task = held_task(agent, record_id)
    for rule in OUTCOME_RULES:
        rule(task, closing)
    before = task_snapshot(task)
    _apply(task, closing)
    task.work_attempts = (task.work_attempts or 0) + 1
    _store_work_codes(task, closing.work_codes)
    end_reservation(task)
    touch(task, now)
    codes = [{"key": key, "value": value} for key, value in closing.work_codes]
    trace_change(
        actor,
        "task.closed",
        task,
        before,
        task_snapshot(task),
        outcome=closing.outcome.value,
        attempt=task.work_attempts,
        workCodes=codes,
    )
    return task


def end_reservation(task: Task) -> None:
    task.reserved_by_id, task.reserved_at = None, None


def release(task: Task, *, actor: Actor, now: datetime, reason: str = "task.released") -> None:
    """Return a reserved task to the queue without counting an attempt."""
    before = task_snapshot(task)
    end_reservation(task)
    touch(task, now)
    trace_change(actor, reason, task, before, task_snapshot(task))


def release_task(agent: User, record_id: str, *, actor: Actor, now: datetime | None = None) -> Task:
    """The agent gives the task back (skip): it returns to the queue, no attempt counted."""
    task = held_task(agent, record_id)
    release(task, actor=actor, now=now or utcnow())
    return task


def release_all(agent: User, *, actor: Actor, now: datetime) -> int:
    """Release every task the agent holds (signing out, going offline)."""
    tasks = list(db.session.scalars(select(Task).where(Task.reserved_by_id == agent.id)))
    for task in tasks:
        release(task, actor=actor, now=now)
    return len(tasks)
