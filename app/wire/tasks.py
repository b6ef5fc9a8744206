"""A task on the wire: the record search answers with (`previewRecordClientData`), that the
desk shows and that every task event and audit record carries, with its campaignName."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from app.services.snapshots import TaskSnapshot
from app.wire.times import format_time


def task_record(task: Any, queue_name: str, items: Iterable, work_codes: Sequence) -> dict:
    """The record of a task given as anything with its column attributes (a Task, a row, a
    snapshot), its queue's name, its data items and its work codes."""
    record: dict[str, Any] = {
        "previewRecordID": task.record_id,
        "clientId": task.client_id,
        "preferredAgent": task.preferred_agent,
        "skillQueue": queue_name,
        "createdTime": format_time(task.created_at),
        "lastUpdatedTime": format_time(task.updated_at),
        "nextEarliestWorkTime": format_time(task.next_earliest_work_at),
        "workedState": task.worked_state,
        "workAttempts": task.work_attempts,
        "lastAttemptAgent": task.last_attempt_agent,
        "lastAttemptTime": format_time(task.last_attempt_at),
    }
    if work_codes:
        record["workCodes"] = [{"key": c.key, "value": c.value} for c in work_codes]
    # The spec types displayOrder an integer: an item without one leaves the key out.
    # (Inline rather than a call per item: a bulk load makes millions of these.)
    record["previewRecordData"] = [
        {"key": item.key, "value": item.value}
        if item.display_order is None
        else {"key": item.key, "value": item.value, "displayOrder": item.display_order}
        for item in items
    ]
    return record


def task_data_record(data: Any) -> dict[str, Any]:
    """One element of previewRecordClientData, from a task with its data (`TaskData`)."""
    return task_record(data.task, data.task.skill_queue.name, data.items, data.work_codes)


def shown(snapshot: TaskSnapshot) -> dict[str, Any]:
    """A task as its events and audit records show it: the record with its campaignName
    first, then the fields the change tells beside it."""
    record = {
        "campaignName": snapshot.campaign_name,
        **task_record(snapshot, snapshot.skill_queue, snapshot.items, snapshot.work_codes),
    }
    if snapshot.extra:
        record.update(snapshot.extra)
    return record
