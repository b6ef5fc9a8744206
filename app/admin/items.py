"""Turning item rows and date-time pickers of the forms into service inputs."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from wtforms import FieldList

from app.services.errors import InvalidInput
from app.services.rules import is_time_zone, to_epoch_ms
from app.services.validation import ItemInput


def item_inputs(rows: FieldList) -> list[ItemInput]:
    """The rows to keep, in their order; blank rows and rows marked for removal are dropped."""
    items = []
    for row in rows:
        key, value = (row.key.data or "").strip(), row.value.data or ""
        if row.remove.data or (not key and not value):
            continue
        items.append(ItemInput(key, value, row.display_order.data))
    return items


def next_time_ms(moment: datetime | None, zone: str) -> int | None:
    """A datetime-local value read in `zone`, as UTC epoch milliseconds."""
    if moment is None:
        return None
    if not is_time_zone(zone):
        raise InvalidInput(f"'{zone}' is not an IANA time zone name")
    return to_epoch_ms(moment.replace(tzinfo=ZoneInfo(zone)))
