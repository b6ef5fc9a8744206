"""The clock of calling windows: a window's minutes, which IANA zones are inside it at an
instant, and when it opens next in a zone. Pure Python, no database.

Local times come from zoneinfo, so daylight saving is followed: a zone's local minute at an
instant is what its clock reads then, and a window opens either when that clock reaches the
opening time or when a daylight-saving change moves the clock into the window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from app.services.errors import InvalidInput
from app.services.values import time_zones

DAY = 24 * 60
WINDOW_PATTERN = re.compile(r"\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*")
# Days ahead in which a window's next opening is looked for: every day has one, save a day
# whose window falls wholly in a daylight-saving gap.
HORIZON_DAYS = 3


@dataclass(frozen=True)
class Window:
    """Minutes after local midnight: `opens` included, `closes` excluded."""

    opens: int
    closes: int

    @property
    def past_midnight(self) -> bool:
        return self.closes <= self.opens

    def __contains__(self, minute: int) -> bool:
        if self.past_midnight:
            return minute >= self.opens or minute < self.closes
        return self.opens <= minute < self.closes

    def __str__(self) -> str:
        return f"{clock(self.opens)}-{clock(self.closes)}"


def clock(minutes: int) -> str:
    """Minutes after midnight as `HH:MM`."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def parse_window(text: str) -> tuple[int, int]:
    """`HH:MM-HH:MM` as (opening, closing) minutes; checked by `set_calling_window`."""
    found = WINDOW_PATTERN.fullmatch(text)
    if found is None:
        raise InvalidInput(f"calling window '{text}' is not HH:MM-HH:MM (e.g. 08:00-21:00)")
    hours_open, minutes_open, hours_close, minutes_close = map(int, found.groups())
    for hours, minutes in ((hours_open, minutes_open), (hours_close, minutes_close)):
        if hours > 23 or minutes > 59:
            raise InvalidInput(f"calling window '{text}' holds a time outside 00:00 to 23:59")
    return hours_open * 60 + minutes_open, hours_close * 60 + minutes_close


@lru_cache(maxsize=1)
def _zone_infos() -> tuple[tuple[str, ZoneInfo], ...]:
    """Every zone, loaded once and kept (ZoneInfo's own cache would let most go)."""
    return tuple((name, ZoneInfo(name)) for name in time_zones())


def _whole_minute(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(second=0, microsecond=0)


@lru_cache(maxsize=4)
def _zones_by_local_minute(minute: datetime) -> dict[int, tuple[str, ...]]:
    """At this whole UTC minute, the zones by their local minute of the day (some 40)."""
    found: dict[int, list[str]] = {}
    for name, zone in _zone_infos():
        local = minute.astimezone(zone)
        found.setdefault(local.hour * 60 + local.minute, []).append(name)
    return {local: tuple(names) for local, names in found.items()}


@lru_cache(maxsize=64)
def _zones_inside(window: Window, minute: datetime) -> tuple[str, ...]:
    by_minute = _zones_by_local_minute(minute)
    return tuple(sorted(name for local, names in by_minute.items() if local in window
                        for name in names))  # fmt: skip


def zones_inside(window: Window, now: datetime) -> tuple[str, ...]:
    """The IANA zones whose local time at `now` is inside the window, sorted."""
    return _zones_inside(window, _whole_minute(now))


def _local_minute(moment: datetime, zone: ZoneInfo) -> int:
    local = moment.astimezone(zone)
    return local.hour * 60 + local.minute


def _at_minute(minutes: int) -> datetime:
    return datetime.fromtimestamp(minutes * 60, UTC)


def _offset_changes(zone: ZoneInfo, start: datetime, end: datetime) -> list[datetime]:
    """The moments in (start, end] at which the zone's UTC offset changes (to the minute)."""
    found, step = [], timedelta(hours=6)
    low = start
    while low < end:
        high = min(low + step, end)
        if low.astimezone(zone).utcoffset() != high.astimezone(zone).utcoffset():
            before = low.astimezone(zone).utcoffset()
            lo, hi = int(low.timestamp()) // 60, -(-int(high.timestamp()) // 60)
            while hi - lo > 1:
                middle = (lo + hi) // 2
                if _at_minute(middle).astimezone(zone).utcoffset() == before:
                    lo = middle
                else:
                    hi = middle
            found.append(_at_minute(hi))
        low = high
    return found


def _openings(window: Window, zone: ZoneInfo, day: date) -> list[datetime]:
    """The moments at which the local clock reads the opening time on `day` (two on the
    day a fall-back repeats it; in a spring-forward gap, the moments either side)."""
    wall = datetime.combine(day, time(window.opens // 60, window.opens % 60))
    return [wall.replace(tzinfo=zone, fold=fold).astimezone(UTC) for fold in (0, 1)]


def opening_in(window: Window, zone_name: str, after: datetime) -> datetime:
    """The first moment at or after `after` at which the zone's local time is inside.

    Outside now, the local time enters the window either as the clock reaches the opening
    time or when a daylight-saving change moves the clock into it: both kinds of moment
    are candidates, and the earliest one inside wins.
    """
    zone = ZoneInfo(zone_name)
    if _local_minute(after, zone) in window:
        return after
    start = _whole_minute(after)
    first_day = start.astimezone(zone).date()
    candidates = _offset_changes(zone, start, start + timedelta(days=HORIZON_DAYS + 1))
    for days in range(-1, HORIZON_DAYS + 1):
        candidates += _openings(window, zone, first_day + timedelta(days=days))
    inside = [c for c in candidates if c > after and _local_minute(c, zone) in window]
    return min(inside)
