"""The schedules service: create, change, delete, exception dates, holidays and the queues
that follow a schedule; each change leaves an audit record naming its actor, and a refusal
names what is wrong and changes nothing."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Schedule, ScheduleException, SkillQueue
from app.services.actors import Actor
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.schedules import hours
from app.services.schedules.opening_hours import parse_ranges
from app.services.tenants.setup import get_skill_queue
from tests.conftest import SETUP, make_tenant
from tests.schedules.hours_support import make_schedule

BOSS = Actor.supervisor("boss@example.com")
XMAS_EVE = date(2026, 12, 24)


def audits(action: str) -> list[AuditRecord]:
    db.session.expire_all()
    return list(
        db.session.scalars(select(AuditRecord).filter_by(action=action).order_by(AuditRecord.id))
    )


def count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def test_create_stores_the_settings_and_records_them(acme):
    schedule = hours.create_schedule(
        acme, "Office", "Europe/London", ["mon-fri 08:00-18:00", "sat 09:00-13:00"],
        holidays="gb-eng", actor=BOSS,
    )  # fmt: skip
    db.session.commit()
    assert (schedule.time_zone, schedule.holiday_country, schedule.holiday_subdivision) == (
        "Europe/London", "GB", "ENG",
    )  # fmt: skip
    assert len(schedule.hours) == 6
    [audit] = audits("schedule.added")
    assert (audit.actor_kind, audit.actor_id) == ("supervisor", "boss@example.com")
    assert (audit.entity_kind, audit.entity_id) == ("schedule", str(schedule.id))
    assert audit.after == {
        "name": "Office",
        "timeZone": "Europe/London",
        "weeklyHours": ["mon-fri 08:00-18:00", "sat 09:00-13:00", "sun closed"],
        "holidays": "GB-ENG",
    }


@pytest.mark.parametrize(
    ("name", "zone", "weekly", "holidays", "words"),
    [
        ("Office", "UTC", ["mon 09:00-17:00"], None, "schedule 'Office' already exists"),
        ("", "UTC", ["mon 09:00-17:00"], None, "schedule name must be 1 to 30"),
        ("A" * 31, "UTC", ["mon 09:00-17:00"], None, "schedule name must be 1 to 30"),
        ("Off/ice", "UTC", ["mon 09:00-17:00"], None, "letters, digits, hyphens or spaces"),
        ("Night", "Mars/Olympus", ["mon 09:00-17:00"], None, "time zone 'Mars/Olympus'"),
        ("Night", "UTC", ["mon 09:00-17:0"], None, "weekly hours 'mon 09:00-17:0'"),
        ("Night", "UTC", ["mon 09:00-17:00"], "XX", "holidays 'XX': 'XX' is not a country"),
        ("Night", "UTC", ["mon 09:00-17:00"], "US-XX", "'XX' is not a subdivision of US"),
    ],
)
def test_create_refuses_bad_settings_by_name(acme, name, zone, weekly, holidays, words):
    make_schedule(acme, "mon-fri 09:00-17:00")
    with pytest.raises((InvalidInput, Conflict)) as refused:
        hours.create_schedule(acme, name, zone, weekly, holidays=holidays, actor=BOSS)
    assert words in refused.value.message
    db.session.rollback()
    assert count(Schedule) == 1
    assert len(audits("schedule.added")) == 1


def test_names_are_unique_per_tenant_only(acme):
    other, _ = make_tenant("Other", "prod")
    make_schedule(acme)
    make_schedule(other)
    assert [s.name for s in hours.list_schedules(other)] == ["Office"]
    with pytest.raises(NotFound, match="schedule 'Nope'"):
        hours.get_schedule(acme, "Nope")


def test_update_replaces_the_settings_and_records_before_and_after(acme):
    schedule = make_schedule(acme, "mon-fri 08:00-18:00", zone="Europe/London")
    hours.update_schedule(
        schedule, "Front desk", "Europe/Paris", ["mon-sat 09:00-12:00"], "FR", actor=BOSS
    )
    db.session.commit()
    [audit] = audits("schedule.updated")
    assert audit.before["weeklyHours"] == ["mon-fri 08:00-18:00", "sat-sun closed"]
    assert audit.after == {
        "name": "Front desk",
        "timeZone": "Europe/Paris",
        "weeklyHours": ["mon-sat 09:00-12:00", "sun closed"],
        "holidays": "FR",
    }


def test_an_update_refused_changes_nothing(acme):
    make_schedule(acme, name="Taken")
    schedule = make_schedule(acme, "mon-fri 08:00-18:00")
    with pytest.raises(Conflict, match="'Taken' already exists"):
        hours.update_schedule(schedule, "Taken", "UTC", ["sun 10:00-11:00"], None, actor=BOSS)
    with pytest.raises(InvalidInput, match="weekly hours"):
        hours.update_schedule(schedule, "Office", "UTC", ["sun 10-11"], "US", actor=BOSS)
    db.session.rollback()
    db.session.expire_all()
    assert hours.fields(schedule)["weeklyHours"] == ["mon-fri 08:00-18:00", "sat-sun closed"]
    assert schedule.holiday_country is None
    assert audits("schedule.updated") == []


def test_an_exception_replaces_the_earlier_one_of_its_date(acme):
    schedule = make_schedule(acme, "mon-fri 08:00-18:00")
    hours.set_exception(schedule, XMAS_EVE, "09:00-12:00,13:00-15:00", actor=BOSS)
    hours.set_exception(schedule, XMAS_EVE, None, actor=BOSS)
    db.session.commit()
    rows = db.session.scalars(select(ScheduleException)).all()
    assert [(r.day, r.opens_at, r.closes_at) for r in rows] == [(XMAS_EVE, None, None)]
    first, second = audits("schedule.exception_set")
    assert (first.before, first.after) == (
        None, {"date": "2026-12-24", "hours": "09:00-12:00,13:00-15:00"},
    )  # fmt: skip
    assert second.before == first.after
    assert second.after == {"date": "2026-12-24", "hours": "closed"}


def test_removing_an_exception_restores_the_usual_hours(acme):
    schedule = make_schedule(acme, "mon-fri 08:00-18:00")
    hours.set_exception(schedule, XMAS_EVE, None, actor=BOSS)
    hours.remove_exception(schedule, XMAS_EVE, actor=BOSS)
    db.session.commit()
    assert count(ScheduleException) == 0
    [audit] = audits("schedule.exception_removed")
    assert audit.before == {"date": "2026-12-24", "hours": "closed"}
    with pytest.raises(NotFound, match="no exception on 2026-12-24"):
        hours.remove_exception(schedule, XMAS_EVE, actor=BOSS)


def test_bad_exception_hours_are_refused_and_the_old_ones_kept(acme):
    schedule = make_schedule(acme, "mon-fri 08:00-18:00")
    hours.set_exception(schedule, XMAS_EVE, "09:00-12:00", actor=SETUP)
    db.session.commit()
    for bad in ("", "9-12", "10:00-11:00,10:30-12:00"):
        with pytest.raises(InvalidInput, match="^hours of 2026-12-24: "):
            hours.set_exception(schedule, XMAS_EVE, bad, actor=BOSS)
        db.session.rollback()
    assert hours.exceptions_from(schedule, XMAS_EVE) == [
        (XMAS_EVE, parse_ranges("09:00-12:00", "x"))
    ]


def test_a_queue_follows_a_schedule_and_the_trail_says_so(acme):
    sales = get_skill_queue(acme, "Sales")
    schedule = make_schedule(acme)
    hours.set_queue_schedule(sales, schedule, actor=BOSS)
    hours.set_queue_schedule(sales, None, actor=BOSS)
    db.session.commit()
    assert sales.schedule_id is None
    first, second = audits("skill_queue.schedule_set")
    assert first.after == {"name": "Sales", "schedule": "Office"}
    assert second.before == {"name": "Sales", "schedule": "Office"}
    assert second.after == {"name": "Sales", "schedule": None}


def test_a_queue_cannot_follow_another_tenants_schedule(acme):
    other, _ = make_tenant("Other", "prod")
    theirs = make_schedule(other)
    with pytest.raises(InvalidInput, match="not a schedule of this environment"):
        hours.set_queue_schedule(get_skill_queue(acme, "Sales"), theirs, actor=BOSS)


def test_exactly_the_named_queues_follow_a_schedule(acme):
    day, night = make_schedule(acme, name="Day"), make_schedule(acme, name="Night")
    hours.set_schedule_queues(day, ["Sales"], actor=BOSS)
    assert hours.set_schedule_queues(night, ["Support", "Sales"], actor=BOSS) == [
        "Sales", "Support",
    ]  # fmt: skip
    db.session.commit()
    assert hours.queues_of(day) == []
    assert [q.name for q in hours.queues_of(night)] == ["Sales", "Support"]
    with pytest.raises(InvalidInput, match="skill queue 'Nope'"):
        hours.set_schedule_queues(night, ["Nope"], actor=BOSS)


def test_deleting_a_schedule_leaves_its_queues_always_open(acme):
    schedule = make_schedule(acme, "mon 09:00-10:00")
    hours.set_exception(schedule, XMAS_EVE, None, actor=SETUP)
    hours.set_schedule_queues(schedule, ["Sales", "Support"], actor=SETUP)
    db.session.commit()
    assert hours.delete_schedule(schedule, actor=BOSS) == ["Sales", "Support"]
    db.session.commit()
    assert count(Schedule) == count(ScheduleException) == 0
    assert db.session.scalars(select(SkillQueue.schedule_id)).all() == [None, None]
    [audit] = audits("schedule.deleted")
    assert audit.before["name"] == "Office" and audit.actor_id == "boss@example.com"
