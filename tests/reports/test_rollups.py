"""The reports' rollups move with every change of an attempt, in its own transaction, by
exactly the difference: after any sequence of the ledger's changes (committed, flushed or
rolled back), and concurrent writers on PostgreSQL, they equal a recount from the
attempts; the operators' rebuild command recounts them, idempotently."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, AttemptRollup, EndedHow, Task, WorkCodeRollup
from app.models.report_rollups import MEASURES
from app.services.calls import ledger
from app.services.campaigns.catalogue import find_campaign
from app.services.dialer import call_events
from app.services.reports import campaign_summary, report_scope
from app.services.reports import rollups as rollups_module
from app.services.reports.recount import recount
from tests.conftest import SETUP
from tests.delivery.delivery_support import add, make_agent

BASE = datetime(2026, 3, 28, 22, 50, tzinfo=UTC)
CODES = (("Reason", "Sold"), ("Reason", "Busy"), ("Mood", "Happy"))
ENDINGS = (EndedHow.RELEASED, EndedHow.LAPSED, EndedHow.TAKEN_BACK, EndedHow.CHANGED_ELSEWHERE)
RESULTS = ("ANSWERED", "NO_ANSWER", "BUSY", "VOICEMAIL")


def rollups() -> tuple[dict, dict]:
    """The rollup rows whose figures are not all zero, as committed."""
    db.session.expire_all()
    counted = {
        (r.campaign_id, r.slot, r.skill_queue_id, r.agent_login, r.time_zone): tuple(
            getattr(r, name) for name in MEASURES
        )
        for r in db.session.scalars(select(AttemptRollup))
    }
    codes = {
        (r.campaign_id, r.slot, r.skill_queue_id, r.agent_login, r.code_key, r.code_value): r.chosen
        for r in db.session.scalars(select(WorkCodeRollup))
    }
    return (
        {k: v for k, v in counted.items() if any(v)},
        {k: v for k, v in codes.items() if v},
    )


def recounted() -> tuple[dict, dict]:
    recount()
    db.session.commit()
    return rollups()


def _tasks(acme, count: int) -> list[Task]:
    campaigns = [find_campaign(acme, name) for name in ("Renewals", "Winback")]
    return [add(campaigns[n % 2], f"c{n}") for n in range(count)]


def _step(rng: random.Random, tasks: list[Task], agents: list, now: datetime) -> None:
    """One change of the ledger on a random task, as the doors make it."""
    task = rng.choice(tasks)
    attempt = ledger.open_attempt_of(task)
    move = rng.choice(
        ("deliver", "deliver", "call", "connect", "end call", "close", "end", "batch")
    )
    if move == "deliver":
        agent = rng.choice(agents)
        ledger.open_attempt(task, agent, now)
        task.reserved_by_id = agent.id
    elif attempt is None:
        return
    elif move == "call":
        ledger.begin_call(attempt, task, "Phone", "+14155550100", "desk", now)
    elif move == "connect":
        call_events.record_call_event(attempt, "CONNECTED", actor=SETUP, now=now)
    elif move == "end call":
        call_events.record_call_event(attempt, "ENDED", rng.choice(RESULTS), actor=SETUP, now=now)
    elif move == "close":
        flags = [
            SimpleNamespace(contact=rng.random() < 0.5, success=rng.random() < 0.3)
            for _ in range(rng.randrange(3))
        ]
        ledger.end_attempt(
            task,
            EndedHow.CLOSED,
            now,
            outcome=rng.choice(("COMPLETE", "REMOVE", "RESCHEDULE")),
            codes=rng.sample(CODES, rng.randrange(3)),
            chosen=flags,
        )
        task.reserved_by_id = None
    elif move == "end":
        ledger.end_attempt(task, rng.choice(ENDINGS), now)
        task.reserved_by_id = None
    else:
        batch = rng.sample(tasks, 3)
        ledger.end_attempts(batch, EndedHow.CHANGED_ELSEWHERE, now)
        for each in batch:
            each.reserved_by_id = None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_sequence_of_ledger_changes_leaves_the_rollups_equal_to_a_recount(acme, seed):
    rng = random.Random(seed)
    agents = [make_agent(acme, login) for login in ("ann", "bob")]
    tasks = _tasks(acme, 8)
    now = BASE
    for _ in range(160):
        now += timedelta(seconds=rng.randrange(1, 900), milliseconds=rng.randrange(1000))
        _step(rng, tasks, agents, now)
        ending = rng.random()
        if ending < 0.6:
            db.session.commit()
        elif ending < 0.9:
            db.session.flush()
        else:
            db.session.rollback()
    db.session.commit()
    kept = rollups()
    assert sum(figures[0] for figures in kept[0].values()) == db.session.scalar(
        select(db.func.count()).select_from(Attempt)
    )
    assert kept[1], "some closings chose codes"
    endings = [MEASURES.index(name) for name in (*rollups_module.ENDINGS, "in_progress")]
    for figures in kept[0].values():  # every attempt in exactly one ending, in every slot
        assert sum(figures[i] for i in endings) == figures[MEASURES.index("attempts")]
    assert kept == recounted()


def test_the_app_keeps_the_rollups_and_a_test_can_stop_it(acme):
    """The factory installs the listeners on the app's session; taken off, an attempt's
    write moves no rollup (a recount then finds what was missed)."""
    ann = make_agent(acme, "ann")
    (task,) = _tasks(acme, 1)
    rollups_module.stop_keeping(db.session)
    try:
        ledger.open_attempt(task, ann, BASE)
        db.session.commit()
        assert rollups() == ({}, {})
    finally:
        rollups_module.keep_rollups(db.session)
    assert recounted()[0] != {}
    ledger.end_attempts([task], EndedHow.RELEASED, BASE + timedelta(minutes=1))
    db.session.commit()
    assert rollups() == recounted()  # kept again


def test_a_rolled_back_change_leaves_the_rollups_as_they_were(acme):
    ann = make_agent(acme, "ann")
    (task,) = _tasks(acme, 1)
    ledger.open_attempt(task, ann, BASE)
    task.reserved_by_id = ann.id
    db.session.commit()
    before = rollups()
    ledger.end_attempt(task, EndedHow.CLOSED, BASE + timedelta(minutes=3), outcome="COMPLETE",
                       codes=[("Reason", "Sold")])  # fmt: skip
    db.session.flush()
    db.session.rollback()
    assert rollups() == before
    ((figures,),) = [list(before[0].values())]
    assert figures[MEASURES.index("attempts")] == 1
    assert figures[MEASURES.index("closed")] == 0


def test_a_deleted_task_keeps_its_attempts_figures_and_customer_zone(acme):
    ann = make_agent(acme, "ann")
    (task,) = _tasks(acme, 1)
    task.time_zone = "Asia/Kolkata"
    ledger.open_attempt(task, ann, BASE)
    db.session.commit()
    before = rollups()
    db.session.delete(task)
    db.session.commit()
    assert rollups() == before == recounted()
    assert {key[4] for key in before[0]} == {"Asia/Kolkata"}


def test_concurrent_writers_each_add_their_change_once(app, acme, database_uri):
    """Writers in their own transactions moving the same rollup row at once: every
    difference lands once (PostgreSQL; SQLite has one writer at a time)."""
    if not database_uri.startswith("postgresql"):
        pytest.skip("SQLite takes one writer at a time")
    ann = make_agent(acme, "ann")
    tasks = _tasks(acme, 8)
    ids, agent_id = [t.id for t in tasks], ann.id
    db.session.commit()
    barrier = threading.Barrier(len(ids))
    failures: list[BaseException] = []

    def work(task_id: int) -> None:
        try:
            with app.app_context():
                task, agent = db.session.get(Task, task_id), db.session.get(type(ann), agent_id)
                barrier.wait()
                for round_ in range(5):
                    at = BASE + timedelta(seconds=round_)
                    ledger.open_attempt(task, agent, at)
                    task.reserved_by_id = agent.id
                    db.session.commit()
                    ledger.end_attempt(task, EndedHow.CLOSED, at, outcome="COMPLETE",
                                       codes=[("Reason", "Sold")])  # fmt: skip
                    task.reserved_by_id = None
                    db.session.commit()
                db.session.remove()
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            failures.append(error)

    threads = [threading.Thread(target=work, args=(task_id,)) for task_id in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    kept = rollups()
    total = {name: 0 for name in MEASURES}
    for figures in kept[0].values():
        for name, value in zip(MEASURES, figures, strict=True):
            total[name] += value
    assert (total["attempts"], total["closed"], total["completed"]) == (40, 40, 40)
    assert sum(kept[1].values()) == 40
    assert kept == recounted()


def test_the_rebuild_command_recounts_the_rollups_and_can_run_again(runner, acme):
    ann = make_agent(acme, "ann")
    tasks = _tasks(acme, 3)
    for n, task in enumerate(tasks):
        ledger.open_attempt(task, ann, BASE + timedelta(minutes=20 * n))
        ledger.end_attempt(task, EndedHow.CLOSED, BASE + timedelta(minutes=20 * n + 2),
                           outcome="COMPLETE", codes=[("Reason", "Sold")])  # fmt: skip
    db.session.commit()
    kept = rollups()
    scope = report_scope(acme, BASE - timedelta(hours=1), BASE + timedelta(hours=2))
    figures = campaign_summary(scope)
    db.session.execute(db.delete(AttemptRollup))
    db.session.execute(db.update(WorkCodeRollup).values(chosen=99))
    db.session.commit()
    for _ in range(2):
        result = runner.invoke(args=["reports", "rebuild-rollups"])
        assert result.exit_code == 0, result.output
        assert "3 rollup rows" in result.output
        assert rollups() == kept
    assert campaign_summary(scope) == figures
    assert (figures.attempts, figures.completed, figures.work_codes) == (
        3,
        3,
        [("Reason", "Sold", 3)],
    )
