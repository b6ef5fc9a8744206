"""What a change hands its audit record and its event: domain values as they stood then.

A service takes a snapshot before and after it changes something and gives both to the
trail (`audit/trail.py`); the trail's writer serialises them in the wire format
(`app/wire/`) as it writes the record and the event, in the change's own transaction. A
snapshot holds values, never a live object: what it shows cannot change after it is taken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple


class TaskSnapshot(NamedTuple):
    """A task at one moment: its columns, its queue's and campaign's names, its data items
    (key, value, display_order) and work codes (key, value), and the fields a change tells
    beside the task (`extra`: a close's reason, a pass over)."""

    record_id: str
    client_id: str | None
    preferred_agent: str | None
    skill_queue: str
    created_at: datetime | None
    updated_at: datetime | None
    next_earliest_work_at: datetime | None
    worked_state: str
    work_attempts: int | None
    last_attempt_agent: str | None
    last_attempt_at: datetime | None
    items: Sequence[Any]
    work_codes: Sequence[Any]
    campaign_name: str
    extra: Mapping[str, Any] | None = None


def task_snapshot_of(
    task: Any, skill_queue: str, items: Sequence[Any], work_codes: Sequence[Any], campaign: str
) -> TaskSnapshot:
    """The snapshot of a task given as anything with its columns (a Task, a plain row)."""
    return TaskSnapshot(
        task.record_id,
        task.client_id,
        task.preferred_agent,
        skill_queue,
        task.created_at,
        task.updated_at,
        task.next_earliest_work_at,
        task.worked_state,
        task.work_attempts,
        task.last_attempt_agent,
        task.last_attempt_at,
        items,
        work_codes,
        campaign,
    )


def with_fields(snapshot: TaskSnapshot, **fields: Any) -> TaskSnapshot:
    """The snapshot with more fields told beside the task (later ones win)."""
    return snapshot._replace(extra={**(snapshot.extra or {}), **fields})
