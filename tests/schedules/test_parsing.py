"""Weekly hours, exception hours and holiday calendars as people write them: what is accepted,
how it is written back, and the one-line reason for what is not."""

from __future__ import annotations

import pytest

from app.services.errors import InvalidInput
from app.services.schedules.opening_hours import (
    Range,
    format_weekly,
    parse_holidays,
    parse_ranges,
    parse_weekly,
)


@pytest.mark.parametrize(
    ("specs", "written"),
    [
        (["mon-fri 08:00-18:00"], ["mon-fri 08:00-18:00", "sat-sun closed"]),
        (
            ["mon-fri 08:00-18:00", "sat 09:00-13:00", "sun closed"],
            ["mon-fri 08:00-18:00", "sat 09:00-13:00", "sun closed"],
        ),
        (["fri 22:00-02:00"], ["mon-thu closed", "fri 22:00-02:00", "sat-sun closed"]),
        (["mon 08:00-12:00,13:00-17:00"], ["mon 08:00-12:00,13:00-17:00", "tue-sun closed"]),
        # ranges of several specs for one day add up; day names in any case, in full or not
        (
            ["Monday 13:00-17:00", "MON 08:00-12:00"],
            ["mon 08:00-12:00,13:00-17:00", "tue-sun closed"],
        ),
        # a range of days may wrap round the end of the week
        (["sat-mon 10:00-14:00"], ["mon 10:00-14:00", "tue-fri closed", "sat-sun 10:00-14:00"]),
        (
            ["mon,wed,fri 09:00\u201317:00"],
            [
                "mon 09:00-17:00",
                "tue closed",
                "wed 09:00-17:00",
                "thu closed",
                "fri 09:00-17:00",
                "sat-sun closed",
            ],
        ),  # fmt: skip
        (["mon-sun 00:00-24:00"], ["mon-sun 00:00-24:00"]),
        (["  tue   08:00 - 18:00  "], ["mon closed", "tue 08:00-18:00", "wed-sun closed"]),
        (["sun 22:00-00:00"], ["mon-sat closed", "sun 22:00-00:00"]),
        ([], ["mon-sun closed"]),
    ],
)
def test_weekly_specs_are_read_and_written_back(specs, written):
    weekly = parse_weekly(specs)
    assert format_weekly(weekly) == written
    assert parse_weekly(written) == weekly  # what is written back reads the same


def test_a_range_crossing_midnight_belongs_to_the_day_it_starts():
    weekly = parse_weekly(["fri 22:00-02:00"])
    [night] = weekly[4]
    assert night == Range(22 * 60, 2 * 60)
    assert night.crosses_midnight
    assert weekly[5] == ()


@pytest.mark.parametrize(
    ("specs", "words"),
    [
        (["mon-fry 08:00-18:00"], "'fry' is not a day"),
        (["mon 08:00"], "'08:00' is not a range"),
        (["mon 25:00-26:00"], "'25:00' is not a time of day"),
        (["mon 08:00-24:30"], "'24:30' is not a time of day"),
        (["mon 24:00-02:00"], "'24:00' is not a time of day (HH:MM, 00:00 to 23:59)"),
        (["mon 8-18"], "'8' is not a time of day"),
        (["mon 08:00-18:00x"], "'18:00x' is not a time of day"),
        (["mon 09:00-09:00"], "09:00-09:00 ends when it starts"),
        (["mon 08:00-12:00,11:00-13:00"], "08:00-12:00 overlaps 11:00-13:00"),
        (["mon 22:00-02:00,23:00-23:30"], "22:00-02:00 overlaps 23:00-23:30"),
        (["mon 08:00-12:00", "mon 11:00-13:00"], "weekly hours of mon: 08:00-12:00 overlaps"),
        (["mon-fri 08:00-12:00", "mon closed"], "mon is both closed and open"),
        (["mon-fri"], "give the days, then their hours"),
        ([""], "give the days, then their hours"),
        (["mon 08:00-12:00,"], "'08:00-12:00,' has an empty range"),
    ],
)
def test_bad_weekly_specs_are_refused_by_name(specs, words):
    with pytest.raises(InvalidInput) as refused:
        parse_weekly(specs)
    assert words in refused.value.message
    assert refused.value.message.startswith("weekly hours")


@pytest.mark.parametrize(
    ("text", "ranges"),
    [
        ("09:00-13:00", (Range(540, 780),)),
        ("14:00-16:00, 09:00-12:00", (Range(540, 720), Range(840, 960))),
        ("20:00-02:00", (Range(1200, 120),)),
        ("closed", ()),
        ("CLOSED", ()),
    ],
)
def test_exception_hours_are_read(text, ranges):
    assert parse_ranges(text, "hours of 2026-12-24") == ranges


@pytest.mark.parametrize("text", ["", "   ", "9-13", "09:00-13:00-14:00"])
def test_bad_exception_hours_are_refused(text):
    with pytest.raises(InvalidInput, match="^hours of 2026-12-24: "):
        parse_ranges(text, "hours of 2026-12-24")


@pytest.mark.parametrize(
    ("text", "calendar"),
    [
        ("US", ("US", None)),
        ("us-ca", ("US", "CA")),
        (" GB-ENG ", ("GB", "ENG")),
        ("DE-BY", ("DE", "BY")),
        ("", None),
        (None, None),
    ],
)
def test_holiday_calendars_are_a_country_and_an_optional_subdivision(text, calendar):
    assert parse_holidays(text) == calendar


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("XX", "'XX' is not a country with a holiday calendar"),
        ("USA", "'USA' is not a country"),
        ("U", "'U' is not a country"),
        ("US-ZZ", "'ZZ' is not a subdivision of US"),
        ("GB-CA", "'CA' is not a subdivision of GB"),
    ],
)
def test_unknown_holiday_calendars_are_refused_by_name(text, words):
    with pytest.raises(InvalidInput) as refused:
        parse_holidays(text)
    assert words in refused.value.message
