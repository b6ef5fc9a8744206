"""Opening hours as people write them: `mon-fri 08:00-18:00`, `sat 09:00-13:00`, `sun closed`,
`fri 22:00-02:00` (crossing midnight), `mon 08:00-12:00,13:00-17:00` (several ranges), and
public holidays as `US` or `US-CA`.

Pure values, no database: the schedules service (`hours`) stores what these parse, and the
calendar (`hours_calendar`) reads them against the clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from functools import lru_cache
from typing import NamedTuple

import holidays as holiday_calendars

from app.services.errors import InvalidInput
from app.services.fields import SCHEDULE_HOLIDAYS, SCHEDULE_HOURS, Field

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DAY = {**{d: i for i, d in enumerate(DAYS)}, **{n.lower(): i for i, n in enumerate(DAY_NAMES)}}
MINUTES_A_DAY = 1440
CLOSED = "closed"
HOLIDAYS = SCHEDULE_HOLIDAYS.said_as("holidays")  # as the refusals name it
SPEC_EXAMPLE = "e.g. 'mon-fri 08:00-18:00', 'fri 22:00-02:00' or 'sun closed'"
_TIME = re.compile(r"([01]?[0-9]|2[0-4]):([0-5][0-9])")
# A dash between two times: the hyphen people type, or the dashes pages and editors put there.
_DASH = re.compile(r"\s*[-\u2013\u2014]\s*")


class Range(NamedTuple):
    """An opening range in minutes after local midnight; one whose end is not after its
    start crosses midnight and ends the next day (`22:00-02:00`)."""

    opens: int
    closes: int

    @property
    def crosses_midnight(self) -> bool:
        return self.closes <= self.opens

    def text(self) -> str:
        return f"{clock(self.opens)}-{clock(self.closes)}"


Day = tuple[Range, ...]  # a day's ranges by opening time; none: closed
Weekly = tuple[Day, ...]  # Monday to Sunday


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def parse_clock(text: str, said: str, *, end: bool = False, field: Field | None = None) -> int:
    """`HH:MM` as minutes after midnight; `24:00` only as the end of a range."""
    found = _TIME.fullmatch(text.strip())
    minutes = int(found[1]) * 60 + int(found[2]) if found else -1
    if not 0 <= minutes <= (MINUTES_A_DAY if end else MINUTES_A_DAY - 1):
        allowed = "00:00 to 24:00" if end else "00:00 to 23:59"
        raise InvalidInput(
            f"{said}: '{text.strip()}' is not a time of day (HH:MM, {allowed})", field=field
        )
    return minutes


def parse_ranges(text: str, said: str, field: Field | None = None) -> Day:
    """`08:00-12:00,13:00-17:00` (or `closed`) as ranges, checked not to overlap; a
    refusal says `said` first and is about `field`."""
    text = (text or "").strip()
    if text.lower() == CLOSED:
        return ()
    if not text:
        raise InvalidInput(f"{said}: give hours (HH:MM-HH:MM) or '{CLOSED}'", field=field)
    ranges = []
    for part in text.split(","):
        if not part.strip():
            raise InvalidInput(f"{said}: '{text}' has an empty range between commas", field=field)
        times = _DASH.split(part.strip())
        if len(times) != 2:
            raise InvalidInput(
                f"{said}: '{part.strip()}' is not a range (HH:MM-HH:MM)", field=field
            )
        opens = parse_clock(times[0], said, field=field)
        closes = parse_clock(times[1], said, end=True, field=field)
        if opens == closes:
            raise InvalidInput(
                f"{said}: {part.strip()} ends when it starts (the whole day is 00:00-24:00)",
                field=field,
            )
        ranges.append(Range(opens, closes))
    return check_overlaps(ranges, said, field)


def check_overlaps(ranges: Iterable[Range], said: str, field: Field | None = None) -> Day:
    """The ranges of one day by opening time, refusing two that overlap."""
    ordered = sorted(ranges)
    for earlier, later in zip(ordered, ordered[1:], strict=False):
        if earlier.crosses_midnight or later.opens < earlier.closes:
            raise InvalidInput(f"{said}: {earlier.text()} overlaps {later.text()}", field=field)
    return tuple(ordered)


def _day(name: str, spec: str) -> int:
    index = _DAY.get(name.strip().lower())
    if index is None:
        raise InvalidInput(
            f"weekly hours '{spec}': '{name.strip()}' is not a day ({', '.join(DAYS)})",
            field=SCHEDULE_HOURS,
        )
    return index


def parse_days(text: str, spec: str) -> list[int]:
    """`mon-fri`, `sat`, `mon,wed,fri`, `fri-mon` (wrapping round the week) as weekdays."""
    days: list[int] = []
    for part in text.split(","):
        first, dash, last = part.partition("-")
        start = _day(first, spec)
        stop = _day(last, spec) if dash else start
        days.extend((start + n) % 7 for n in range((stop - start) % 7 + 1))
    return days


def parse_weekly(specs: Iterable[str]) -> Weekly:
    """Weekly hours from specs such as `mon-fri 08:00-18:00`; a day no spec names is closed,
    ranges of several specs for one day add up, and a day cannot be both closed and open."""
    ranges: list[list[Range]] = [[] for _ in DAYS]
    closed: set[int] = set()
    for spec in specs:
        spec = " ".join((spec or "").split())
        days, _, hours = spec.partition(" ")
        field = day_hours(days) if days in DAYS else SCHEDULE_HOURS
        if not days or not hours:
            raise InvalidInput(
                f"weekly hours '{spec}': give the days, then their hours ({SPEC_EXAMPLE})",
                field=field,
            )
        said = f"weekly hours '{spec}'"
        parsed = parse_ranges(hours, said, field)
        for day in parse_days(days, spec):
            if parsed:
                ranges[day].extend(parsed)
            else:
                closed.add(day)
    for day in closed:
        if ranges[day]:
            raise InvalidInput(
                f"weekly hours of {DAYS[day]}: {DAYS[day]} is both closed and open",
                field=day_hours(DAYS[day]),
            )
    return tuple(
        check_overlaps(day, f"weekly hours of {DAYS[n]}", day_hours(DAYS[n]))
        for n, day in enumerate(ranges)
    )


def day_hours(day: str) -> Field:
    """The field of one weekday's hours (`mon` to `sun`)."""
    return SCHEDULE_HOURS.item(None, day)


def day_text(day: Day) -> str:
    return ",".join(r.text() for r in day) if day else CLOSED


def format_weekly(weekly: Weekly) -> list[str]:
    """The specs that give these hours, consecutive days with the same hours as one range
    of days: `["mon-fri 08:00-18:00", "sat 09:00-13:00", "sun closed"]`."""
    specs, start = [], 0
    for n in range(1, 8):
        if n == 7 or weekly[n] != weekly[start]:
            days = DAYS[start] if n - 1 == start else f"{DAYS[start]}-{DAYS[n - 1]}"
            specs.append(f"{days} {day_text(weekly[start])}")
            start = n
    return specs


# --- public holidays -------------------------------------------------------------------------


def parse_holidays(text: str | None) -> tuple[str, str | None] | None:
    """`US` or `US-CA` (any case) as (country, subdivision), checked against the `holidays`
    package's calendars; empty: no holidays."""
    text = (text or "").strip().upper()
    if not text:
        return None
    country, _, subdivision = text.partition("-")
    known = holiday_calendars.list_supported_countries()
    if len(country) != 2 or country not in known:
        raise InvalidInput(
            f"holidays '{text}': '{country}' is not a country with a holiday calendar "
            "(a two-letter ISO 3166 code, e.g. US or GB)",
            field=HOLIDAYS,
        )
    if subdivision and subdivision not in known[country]:
        examples = ", ".join(known[country][:4]) or "none"
        raise InvalidInput(
            f"holidays '{text}': '{subdivision}' is not a subdivision of {country} "
            f"(e.g. {examples})",
            field=HOLIDAYS,
        )
    return country, subdivision or None


def holidays_text(country: str | None, subdivision: str | None) -> str | None:
    if not country:
        return None
    return f"{country}-{subdivision}" if subdivision else country


@lru_cache(maxsize=256)
def _year(country: str, subdivision: str | None, year: int) -> dict[date, str]:
    calendar = holiday_calendars.country_holidays(
        country, subdiv=subdivision, years=year, language="en_US"
    )
    return dict(calendar.items())


def holiday_name(country: str | None, subdivision: str | None, day: date) -> str | None:
    """The public holiday on this day (observed days included), or None."""
    if not country:
        return None
    return _year(country, subdivision, day.year).get(day)
