"""The date-time pickers of the forms (supervisors' pages and the desk), read in a zone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from app.services.errors import InvalidInput
from app.services.values import is_time_zone


def next_time(moment: datetime | None, zone: str) -> datetime | None:
    """A datetime-local value read in `zone`: the moment it names, time-zone aware."""
    if moment is None:
        return None
    if not is_time_zone(zone):
        raise InvalidInput(f"'{zone}' is not an IANA time zone name")
    return moment.replace(tzinfo=ZoneInfo(zone))
