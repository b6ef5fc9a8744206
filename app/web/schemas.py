"""The pydantic building blocks of the JSON doors' request bodies, validated strictly at the
edge, and the readable message that names a field at fault.

The same models generate the published OpenAPI document (app/api/openapi.py). Where the
service checks a rule itself (to answer its own status, e.g. INVALIDCLIENTID), `published`
states the rule in the document without changing what the model accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from app.wire.times import MAX_EPOCH_MS

EPOCH_MS = "UTC Unix epoch in milliseconds."
TIME_RULES = {"nextEarliestWorkTimeUTC": {"minimum": 0, "maximum": MAX_EPOCH_MS}}


def published(
    required: tuple[str, ...] = (), **properties: dict[str, Any]
) -> Callable[[dict[str, Any]], None]:
    """A json_schema_extra that documents what a valid request is: the fields the service
    requires, and rules it checks itself. Such a field is published without `null`."""

    def adjust(schema: dict[str, Any]) -> None:
        schema["required"] = [*schema.get("required", []), *required]
        for name in {*required, *properties}:
            field = _not_null(schema["properties"][name])
            schema["properties"][name] = {**field, **properties.get(name, {})}

    return adjust


def _not_null(field: dict[str, Any]) -> dict[str, Any]:
    """The field's schema without its `null` branch and its `null` default."""
    kept = {k: v for k, v in field.items() if k not in ("anyOf", "default")}
    branches = [b for b in field.get("anyOf", []) if b != {"type": "null"}]
    if "anyOf" not in field:
        return kept
    return {**kept, **branches[0]} if len(branches) == 1 else field


class Strict(BaseModel):
    """Types as sent: no string is taken for a number, no number for a string."""

    model_config = ConfigDict(strict=True, extra="ignore")


def describe(error: ValidationError, within: str = "") -> str:
    """A readable message naming each field at fault, e.g. `previewRecordData[2].value`."""
    parts = []
    for problem in error.errors()[:3]:
        where = within
        for step in problem["loc"]:
            where += f"[{step}]" if isinstance(step, int) else f".{step}"
        where = where.lstrip(".") or "body"
        if problem["type"] == "missing":
            parts.append(f"{where} is required")
        else:
            parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)
