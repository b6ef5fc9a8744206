"""The clock of regional calling rules, in the customer's local time. Pure Python, no
database: which zones a rule holds back at an instant (by its hours, its days without
calls, its region's public holidays), and the first moment after an instant at which every
rule of a task allows a call in its zone. Daylight saving is followed (zoneinfo).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from app.services.schedules.opening_hours import holiday_name
from app.services.schedules.window_clock import Window
from app.services.values import time_zones

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
HOURS, DAY, HOLIDAY = "hours", "day", "holiday"
KINDS = (HOURS, DAY, HOLIDAY)
# Days ahead in which the next allowed moment is looked for (a week of days without calls
# and a holiday beside them fit).
HORIZON_DAYS = 15


@dataclass(frozen=True)
class Rule:
    """A calling rule as the clock reads it."""

    region: str
    window: Window | None = None
    days: frozenset[int] = frozenset()  # the weekdays (0 = Monday) the hours hold on; none: all
    no_calls_on: frozenset[int] = frozenset()
    holidays: bool = False

    def holiday(self, day: date) -> str | None:
        """The region's public holiday on this day, when the rule keeps them."""
        if not self.holidays:
            return None
        country, _, subdivision = self.region.partition("-")
        try:
            return holiday_name(country, subdivision or None, day)
        except NotImplementedError:  # a country or subdivision the calendars do not know
            return None

    def holds_back(self, kind: str, local: datetime) -> bool:
        """Whether the rule holds a call back by `kind` at this local time."""
        if kind == HOURS:
            applies = not self.days or local.weekday() in self.days
            minute = local.hour * 60 + local.minute
            return self.window is not None and applies and minute not in self.window
        if kind == DAY:
            return local.weekday() in self.no_calls_on
        return self.holiday(local.date()) is not None

    def allows(self, local: datetime) -> bool:
        return not any(self.holds_back(kind, local) for kind in KINDS)


@lru_cache(maxsize=4)
def _zones_by_local_time(minute: datetime) -> dict[datetime, tuple[str, ...]]:
    """At this whole UTC minute, the zones by the local time their clocks read (some 40)."""
    found: dict[datetime, list[str]] = {}
    for zone in time_zones():
        local = minute.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
        found.setdefault(local, []).append(zone)
    return {local: tuple(zones) for local, zones in found.items()}


@lru_cache(maxsize=1024)
def _held(rule: Rule, kind: str, minute: datetime) -> tuple[str, ...]:
    return tuple(
        sorted(
            zone
            for local, zones in _zones_by_local_time(minute).items()
            if rule.holds_back(kind, local)
            for zone in zones
        )
    )


def held_zones(rule: Rule, kind: str, now: datetime) -> tuple[str, ...]:
    """The zones in which the rule holds a call back by `kind` at `now`, sorted."""
    return _held(rule, kind, now.astimezone(UTC).replace(second=0, microsecond=0))


def _candidates(rules: list[Rule], zone: ZoneInfo, after: datetime) -> list[datetime]:
    """The moments a rule may start to allow calls: each local midnight and each opening of
    the next days (an instant a daylight-saving gap skips moves on with the clock)."""
    first = after.astimezone(zone).date()
    found = []
    for offset in range(HORIZON_DAYS):
        day = first + timedelta(days=offset)
        found.append(datetime.combine(day, time(), zone))
        for rule in rules:
            if rule.window is not None:
                opens = time(rule.window.opens // 60, rule.window.opens % 60)
                found.append(datetime.combine(day, opens, zone))
    return sorted(moment.astimezone(UTC) for moment in found)


def next_allowed(rules: list[Rule], zone_names: list[str], after: datetime) -> datetime | None:
    """The first moment after `after` at which every rule allows a call in every one of the
    zones; None when none does within HORIZON_DAYS."""
    zones = [ZoneInfo(name) for name in zone_names]
    candidates = sorted({m for zone in zones for m in _candidates(rules, zone, after)})
    for moment in candidates:
        if moment > after and all(
            rule.allows(moment.astimezone(zone)) for rule in rules for zone in zones
        ):
            return moment
    return None
