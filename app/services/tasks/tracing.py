"""A task's change in the trail: its audit record and its event, as one call.

The services that change a task one at a time (the API's and the pages' actions, the demo
seed, later the agents' desk) all record through here; bulk intake makes the same changes
for a whole batch (`intake.trail`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from app.models import Task
from app.services.actors import Actor
from app.services.audit import trail as history
from app.services.snapshots import TaskSnapshot


def task_change(
    action: str,
    record_id: str,
    tenant_id: int,
    before: TaskSnapshot | None,
    after: TaskSnapshot | None,
    extra: Mapping[str, Any] | None = None,
) -> history.Change:
    """A task's change as the trail records it: the event's data is the task's snapshot
    (after, or as it was when deleted) with `extra` beside it, and it is ordered among the
    task's events by its record id."""
    return history.Change(
        action,
        "task",
        record_id,
        tenant_id,
        before,
        after,
        event_type=action,
        event_data=after if after is not None else before,
        subject=record_id,
        event_extra=extra or None,
    )


def trace_change(
    actor: Actor,
    action: str,
    task: Task,
    before: TaskSnapshot | None,
    after: TaskSnapshot | None,
    **extra: Any,
) -> None:
    """Add the change's audit record and its event to the session (`task_change`)."""
    trace_changes(actor, action, [task], [before], [after], **extra)


def trace_changes(
    actor: Actor,
    action: str,
    tasks: Sequence[Task],
    befores: Sequence[TaskSnapshot | None],
    afters: Sequence[TaskSnapshot | None],
    **extra: Any,
) -> None:
    """`trace_change` for many tasks changed alike (a bulk job's batch): their records and
    events go to the database in one statement each."""
    changes = [
        task_change(action, task.record_id, task.campaign.tenant_id, before, after, extra)
        for task, before, after in zip(tasks, befores, afters, strict=True)
    ]
    history.record_all(actor, changes)


def prepare_trace(actor: Actor, change: history.Change, at: datetime) -> history.Trace:
    """The change's audit record and event as rows, before the write lock (`write_trace`)."""
    return history.prepare(actor, [change], at)


def write_trace(trace: history.Trace) -> None:
    """Add a prepared trace to the session."""
    history.write(trace)
