"""Template filters: times in UTC and in a task's own zone, ages."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from app.admin.blueprint import bp
from app.models.types import utcnow


@bp.app_template_filter("utc")
def utc(moment: datetime | None) -> str:
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S UTC")


@bp.app_template_filter("in_zone")
def in_zone(moment: datetime | None, zone: str) -> str:
    if moment is None:
        return ""
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")


@bp.app_template_filter("local_input")
def local_input(moment: datetime | None, zone: str = "UTC") -> str:
    """The value of a datetime-local input showing `moment` in `zone`."""
    if moment is None:
        return ""
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%dT%H:%M")


@bp.app_template_filter("age")
def age(moment: datetime) -> str:
    seconds = int((utcnow() - moment).total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return "just now"
