"""The Preview API's wire format: field spellings, timestamps and result statuses."""

from __future__ import annotations

from typing import Any

from app.services import errors
from app.services.tasks.payload import task_to_wire  # noqa: F401 - the search answer's shape

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
