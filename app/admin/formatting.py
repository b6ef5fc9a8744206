"""Template filters: times in UTC and in a task's own zone, ages, call lengths."""

from __future__ import annotations

from datetime import datetime, timedelta
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


@bp.app_template_filter("seconds")
def seconds(span: timedelta | None) -> str:
    """A call's or a preview's length to the second: "42 s", "3 min 05 s", "1 h 02 min"."""
    if span is None:
        return "—"
    total = max(0, int(span.total_seconds()))
    hours, minutes, secs = total // 3600, total // 60 % 60, total % 60
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"
