"""`is_open` and `next_change` against a controlled clock: ordinary weeks, ranges crossing
midnight, both 2026 daylight-saving changes in New York and London, public holidays and the
exception dates that override them."""

from __future__ import annotations

from datetime import date

import pytest

from app.extensions import db
from app.services.schedules import hours
from tests.conftest import SETUP
from tests.schedules.hours_support import local, make_schedule, unsaved_schedule, utc

NY, LONDON = "America/New_York", "Europe/London"
# (weekly specs, zone, moment, open then?, next change after it)
TABLE = [
    # an ordinary week, read in the schedule's zone
    (["mon-fri 08:00-18:00"], NY, "2026-11-23 12:59", False, "2026-11-23 13:00"),
    (["mon-fri 08:00-18:00"], NY, "2026-11-23 13:00", True, "2026-11-23 23:00"),
    (["mon-fri 08:00-18:00"], NY, "2026-11-20 23:00", False, "2026-11-23 13:00"),  # Fri 18:00
    # several ranges a day
    (["mon 08:00-12:00,13:00-17:00"], "UTC", "2026-11-23 12:30", False, "2026-11-23 13:00"),
    # a range crossing midnight: Friday 22:00 to Saturday 02:00
    (["fri 22:00-02:00"], "UTC", "2026-11-27 21:59", False, "2026-11-27 22:00"),
    (["fri 22:00-02:00"], "UTC", "2026-11-28 01:00", True, "2026-11-28 02:00"),
    (["fri 22:00-02:00"], "UTC", "2026-11-28 02:00", False, "2026-12-04 22:00"),
    # ranges that meet at midnight are one opening
    (["fri 22:00-24:00", "sat 00:00-02:00"], "UTC", "2026-11-27 23:00", True, "2026-11-28 02:00"),
    (["fri 20:00-01:00", "sat 00:30-03:00"], "UTC", "2026-11-27 21:00", True, "2026-11-28 03:00"),
    # New York, spring forward (Sun 8 March 2026, 02:00 EST -> 03:00 EDT, 07:00 UTC)
    (["mon-fri 08:00-18:00"], NY, "2026-03-07 12:00", False, "2026-03-09 12:00"),  # 08:00 EDT
    (["mon-fri 08:00-18:00"], NY, "2026-03-09 11:59", False, "2026-03-09 12:00"),
    (["sun 02:30-05:00"], NY, "2026-03-08 06:59", False, "2026-03-08 07:00"),  # skipped start
    (["sun 02:30-05:00"], NY, "2026-03-08 07:00", True, "2026-03-08 09:00"),
    (["sun 01:00-02:30"], NY, "2026-03-08 06:59", True, "2026-03-08 07:00"),  # skipped end
    (["sun 01:00-02:30"], NY, "2026-03-08 07:00", False, "2026-03-15 05:00"),
    (["sun 02:10-02:40"], NY, "2026-03-08 07:00", False, "2026-03-15 06:10"),  # wholly skipped
    # New York, fall back (Sun 1 November 2026, 02:00 EDT -> 01:00 EST, 06:00 UTC)
    (["sun 00:00-01:30"], NY, "2026-11-01 05:45", True, "2026-11-01 06:30"),  # 01:45 EDT
    (["sun 00:00-01:30"], NY, "2026-11-01 06:15", True, "2026-11-01 06:30"),  # 01:15 EST
    (["sun 00:00-01:30"], NY, "2026-11-01 06:30", False, "2026-11-08 05:00"),
    (["sun 01:30-03:00"], NY, "2026-11-01 05:29", False, "2026-11-01 05:30"),  # first 01:30
    (["sun 01:30-03:00"], NY, "2026-11-01 06:10", True, "2026-11-01 08:00"),  # 01:10 EST
    (["sat 18:00-01:00"], NY, "2026-11-01 04:59", True, "2026-11-01 05:00"),  # ends at the
    (["sat 18:00-01:00"], NY, "2026-11-01 05:30", False, "2026-11-07 23:00"),  # first 01:00
    (["mon-fri 08:00-18:00"], NY, "2026-10-30 21:59", True, "2026-10-30 22:00"),  # Fri 18:00 EDT
    (["mon-fri 08:00-18:00"], NY, "2026-10-31 12:00", False, "2026-11-02 13:00"),  # 08:00 EST
    # London, spring forward (Sun 29 March 2026, 01:00 GMT -> 02:00 BST, 01:00 UTC)
    (["sun 01:15-03:00"], LONDON, "2026-03-29 00:59", False, "2026-03-29 01:00"),
    (["sun 01:15-03:00"], LONDON, "2026-03-29 01:00", True, "2026-03-29 02:00"),
    (["mon-fri 09:00-17:00"], LONDON, "2026-03-27 09:00", True, "2026-03-27 17:00"),  # GMT
    (["mon-fri 09:00-17:00"], LONDON, "2026-03-28 09:00", False, "2026-03-30 08:00"),  # BST
    # London, fall back (Sun 25 October 2026, 02:00 BST -> 01:00 GMT, 01:00 UTC)
    (["sun 00:30-01:30"], LONDON, "2026-10-25 00:45", True, "2026-10-25 01:30"),  # 01:45 BST
    (["sun 00:30-01:30"], LONDON, "2026-10-25 01:15", True, "2026-10-25 01:30"),  # 01:15 GMT
    (["sun 00:30-01:30"], LONDON, "2026-10-25 01:30", False, "2026-11-01 00:30"),
    (["mon-fri 09:00-17:00"], LONDON, "2026-10-23 16:00", False, "2026-10-26 09:00"),  # GMT
]


@pytest.mark.parametrize(("weekly", "zone", "at", "opened", "change"), TABLE)
def test_open_and_next_change(weekly, zone, at, opened, change):
    schedule = unsaved_schedule(*weekly, zone=zone)
    assert hours.is_open(schedule, utc(at)) is opened
    assert hours.next_change(schedule, utc(at)) == utc(change)


def test_the_week_after_a_clock_change_keeps_its_local_hours():
    """08:00 in New York is 13:00 UTC before the spring change and 12:00 after it."""
    schedule = unsaved_schedule("mon-fri 08:00-18:00", zone=NY)
    assert hours.is_open(schedule, local("2026-03-06 08:00", NY))
    assert hours.is_open(schedule, local("2026-03-09 08:00", NY))
    assert local("2026-03-06 08:00", NY) == utc("2026-03-06 13:00")
    assert local("2026-03-09 08:00", NY) == utc("2026-03-09 12:00")


def test_a_range_open_through_both_occurrences_of_the_repeated_hour():
    schedule = unsaved_schedule("sun 00:00-01:30", zone=NY)
    assert hours.is_open(schedule, local("2026-11-01 01:20", NY, fold=0))
    assert hours.is_open(schedule, local("2026-11-01 01:20", NY, fold=1))
    assert not hours.is_open(schedule, local("2026-11-01 01:30", NY, fold=1))


def _set(schedule, day: str, hours_: str | None):
    hours.set_exception(schedule, date.fromisoformat(day), hours_, actor=SETUP)
    db.session.commit()


def test_a_holiday_is_a_closed_day(acme):
    schedule = make_schedule(acme, "mon-fri 09:00-17:00", zone=NY, holidays="US")
    assert not hours.is_open(schedule, local("2026-11-26 10:00", NY))  # Thanksgiving
    assert hours.next_change(schedule, local("2026-11-26 10:00", NY)) == local(
        "2026-11-27 09:00", NY
    )
    assert hours.is_open(schedule, local("2026-11-25 10:00", NY))


def test_a_subdivisions_holiday_closes_only_its_schedules(acme):
    california = make_schedule(acme, "mon-fri 09:00-17:00", zone=NY, holidays="US-CA")
    nationwide = make_schedule(acme, "mon-fri 09:00-17:00", zone=NY, holidays="US", name="US")
    cesar_chavez_day = local("2026-03-31 10:00", NY)
    assert not hours.is_open(california, cesar_chavez_day)
    assert hours.is_open(nationwide, cesar_chavez_day)


def test_an_exception_overrides_a_holiday(acme):
    schedule = make_schedule(acme, "mon-fri 09:00-17:00", zone=NY, holidays="US")
    christmas = "2026-12-25"
    assert not hours.is_open(schedule, local(f"{christmas} 10:30", NY))
    _set(schedule, christmas, "10:00-12:00")
    assert hours.is_open(schedule, local(f"{christmas} 10:30", NY))
    assert not hours.is_open(schedule, local(f"{christmas} 12:00", NY))
    assert hours.next_change(schedule, local(f"{christmas} 09:30", NY)) == local(
        f"{christmas} 10:00", NY
    )


def test_exception_dates_close_a_day_or_give_it_hours(acme):
    schedule = make_schedule(acme, "mon-fri 09:00-17:00", zone=LONDON)
    _set(schedule, "2026-12-24", None)  # a Thursday, closed all day
    _set(schedule, "2026-12-27", "10:00-12:00,14:00-15:00")  # a Sunday, open
    assert not hours.is_open(schedule, local("2026-12-24 10:00", LONDON))
    assert hours.next_change(schedule, local("2026-12-24 10:00", LONDON)) == local(
        "2026-12-25 09:00", LONDON
    )
    assert hours.is_open(schedule, local("2026-12-27 11:00", LONDON))
    assert not hours.is_open(schedule, local("2026-12-27 13:00", LONDON))
    assert hours.next_change(schedule, local("2026-12-27 13:00", LONDON)) == local(
        "2026-12-27 14:00", LONDON
    )


@pytest.mark.parametrize(
    ("closed_day", "open_saturday_1am", "open_saturday_10am"),
    [
        ("2026-11-28", True, False),  # Saturday closed: Friday's night still runs to 02:00
        ("2026-11-27", False, True),  # Friday closed: its night never starts
    ],
)
def test_an_exception_changes_the_ranges_starting_on_its_own_date(
    acme, closed_day, open_saturday_1am, open_saturday_10am
):
    schedule = make_schedule(acme, "fri 22:00-02:00", "sat 09:00-13:00")
    _set(schedule, closed_day, None)
    assert hours.is_open(schedule, utc("2026-11-28 01:00")) is open_saturday_1am
    assert hours.is_open(schedule, utc("2026-11-28 10:00")) is open_saturday_10am


def test_a_holiday_on_saturday_does_not_cut_fridays_night_short(acme):
    # Assumption Day 2026 (France) is a Saturday; the Friday before is a working day.
    paris = "Europe/Paris"
    schedule = make_schedule(acme, "fri 22:00-02:00", "sat 09:00-13:00", zone=paris, holidays="FR")
    assert hours.is_open(schedule, local("2026-08-15 01:00", paris))
    assert not hours.is_open(schedule, local("2026-08-15 10:00", paris))
    assert hours.is_open(schedule, local("2026-08-22 10:00", paris))  # an ordinary Saturday


def test_no_change_ahead_is_none(acme):
    assert hours.next_change(make_schedule(acme), utc("2026-11-23 12:00")) is None
    always = make_schedule(acme, "mon-sun 00:00-24:00", name="Always")
    assert hours.is_open(always, utc("2026-11-23 12:00"))
    assert hours.next_change(always, utc("2026-11-23 12:00")) is None


def test_a_schedule_open_only_on_an_exception_date_opens_then(acme):
    schedule = make_schedule(acme)  # closed every day
    _set(schedule, "2027-06-01", "09:00-10:00")
    assert hours.next_change(schedule, utc("2026-11-23 12:00")) == utc("2027-06-01 09:00")
