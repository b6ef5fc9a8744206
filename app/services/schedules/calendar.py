"""A schedule against the clock: whether it is open at a moment, when that next changes, and
what a week of it looks like, all in the schedule's own time zone.

The rules, decided here once:
- A day's hours are its exception's if it has one (closed, or special hours), else none if it
  is a public holiday of the schedule's calendar, else its weekday's: an exception overrides
  a holiday (a holiday you open on is an exception with hours).
- A range belongs to the day it starts on. `fri 22:00-02:00` is open Saturday 01:00, and a
  holiday or exception on Saturday changes Saturday's own ranges only: it never cuts
  Friday's night short. Ranges that meet or overlap across midnight run on as one opening.
- Times are wall-clock times in the zone. Spring forward: a range that starts (or ends) in
  the skipped hour starts (or ends) at the first instant that exists, the change itself.
  Autumn back: a range is open through both occurrences of the repeated hour; it opens at
  the first occurrence of its start and closes at the second occurrence of its end (or at
  the first, when its end is the very start of the repeated hour, since none of its times
  repeats).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from app.services.schedules.opening_hours import MINUTES_A_DAY, Day, Range, Weekly, holiday_name

ONE_DAY = timedelta(days=1)
ONE_MINUTE = timedelta(minutes=1)
# How far next_change looks before saying "no change" (None).
HORIZON_DAYS = 400

Interval = tuple[datetime, datetime]  # [opens, closes) in UTC


def _wall(day: date, minutes: int) -> datetime:
    return datetime.combine(day, time()) + timedelta(minutes=minutes)


@dataclass
class Calendar:
    """A schedule's hours as values: zone, weekly ranges, exception dates (no ranges: closed)
    and the holiday calendar. Cheap to build; it remembers each day's intervals."""

    zone: ZoneInfo
    weekly: Weekly
    exceptions: Mapping[date, Day] = field(default_factory=dict)
    holiday_country: str | None = None
    holiday_subdivision: str | None = None
    _days: dict[date, list[Interval]] = field(default_factory=dict, repr=False)

    # --- days ---------------------------------------------------------------------------

    def holiday(self, day: date) -> str | None:
        return holiday_name(self.holiday_country, self.holiday_subdivision, day)

    def ranges_on(self, day: date) -> Day:
        """The ranges starting on this local date: its exception's, else none on a holiday,
        else its weekday's."""
        if day in self.exceptions:
            return self.exceptions[day]
        if self.holiday(day):
            return ()
        return self.weekly[day.weekday()]

    def local_date(self, moment: datetime) -> date:
        return moment.astimezone(self.zone).date()

    # --- wall time to UTC, across daylight-saving changes --------------------------------

    def _utc(self, wall: datetime, fold: int) -> datetime:
        return wall.replace(tzinfo=self.zone, fold=fold).astimezone(UTC)

    def _exists(self, wall: datetime) -> bool:
        return self._utc(wall, 0).astimezone(self.zone).replace(tzinfo=None) == wall

    def _repeats(self, wall: datetime) -> bool:
        return self._exists(wall) and self._utc(wall, 0) != self._utc(wall, 1)

    def _gap_end(self, wall: datetime) -> datetime:
        """For a wall time the clocks skip: the instant they jump (the first that exists)."""
        # Read with the offset before and after the jump, the wall time gives two instants
        # with the jump between them; halve the span down to the second.
        low, high = sorted(int(self._utc(wall, fold).timestamp()) for fold in (0, 1))
        while high - low > 1:
            middle = (low + high) // 2
            if datetime.fromtimestamp(middle, self.zone).replace(tzinfo=None) >= wall:
                high = middle
            else:
                low = middle
        return datetime.fromtimestamp(high, UTC)

    def opening(self, wall: datetime) -> datetime:
        """When a range starting at this wall time opens: its first occurrence."""
        return self._utc(wall, 0) if self._exists(wall) else self._gap_end(wall)

    def closing(self, wall: datetime) -> datetime:
        """When a range ending at this wall time closes: its second occurrence when the
        minute before it repeats too (open through both), else its only or first one."""
        if not self._exists(wall):
            return self._gap_end(wall)
        return self._utc(wall, 1 if self._repeats(wall - ONE_MINUTE) else 0)

    def intervals(self, day: date) -> list[Interval]:
        """The openings of the ranges starting on this local date, in UTC."""
        if day not in self._days:
            found = []
            for r in self.ranges_on(day):
                ends_on = day + ONE_DAY if r.crosses_midnight else day
                opens, closes = (
                    self.opening(_wall(day, r.opens)),
                    self.closing(_wall(ends_on, r.closes)),
                )
                if opens < closes:  # a range wholly in a skipped hour never opens
                    found.append((opens, closes))
            self._days[day] = found
        return self._days[day]

    def _around(self, moment: datetime) -> Iterator[Interval]:
        # A range starting the day before may run into this day; with clocks going back
        # at midnight, one starting the next day may be open before this day ends.
        day = self.local_date(moment)
        for offset in (-1, 0, 1):
            yield from self.intervals(day + offset * ONE_DAY)

    # --- the questions ------------------------------------------------------------------

    def is_open(self, at: datetime) -> bool:
        return any(opens <= at < closes for opens, closes in self._around(at))

    def next_change(self, after: datetime) -> datetime | None:
        """When it next closes (open at `after`) or opens (closed); None when that is not
        within HORIZON_DAYS (always open, or never open again)."""
        return self._closes_after(after) if self.is_open(after) else self._opens_after(after)

    def _closes_after(self, at: datetime) -> datetime | None:
        end, limit = at, at + HORIZON_DAYS * ONE_DAY
        while end < limit:
            longer = [closes for opens, closes in self._around(end) if opens <= end < closes]
            if not longer:
                return end
            end = max(longer)
        return None

    def _days_from(self, day: date) -> Iterator[date]:
        if any(self.weekly):
            for n in range(HORIZON_DAYS):
                yield day + n * ONE_DAY
        else:  # only exception dates with hours can open it
            yield from sorted(d for d, ranges in self.exceptions.items() if ranges and d >= day)

    def _opens_after(self, after: datetime) -> datetime | None:
        first = None
        for day in self._days_from(self.local_date(after) - ONE_DAY):
            if first is not None and day > self.local_date(first) + ONE_DAY:
                break
            for opens, _ in self.intervals(day):
                if opens > after and (first is None or opens < first):
                    first = opens
        return first

    # --- a week to look at --------------------------------------------------------------

    def clock_change(self, day: date) -> timedelta:
        """How far the clocks move during this local date (0: they do not)."""
        start, end = self.opening(_wall(day, 0)), self.opening(_wall(day + ONE_DAY, 0))
        return end.astimezone(self.zone).utcoffset() - start.astimezone(self.zone).utcoffset()

    def day_view(self, day: date) -> DayView:
        ranges = self.ranges_on(day)
        before = self.ranges_on(day - ONE_DAY)
        carried = [r.closes for r in before if r.crosses_midnight and r.closes > 0]
        blocks = [(0, closes) for closes in carried]
        blocks += [(r.opens, MINUTES_A_DAY if r.crosses_midnight else r.closes) for r in ranges]
        return DayView(
            day=day,
            ranges=ranges,
            blocks=sorted(blocks),
            holiday=self.holiday(day),
            exception=day in self.exceptions,
            clock_change=self.clock_change(day),
        )

    def week(self, monday: date) -> list[DayView]:
        return [self.day_view(monday + n * ONE_DAY) for n in range(7)]


@dataclass(frozen=True)
class DayView:
    """One date as the week view draws it: the ranges starting that day, the blocks of it
    that are open (minutes, a night carried over from the day before included), and why
    it differs from its weekday (an exception, a holiday, the clocks changing)."""

    day: date
    ranges: Day
    blocks: list[tuple[int, int]]
    holiday: str | None
    exception: bool
    clock_change: timedelta

    @property
    def closed(self) -> bool:
        return not self.ranges

    @property
    def overridden_holiday(self) -> bool:
        """A holiday whose exception gives it its own hours."""
        return self.exception and self.holiday is not None


def monday_of(day: date) -> date:
    return day - timedelta(days=day.weekday())


def ranges_text(ranges: Day) -> list[str]:
    """`08:00-18:00`, and `22:00-02:00 (next day)` for one that crosses midnight."""
    return [r.text() + (" (next day)" if r.crosses_midnight else "") for r in ranges]


__all__ = ["Calendar", "DayView", "Range", "monday_of", "ranges_text"]
