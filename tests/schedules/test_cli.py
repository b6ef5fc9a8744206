"""`flask --app wsgi hours ...` and `skill-queue set-hours`: exact output, one-line errors with
a non-zero exit, and nothing changed by a refusal."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Schedule, ScheduleException
from app.services.actors import Actor
from app.services.schedules import hours
from app.services.tenants.setup import get_skill_queue
from tests.cli.test_commands import assert_fails
from tests.schedules.hours_support import make_schedule, stored

TENANT = ["Acme", "prod"]


def run(runner, *args: str):
    return runner.invoke(args=list(args))


def count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def test_create_with_weekly_hours_and_holidays(runner, acme):
    result = run(
        runner, "hours", "create", *TENANT, "Office", "--time-zone", "America/Los_Angeles",
        "--weekly", "mon-fri 08:00-18:00", "--weekly", "sat 09:00-13:00", "--holidays", "US-CA",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output == (
        "Created schedule 'Office' (America/Los_Angeles): mon-fri 08:00-18:00; "
        "sat 09:00-13:00; sun closed; closed on the public holidays of US-CA.\n"
    )
    schedule = stored(acme)
    assert (schedule.holiday_country, schedule.holiday_subdivision) == ("US", "CA")
    audit = db.session.scalar(select(AuditRecord).filter_by(action="schedule.added"))
    assert audit.actor_kind == "operator"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--time-zone", "Mars/Olympus", "--weekly", "mon 09:00-17:00"], ["Mars/Olympus"]),
        (["--time-zone", "UTC", "--weekly", "mon-fry 09:00-17:00"], ["'fry' is not a day"]),
        (["--time-zone", "UTC", "--weekly", "mon 9-17"], ["'9' is not a time of day"]),
        (["--time-zone", "UTC", "--weekly", "mon 09:00-17:00", "--holidays", "ZZ"], ["'ZZ'"]),
        (
            ["--time-zone", "UTC", "--weekly", "mon 09:00-17:00", "--holidays", "US-ZZ"],
            ["'ZZ' is not a subdivision of US"],
        ),  # fmt: skip
        (["--time-zone", "UTC"], ["--weekly"]),
        (["--weekly", "mon 09:00-17:00"], ["--time-zone"]),
    ],
)
def test_create_refuses_bad_input_in_one_line(runner, acme, args, words):
    assert_fails(run(runner, "hours", "create", *TENANT, "Office", *args), *words)
    assert count(Schedule) == 0


def test_create_refuses_a_duplicate_and_an_unknown_tenant(runner, acme):
    make_schedule(acme)
    weekly = ["--time-zone", "UTC", "--weekly", "mon 09:00-17:00"]
    assert_fails(run(runner, "hours", "create", *TENANT, "Office", *weekly), "already exists")
    assert_fails(run(runner, "hours", "create", "Nope", "prod", "Office", *weekly), "Nope")
    assert count(Schedule) == 1


def test_exception_closed_open_and_removed(runner, acme):
    make_schedule(acme, "mon-fri 09:00-17:00")
    result = run(runner, "hours", "exception", *TENANT, "Office", "2026-12-24", "--closed")
    assert result.output == "Schedule 'Office' on 2026-12-24: closed.\n"
    result = run(
        runner, "hours", "exception", *TENANT, "Office", "2026-12-24", "--open", "09:00-13:00"
    )
    assert result.output == "Schedule 'Office' on 2026-12-24: 09:00-13:00.\n"
    assert hours.exceptions_from(stored(acme), date(2026, 12, 24))[0][1][0].text() == "09:00-13:00"
    result = run(runner, "hours", "exception", *TENANT, "Office", "2026-12-24", "--remove")
    assert result.output == "Schedule 'Office' keeps its usual hours on 2026-12-24.\n"
    assert count(ScheduleException) == 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["2026-02-30", "--closed"], ["DATE '2026-02-30' is not a date"]),
        (["24/12/2026", "--closed"], ["is not a date (YYYY-MM-DD)"]),
        (["9999-12-31", "--closed"], ["date 9999-12-31 must be between"]),
        (["2026-12-24"], ["exactly one of --closed"]),
        (["2026-12-24", "--closed", "--open", "09:00-13:00"], ["exactly one of"]),
        (["2026-12-24", "--open", "9-13"], ["hours of 2026-12-24", "'9'"]),
        (["2026-12-25", "--remove"], ["no exception on 2026-12-25"]),
    ],
)
def test_exception_refuses_bad_input_and_keeps_what_was_there(runner, acme, args, words):
    schedule = make_schedule(acme, "mon-fri 09:00-17:00")
    hours.set_exception(schedule, date(2026, 12, 24), None, actor=Actor.operator())
    db.session.commit()
    assert_fails(run(runner, "hours", "exception", *TENANT, "Office", *args), *words)
    assert hours.exceptions_from(stored(acme), date(2026, 1, 1)) == [(date(2026, 12, 24), ())]


def test_set_hours_and_none(runner, acme):
    make_schedule(acme)
    result = run(runner, "skill-queue", "set-hours", *TENANT, "Sales", "Office")
    assert result.output == "Skill queue 'Sales' follows schedule 'Office'.\n"
    db.session.expire_all()
    assert get_skill_queue(acme, "Sales").schedule.name == "Office"
    result = run(runner, "skill-queue", "set-hours", *TENANT, "Sales", "--none")
    assert result.output == "Skill queue 'Sales' follows no schedule: always open.\n"
    db.session.expire_all()
    assert get_skill_queue(acme, "Sales").schedule_id is None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["Nope", "Office"], ["skill queue 'Nope'"]),
        (["Sales", "Nope"], ["schedule 'Nope'"]),
        (["Sales"], ["either a schedule NAME or --none"]),
        (["Sales", "Office", "--none"], ["either a schedule NAME or --none"]),
    ],
)
def test_set_hours_refuses_bad_input(runner, acme, args, words):
    make_schedule(acme)
    assert_fails(run(runner, "skill-queue", "set-hours", *TENANT, *args), *words)
    db.session.expire_all()
    assert get_skill_queue(acme, "Sales").schedule_id is None


def test_list_shows_each_schedule_and_its_queues(runner, acme):
    make_schedule(acme, "mon-fri 09:00-17:00", zone="Europe/London", holidays="GB-ENG")
    make_schedule(acme, "mon-sun 00:00-24:00", name="Always")
    run(runner, "skill-queue", "set-hours", *TENANT, "Sales", "Office")
    lines = run(runner, "hours", "list", *TENANT).output.splitlines()
    assert lines[0].startswith("'Always' (UTC): mon-sun 00:00-24:00 · open now")
    assert lines[0].endswith(" · no queue")
    assert lines[1].startswith(
        "'Office' (Europe/London): mon-fri 09:00-17:00; sat-sun closed; "
        "closed on the public holidays of GB-ENG · "
    )
    assert lines[1].endswith(" Europe/London · Sales")


def test_show_prints_the_week_with_holidays_exceptions_and_clock_changes(runner, acme):
    schedule = make_schedule(acme, "mon-fri 09:00-17:00", "fri 22:00-02:00", zone="Europe/London",
                             holidays="GB-ENG")  # fmt: skip
    hours.set_exception(schedule, date(2026, 10, 22), "10:00-12:00", actor=Actor.operator())
    db.session.commit()
    result = run(runner, "hours", "show", *TENANT, "Office", "--week", "2026-10-21")
    assert result.exit_code == 0, result.output
    week = [line for line in result.output.splitlines() if line.startswith("  ")][:7]
    assert [line.split("  (")[0].rstrip() for line in week] == [
        "  Mon 2026-10-19  09:00-17:00",
        "  Tue 2026-10-20  09:00-17:00",
        "  Wed 2026-10-21  09:00-17:00",
        "  Thu 2026-10-22  10:00-12:00",
        "  Fri 2026-10-23  09:00-17:00, 22:00-02:00 (next day)",
        "  Sat 2026-10-24  closed",
        "  Sun 2026-10-25  closed",
    ]
    assert "(exception)" in week[3]
    assert "clocks go back 60 min" in week[6]
    result = run(runner, "hours", "show", *TENANT, "Office", "--week", "2026-12-25")
    assert "  Fri 2026-12-25  closed  (holiday: Christmas Day" in result.output
    assert_fails(run(runner, "hours", "show", *TENANT, "Nope"), "schedule 'Nope'")
    assert_fails(run(runner, "hours", "show", *TENANT, "Office", "--week", "soon"), "--week")


def test_update_changes_only_what_it_names_and_delete_frees_the_queues(runner, acme):
    make_schedule(acme, "mon-fri 09:00-17:00", zone="Europe/London", holidays="GB")
    run(runner, "skill-queue", "set-hours", *TENANT, "Sales", "Office")
    result = run(runner, "hours", "update", *TENANT, "Office", "--rename", "Front desk",
                 "--no-holidays")  # fmt: skip
    assert result.output == (
        "Schedule 'Front desk' (Europe/London): mon-fri 09:00-17:00; sat-sun closed.\n"
    )
    assert_fails(
        run(runner, "hours", "update", *TENANT, "Front desk", "--holidays", "US", "--no-holidays"),
        "not both",
    )
    result = run(runner, "hours", "delete", *TENANT, "Front desk")
    assert result.output == "Deleted schedule 'Front desk'. Sales now always open.\n"
    assert count(Schedule) == 0
