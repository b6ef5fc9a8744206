"""The Preview API's wire format: its envelope and result statuses, on the wire format every
door shares (app/wire/: the task record, epoch milliseconds, the spec's time format)."""

from __future__ import annotations

from typing import Any

from app.services import errors
from app.services.snapshots import TaskSnapshot
from app.wire.tasks import task_data_record, task_record

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


# --- the search answer's records --------------------------------------------------------

found_record = task_data_record  # one task found by search, with its data (`TaskData`)


def stored_record(snapshot: TaskSnapshot) -> dict[str, Any]:
    """One task looked up by its previewRecordID or clientId, as search answers it."""
    return task_record(snapshot, snapshot.skill_queue, snapshot.items, snapshot.work_codes)
