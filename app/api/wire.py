"""The Preview API's wire format: field spellings, timestamps and result statuses."""

from __future__ import annotations

from typing import Any

from app.services import errors
from app.services.rules import format_time
from app.services.search import TaskData

SUCCESS = "SUCCESS"
FAILED = "FAILED"
ECHOED = ("platform", "companyCode", "environment", "region", "campaignName")

_STATUS_OF = {
    errors.TaskNotFound: "NORECORDFOUND",
    errors.InvalidClientId: "INVALIDCLIENTID",
    errors.InvalidDataKey: "INVALIDRECORDDATAKEY",
}


def status_of(error: errors.ServiceError) -> str:
    """The previewResultStatus that answers a refused action."""
    return _STATUS_OF.get(type(error), FAILED)


def envelope(body: dict[str, Any], status: str, error: str | None, **extra: Any) -> dict:
    """The common response: the echoed request fields, previewResult, then any extras."""
    response = {name: _echo(body.get(name)) for name in ECHOED}
    response["previewResult"] = {"previewResultStatus": status, "error": error}
    response.update(extra)
    return response


def _echo(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def task_to_wire(data: TaskData) -> dict[str, Any]:
    """One element of previewRecordClientData."""
    task = data.task
    record: dict[str, Any] = {
        "previewRecordID": task.record_id,
        "clientId": task.client_id,
        "preferredAgent": task.preferred_agent,
        "skillQueue": task.skill_queue.name,
        "createdTime": format_time(task.created_at),
        "lastUpdatedTime": format_time(task.updated_at),
        "nextEarliestWorkTime": format_time(task.next_earliest_work_at),
        "workedState": task.worked_state,
        "workAttempts": task.work_attempts,
        "lastAttemptAgent": task.last_attempt_agent,
        "lastAttemptTime": format_time(task.last_attempt_at),
    }
    if data.work_codes:
        record["workCodes"] = [{"key": c.key, "value": c.value} for c in data.work_codes]
    record["previewRecordData"] = [
        {"key": item.key, "value": item.value, "displayOrder": item.display_order}
        for item in data.items
    ]
    return record
