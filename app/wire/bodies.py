"""The JSON the trail writes: an audit record's fields before and after a change, and the
body of an event (Standard Webhooks' recommended shape), from the snapshots and the domain
values a service hands the trail."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from app.services.snapshots import TaskSnapshot
from app.wire.tasks import shown
from app.wire.times import format_time

Fields = dict[str, Any] | TaskSnapshot


def fields(value: Fields) -> dict[str, Any]:
    """The fields of an audit record or an event's data: a snapshot as the wire shows it."""
    return shown(value) if isinstance(value, TaskSnapshot) else value


def event_body(event_type: str, data: dict[str, Any], at: datetime) -> dict[str, Any]:
    """The body a webhook receiver gets."""
    return {"type": event_type, "timestamp": at.isoformat(timespec="milliseconds"), "data": data}


def _wire(value: Any) -> Any:
    """What orjson cannot write by itself: a time in the spec's format (a snapshot was shown
    by `fields` before)."""
    if isinstance(value, datetime):
        return format_time(value)
    raise TypeError(f"{type(value).__name__} has no wire form")


def dumps(value: dict[str, Any]) -> str:
    """The JSON text of fields or of an event body (a snapshot among them shown by
    `fields` first); a datetime among them in the spec's time format."""
    return orjson.dumps(value, default=_wire, option=orjson.OPT_PASSTHROUGH_DATETIME).decode()
