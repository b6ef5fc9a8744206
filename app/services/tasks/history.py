"""A task's history as its page shows it: newest first, paged, its data items one by one."""

from __future__ import annotations

from typing import Any

from app.models import AuditRecord
from app.services.audit.reading import (
    HistoryRow,
    PagedHistory,
    changed_fields,
    describe_actor,
    entity_history,
    page_within,
)

HISTORY_PAGE_SIZE = 20
# Every change moves lastUpdatedTime: the record's own time already says when.
_UNSHOWN = frozenset({"lastUpdatedTime", "previewRecordData", "workCodes"})


def task_history(
    tenant_id: int, record_id: str, page: int, size: int = HISTORY_PAGE_SIZE
) -> PagedHistory:
    """Page `page` (from 1, kept within the pages there are) of the task's audit records."""
    found, page, pages = page_within(
        lambda offset: entity_history(tenant_id, "task", record_id, size, offset), page, size
    )
    return PagedHistory([_row(record) for record in found.records], page, pages)


def _row(record: AuditRecord) -> HistoryRow:
    shown = record.after or record.before or {}
    return HistoryRow(
        at=record.at,
        who=describe_actor(record.actor_kind, record.actor_id, record.actor_via),
        action=record.action,
        subject=f"task {shown.get('clientId', record.entity_id)}",
        changes=changed_fields(fields_of(record.before), fields_of(record.after)),
    )


def fields_of(task: dict[str, Any] | None) -> dict[str, Any] | None:
    """A recorded task as fields to compare: each data item and work code a field of its own,
    so a change lists the items it changed rather than the whole list."""
    if task is None:
        return None
    fields = {name: value for name, value in task.items() if name not in _UNSHOWN}
    for item in task.get("previewRecordData", ()):
        order = item.get("displayOrder")
        fields[f"data {item['key']}"] = item["value"] + (f" (order {order})" if order else "")
    for code in task.get("workCodes", ()):
        fields[f"work code {code['key']}"] = code["value"]
    return fields
