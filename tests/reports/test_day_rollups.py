"""The day rollups and the kept counts of tasks attempted: over random ledgers and ranges
crossing UTC and local day edges and a DST change (Europe/London, 29 March 2026), every
figure a report sums over its range equals a direct count from the attempts; the day rows
equal a recount; a past range's count of tasks attempted is kept, stays exact when a task
is deleted later, and is forgotten when an attempt is written into its range."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select

from app.db.transactions import transaction_mode
from app.extensions import db
from app.models import Attempt, AttemptDayRollup, AttemptedTaskCount, EndedHow, WorkCodeDayRollup
from app.models.report_rollups import MEASURES
from app.services.calls import ledger
from app.services.campaigns.catalogue import find_campaign
from app.services.reports import agent_summary, campaign_summary, report_scope
from app.services.reports.recount import recount
from app.services.tasks.batches import delete_tasks
from tests.conftest import SETUP
from tests.delivery.delivery_support import add, make_agent
from tests.reports.test_rollups import CODES, _tasks

LONDON = ZoneInfo("Europe/London")
# Saturday 28 March 2026, 00:00 in London: the clocks go forward the next night.
FIRST = datetime(2026, 3, 28, tzinfo=LONDON).astimezone(UTC)
LATER = datetime(2026, 6, 1, tzinfo=UTC)  # the clock of the reports: every range has ended


def _ledger(acme, rng: random.Random, count: int = 120) -> list:
    """Attempts at random instants over four days around the DST change, most ended."""
    agents = [make_agent(acme, login) for login in ("ann", "bob")]
    tasks = _tasks(acme, 10)
    moments = sorted(FIRST + timedelta(seconds=rng.randrange(4 * 86400)) for _ in range(count))
    for at in moments:
        task = rng.choice(tasks)
        at += timedelta(milliseconds=rng.randrange(1000))
        ledger.open_attempt(task, rng.choice(agents), at)
        ending = rng.random()
        if ending < 0.6:
            ledger.end_attempt(task, EndedHow.CLOSED, at + timedelta(seconds=rng.randrange(1, 600)),
                               outcome=rng.choice(("COMPLETE", "REMOVE", "RESCHEDULE")),
                               codes=rng.sample(CODES, rng.randrange(3)))  # fmt: skip
        elif ending < 0.9:
            ledger.end_attempt(task, EndedHow.RELEASED, at + timedelta(seconds=30))
        db.session.commit()
    return tasks


def _direct(scope) -> dict:
    """The summed figures of the scope counted from the attempts alone."""
    rows = db.session.scalars(select(Attempt).where(*scope.attempt_filters())).all()
    codes = Counter(
        (code["key"], code["value"])
        for row in rows
        if row.ended_how == EndedHow.CLOSED.value
        for code in row.work_codes or []
    )
    return {
        "attempts": len(rows),
        "completed": sum(r.outcome == "COMPLETE" for r in rows),
        "released": sum(r.ended_how == EndedHow.RELEASED.value for r in rows),
        "in_progress": sum(r.ended_how is None for r in rows),
        "work_codes": sorted((k, v, n) for (k, v), n in codes.items()),
        "tasks": len({r.task_id or r.deleted_task_id for r in rows}),
        "agents": Counter(r.agent_login for r in rows),
        "closed": Counter(r.agent_login for r in rows if r.ended_how == EndedHow.CLOSED.value),
    }


def _reported(scope) -> dict:
    summary = campaign_summary(scope, now=LATER)
    agents = agent_summary(scope, now=LATER)
    return {
        "attempts": summary.attempts,
        "completed": summary.completed,
        "released": summary.released,
        "in_progress": summary.in_progress,
        "work_codes": sorted(summary.work_codes),
        "tasks": summary.attempted_tasks,
        "agents": Counter({row.agent: row.attempts for row in agents if row.attempts}),
        "closed": Counter({row.agent: row.closed for row in agents if row.closed}),
    }


def _ranges(rng: random.Random) -> list[tuple[datetime, datetime]]:
    """London's local days (one, two, three; the 23-hour day among them) and random
    instants to the millisecond, each crossing at least one day edge."""
    days = [
        datetime.combine(date(2026, 3, 27) + timedelta(days=n), time(), LONDON).astimezone(UTC)
        for n in range(6)
    ]
    ranges = [(days[a], days[b]) for a, b in ((1, 2), (1, 3), (2, 3), (1, 4), (0, 5))]
    for _ in range(8):
        start = FIRST + timedelta(milliseconds=rng.randrange(2 * 86400 * 1000))
        ranges.append(
            (start, start + timedelta(milliseconds=rng.randrange(86400 * 1000, 2 * 86400 * 1000)))
        )
    return ranges


@pytest.mark.parametrize("seed", [1, 2])
def test_summed_figures_over_days_and_a_dst_change_equal_a_direct_count(acme, seed):
    rng = random.Random(seed)
    _ledger(acme, rng)
    assert db.session.scalar(select(func.count()).select_from(AttemptDayRollup)) > 1
    for start, end in _ranges(rng):
        for campaign in (None, "Winback"):
            scope = report_scope(acme, start, end, zone="Europe/London", campaign_name=campaign)
            assert _reported(scope) == _direct(scope), (start, end, campaign)


def _day_rows() -> tuple[dict, dict]:
    db.session.expire_all()
    days = {
        (r.campaign_id, r.day, r.skill_queue_id, r.agent_login): tuple(
            getattr(r, name) for name in MEASURES
        )
        for r in db.session.scalars(select(AttemptDayRollup))
    }
    codes = {
        (r.campaign_id, r.day, r.skill_queue_id, r.agent_login, r.code_key, r.code_value): r.chosen
        for r in db.session.scalars(select(WorkCodeDayRollup))
    }
    return {k: v for k, v in days.items() if any(v)}, {k: v for k, v in codes.items() if v}


def test_the_day_rows_the_ledger_keeps_equal_a_recount(acme):
    _ledger(acme, random.Random(5))
    kept = _day_rows()
    assert kept[0] and kept[1]
    recount()
    db.session.commit()
    assert _day_rows() == kept


def _as_a_page(scope) -> int:
    """The count of tasks attempted as a read-only request reads it (its own write aside)."""
    with transaction_mode(read_only=True):
        db.session.commit()
        counted = campaign_summary(scope, now=LATER).attempted_tasks
        db.session.commit()
    return counted


def test_a_past_range_count_of_tasks_attempted_is_kept_and_stays_exact(acme):
    rng = random.Random(7)
    tasks = _ledger(acme, rng, count=60)
    start = datetime(2026, 3, 28, tzinfo=LONDON).astimezone(UTC)
    scope = report_scope(acme, start, start + timedelta(days=2), zone="Europe/London")
    counted = _as_a_page(scope)
    assert counted == _direct(scope)["tasks"] > 1
    kept = db.session.scalars(select(AttemptedTaskCount)).all()
    assert [(k.campaign_id, k.tasks) for k in kept] == [(0, counted)]

    # A task attempted in the range deleted later: its attempts keep its id, so the kept
    # count still equals the direct one.
    attempted = {
        a.task_id for a in db.session.scalars(select(Attempt).where(*scope.attempt_filters()))
    }
    gone = next(task for task in tasks if task.id in attempted)
    delete_tasks([gone], actor=SETUP)
    db.session.commit()
    assert _direct(scope)["tasks"] == counted == _as_a_page(scope)

    # An attempt written into the range (a controlled clock) forgets the kept count.
    fresh = add(find_campaign(acme, "Renewals"), "late")
    ledger.open_attempt(fresh, make_agent(acme, "cy"), start + timedelta(hours=30))
    db.session.commit()
    assert db.session.scalars(select(AttemptedTaskCount)).all() == []
    assert _as_a_page(scope) == _direct(scope)["tasks"] == counted + 1


def test_a_range_not_yet_ended_is_counted_each_time(acme):
    _ledger(acme, random.Random(3), count=20)
    scope = report_scope(acme, FIRST, FIRST + timedelta(days=4), zone="Europe/London")
    with transaction_mode(read_only=True):
        db.session.commit()
        summary = campaign_summary(scope, now=FIRST + timedelta(days=4, minutes=1))
    assert summary.attempted_tasks == _direct(scope)["tasks"]
    assert db.session.scalars(select(AttemptedTaskCount)).all() == []
