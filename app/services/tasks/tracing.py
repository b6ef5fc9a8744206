"""A task's change in the trail: its audit record and its event, as one call.

The services that change a task one at a time (the API's and the pages' actions, the demo
seed, later the agents' desk) all record through here; bulk intake makes the same changes
for a whole batch (`intake.trail`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.models import Task
from app.services.actors import Actor
from app.services.audit import trail as history
from app.services.snapshots import TaskSnapshot, with_fields


def trace_change(
    actor: Actor,
    action: str,
    task: Task,
    before: TaskSnapshot | None,
    after: TaskSnapshot | None,
    **extra: Any,
) -> None:
    """Add the change's audit record and its event to the session: the event's data is the
    task's snapshot (after, or as it was when deleted) with `extra`, and it is ordered among
    the task's events by its record id."""
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
    changes = []
    for task, before, after in zip(tasks, befores, afters, strict=True):
        data = after if after is not None else before
        changes.append(
            history.Change(
                action,
                "task",
                task.record_id,
                task.campaign.tenant_id,
                before,
                after,
                event_type=action,
                event_data=with_fields(data, **extra) if extra else data,
                subject=task.record_id,
            )
        )
    history.record_all(actor, changes)
