"""The date-time pickers of the forms (supervisors' pages and the desk), read in a zone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from app.services.errors import InvalidInput
from app.services.values import is_time_zone, to_epoch_ms


def next_time_ms(moment: datetime | None, zone: str) -> int | None:
    """A datetime-local value read in `zone`, as UTC epoch milliseconds."""
    if moment is None:
        return None
    if not is_time_zone(zone):
        raise InvalidInput(f"'{zone}' is not an IANA time zone name")
    return to_epoch_ms(moment.replace(tzinfo=ZoneInfo(zone)))
