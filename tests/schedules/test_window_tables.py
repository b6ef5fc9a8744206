"""The window's arithmetic: inside or outside at an instant in a zone, and when it opens next.

Pure Python, no database: each row is one zone's local time at one UTC instant.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.services.errors import InvalidInput
from app.services.schedules.calling_windows import window_text
from app.services.schedules.window_clock import Window, opening_in, parse_window, zones_inside

DAY_WINDOW = Window(8 * 60, 21 * 60)  # 08:00-21:00
NIGHT_WINDOW = Window(20 * 60, 2 * 60)  # 20:00-02:00, past midnight
NY, LONDON, TOKYO, KOLKATA = "America/New_York", "Europe/London", "Asia/Tokyo", "Asia/Kolkata"


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def inside(window: Window, zone: str, moment: datetime) -> bool:
    return zone in zones_inside(window, moment)


@pytest.mark.parametrize(
    ("window", "zone", "moment", "expected"),
    [
        # 08:00-21:00 in London (GMT in November): the opening minute is in, the closing out.
        (DAY_WINDOW, LONDON, utc(2026, 11, 23, 7, 59), False),
        (DAY_WINDOW, LONDON, utc(2026, 11, 23, 8, 0), True),
        (DAY_WINDOW, LONDON, utc(2026, 11, 23, 8, 0, 59), True),
        (DAY_WINDOW, LONDON, utc(2026, 11, 23, 20, 59, 59), True),
        (DAY_WINDOW, LONDON, utc(2026, 11, 23, 21, 0), False),
        # In London's summer time (BST, UTC+1) the same window is an hour earlier in UTC.
        (DAY_WINDOW, LONDON, utc(2026, 7, 1, 7, 0), True),
        (DAY_WINDOW, LONDON, utc(2026, 7, 1, 20, 0), False),
        # A half-hour zone: 08:00 in Kolkata (UTC+5:30) is 02:30 UTC.
        (DAY_WINDOW, KOLKATA, utc(2026, 11, 23, 2, 29), False),
        (DAY_WINDOW, KOLKATA, utc(2026, 11, 23, 2, 30), True),
        # 20:00-02:00 crosses midnight in Tokyo (UTC+9): in from 11:00 UTC to 17:00 UTC.
        (NIGHT_WINDOW, TOKYO, utc(2026, 11, 23, 10, 59), False),  # 19:59
        (NIGHT_WINDOW, TOKYO, utc(2026, 11, 23, 11, 0), True),  # 20:00
        (NIGHT_WINDOW, TOKYO, utc(2026, 11, 23, 14, 59), True),  # 23:59
        (NIGHT_WINDOW, TOKYO, utc(2026, 11, 23, 15, 0), True),  # 00:00
        (NIGHT_WINDOW, TOKYO, utc(2026, 11, 23, 16, 59), True),  # 01:59
        (NIGHT_WINDOW, TOKYO, utc(2026, 11, 23, 17, 0), False),  # 02:00
        (NIGHT_WINDOW, TOKYO, utc(2026, 11, 23, 3, 0), False),  # 12:00
    ],
)
def test_a_zone_is_inside_the_window_by_its_own_local_time(window, zone, moment, expected):
    assert inside(window, zone, moment) is expected


@pytest.mark.parametrize(
    ("moment", "inside_zones", "outside_zones"),
    [
        # One instant, three customers: 09:00 in New York, 14:00 in London, 23:00 in Tokyo.
        (utc(2026, 11, 23, 14, 0), {NY, LONDON}, {TOKYO}),
        # 02:00 UTC: 21:00 in New York (closed), 02:00 in London, 11:00 in Tokyo.
        (utc(2026, 11, 23, 2, 0), {TOKYO}, {NY, LONDON}),
    ],
)
def test_tasks_in_different_zones_at_one_instant(moment, inside_zones, outside_zones):
    found = set(zones_inside(DAY_WINDOW, moment))
    assert inside_zones <= found
    assert not outside_zones & found


def test_a_link_name_is_read_as_its_zone():
    """`US/Eastern` (a backward-compatible name a task may hold) follows New York."""
    assert inside(DAY_WINDOW, "US/Eastern", utc(2026, 11, 23, 13, 0))
    assert not inside(DAY_WINDOW, "US/Eastern", utc(2026, 11, 23, 12, 59))


# New York springs forward on 2026-03-08 (02:00 EST becomes 03:00 EDT) and falls back on
# 2026-11-01 (02:00 EDT becomes 01:00 EST): 08:00 local is 13:00 UTC before and after the
# winter, 12:00 UTC in summer.
@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (utc(2026, 3, 7, 12, 59), False),  # 07:59 EST, the day before
        (utc(2026, 3, 7, 13, 0), True),  # 08:00 EST
        (utc(2026, 3, 8, 11, 59), False),  # 07:59 EDT, the day of the change
        (utc(2026, 3, 8, 12, 0), True),  # 08:00 EDT
        (utc(2026, 3, 9, 0, 59), True),  # 20:59 EDT
        (utc(2026, 3, 9, 1, 0), False),  # 21:00 EDT
        (utc(2026, 11, 1, 12, 0), False),  # 07:00 EST, the day it falls back
        (utc(2026, 11, 1, 13, 0), True),  # 08:00 EST
    ],
)
def test_new_york_across_its_daylight_saving_changes(moment, expected):
    assert inside(DAY_WINDOW, NY, moment) is expected


@pytest.mark.parametrize(
    ("window", "zone", "after", "opens"),
    [
        # Inside already: now.
        (DAY_WINDOW, LONDON, utc(2026, 11, 23, 9, 30, 15), utc(2026, 11, 23, 9, 30, 15)),
        # Before the opening, and after the closing (the next day's opening).
        (DAY_WINDOW, LONDON, utc(2026, 11, 23, 6, 10), utc(2026, 11, 23, 8, 0)),
        (DAY_WINDOW, LONDON, utc(2026, 11, 23, 21, 0), utc(2026, 11, 24, 8, 0)),
        (DAY_WINDOW, TOKYO, utc(2026, 11, 23, 14, 0), utc(2026, 11, 23, 23, 0)),
        (NIGHT_WINDOW, TOKYO, utc(2026, 11, 23, 17, 0), utc(2026, 11, 24, 11, 0)),
        # The night before New York springs forward: 08:00 the next morning is EDT.
        (DAY_WINDOW, NY, utc(2026, 3, 8, 3, 0), utc(2026, 3, 8, 12, 0)),
        # A window opening inside the skipped hour (02:30) opens when the clock jumps to 03:00.
        (Window(150, 300), NY, utc(2026, 3, 8, 5, 0), utc(2026, 3, 8, 7, 0)),
        # A window wholly inside the skipped hour opens the next day.
        (Window(150, 165), NY, utc(2026, 3, 8, 5, 0), utc(2026, 3, 9, 6, 30)),
        # Falling back repeats 01:00-02:00: a 00:30-01:30 window opens again at 01:00 EST.
        (Window(30, 90), NY, utc(2026, 11, 1, 5, 45), utc(2026, 11, 1, 6, 0)),
        # ... and a 01:30-02:00 window opens twice: at 01:30 EST the second time.
        (Window(90, 120), NY, utc(2026, 11, 1, 6, 0), utc(2026, 11, 1, 6, 30)),
    ],
)
def test_when_the_window_opens_next(window, zone, after, opens):
    assert opening_in(window, zone, after) == opens


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("08:00-21:00", (480, 1260)), ("8:00 - 21:30", (480, 1290)), ("20:00-02:00", (1200, 120))],
)
def test_a_window_is_read_as_hh_mm_hh_mm(text, minutes):
    assert parse_window(text) == minutes


@pytest.mark.parametrize("text", ["08:00", "8-21", "24:00-02:00", "08:60-09:00", "a-b", ""])
def test_a_window_that_is_not_hh_mm_hh_mm_is_refused_by_name(text):
    with pytest.raises(InvalidInput, match="calling window"):
        parse_window(text)


class _Campaign:
    def __init__(self, opens, closes):
        self.window_opens_at, self.window_closes_at = opens, closes


@pytest.mark.parametrize(
    ("opens", "closes", "said"),
    [
        (None, None, "any time"),
        (480, 1260, "08:00-21:00"),
        (1200, 120, "20:00-02:00 (past midnight)"),
    ],
)
def test_window_text(opens, closes, said):
    assert window_text(_Campaign(opens, closes)) == said
