"""The attempt ledger: one row per delivery of a task to an agent, ended by whatever ends
the reservation, in the same transaction, through every door."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.jobs import clock
from app.models import Attempt, EndedHow
from app.services.actors import Actor
from app.services.bulk.actions import BulkRequest
from app.services.bulk.jobs import start_bulk
from app.services.delivery import closing, progress
from app.services.people.users import delete_user
from app.services.search.criteria import Condition, Criterion
from app.services.tasks.changes import (
    Locator,
    TaskChanges,
    change_status,
    delete_task,
    transfer_task,
)
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    OFFER_TIMEOUT,
    add,
    available,
    make_agent,
    offer,
    settings,
    start,
    stored,
)

S = timedelta(seconds=1)
BOSS = Actor.supervisor("boss@example.com")


def attempts() -> list[Attempt]:
    """Every attempt, oldest first, as stored."""
    db.session.expire_all()
    return list(db.session.scalars(select(Attempt).order_by(Attempt.id)))


def ended(row: Attempt) -> tuple:
    return (row.agent_login, row.ended_how)


@pytest.fixture
def held(renewals, ann):
    """Task c1 delivered to ann at the test's clock; (task, the delivery's time)."""
    add(renewals, "c1")
    now = start()
    available(ann, now)
    found = offer(ann, now)
    assert found.task.client_id == "c1"
    return found.task, now


def _close(ann, task, now):
    codes = [("Outcome", "Sale")]
    closing.close_task(ann, task.record_id, "COMPLETE", work_codes=codes, actor=SETUP, now=now)


def _release(ann, task, now):
    closing.release_task(ann, task.record_id, actor=SETUP, now=now)


def _lapse(_ann, _task, now):
    clock.expire_desk_timeouts(now + (OFFER_TIMEOUT + 1) * S)


def _take_back(_ann, task, now):
    progress.release_by_supervisor(task, actor=BOSS, now=now)


def _status(_ann, task, _now):
    locator = Locator(record_id=task.record_id)
    change_status(task.campaign, locator, "REMOVED", TaskChanges(), actor=SETUP)


def _transfer(_ann, task, _now):
    locator = Locator(record_id=task.record_id)
    transfer_task(task.campaign, locator, "Renewals", TaskChanges(), actor=SETUP)


def _delete(_ann, task, _now):
    delete_task(task.campaign, Locator(record_id=task.record_id), actor=SETUP)


def _bulk(_ann, task, _now):
    everything = [Criterion("Name", Condition.EQUALS, "C1")]
    start_bulk(task.campaign, everything, BulkRequest("status", state="COMPLETED"), actor=BOSS)


def _delete_agent(ann, _task, _now):
    delete_user(ann.tenant, "ann", actor=BOSS)


ENDINGS = {
    "closed by the agent": (_close, EndedHow.CLOSED),
    "released by the agent": (_release, EndedHow.RELEASED),
    "lapsed on the clock": (_lapse, EndedHow.LAPSED),
    "taken back by a supervisor": (_take_back, EndedHow.TAKEN_BACK),
    "agent deleted": (_delete_agent, EndedHow.TAKEN_BACK),
    "status changed": (_status, EndedHow.CHANGED_ELSEWHERE),
    "transferred": (_transfer, EndedHow.CHANGED_ELSEWHERE),
    "deleted": (_delete, EndedHow.CHANGED_ELSEWHERE),
    "bulk status change": (_bulk, EndedHow.CHANGED_ELSEWHERE),
}


@pytest.mark.parametrize(("act", "how"), ENDINGS.values(), ids=ENDINGS.keys())
def test_each_way_a_reservation_ends_ends_its_attempt(held, ann, renewals, act, how):
    task, delivered = held
    (row,) = attempts()
    assert (row.agent_id, row.agent_login, row.delivered_at) == (ann.id, "ann", delivered)
    assert (row.campaign_id, row.skill_queue_id) == (renewals.id, task.skill_queue_id)
    assert row.ended_how is None and row.call_result is None
    act(ann, task, delivered + 30 * S)
    db.session.commit()
    (row,) = attempts()
    assert row.ended_how == how
    assert row.ended_at is not None  # the real clock for the doors that take no time
    if how == EndedHow.CLOSED:
        assert (row.outcome, row.closed_at) == ("COMPLETE", delivered + 30 * S)
        assert row.work_codes == [{"key": "Outcome", "value": "Sale"}]
        assert row.preview_time == 30 * S
    else:
        assert (row.outcome, row.closed_at, row.work_codes) == (None, None, [])


def test_a_deleted_tasks_attempts_stay_for_the_reports(held, ann):
    task, now = held
    _delete(ann, task, now)
    db.session.commit()
    (row,) = attempts()
    assert (row.task_id, row.ended_how) == (None, EndedHow.CHANGED_ELSEWHERE)


def test_asking_again_for_the_held_task_opens_no_second_attempt(held, ann):
    _task, now = held
    offer(ann, now + 5 * S)
    offer(ann, now + 10 * S)
    assert [ended(row) for row in attempts()] == [("ann", None)]


def test_each_delivery_is_an_attempt_of_its_own(held, ann, acme):
    task, now = held
    _release(ann, task, now + S)
    db.session.commit()
    bob = make_agent(acme, "bob")
    available(bob, now + 2 * S)
    assert offer(bob, now + 2 * S).task.client_id == "c1"
    _close(bob, task, now + 3 * S)
    db.session.commit()
    assert [ended(row) for row in attempts()] == [
        ("ann", EndedHow.RELEASED),
        ("bob", EndedHow.CLOSED),
    ]


def test_a_lapse_nobody_swept_ends_when_another_agent_gets_the_task(held, ann, acme):
    _task, now = held
    later = now + (OFFER_TIMEOUT + 1) * S
    bob = make_agent(acme, "bob")
    available(bob, later)
    assert offer(bob, later).task.client_id == "c1"
    assert [ended(row) for row in attempts()] == [("ann", EndedHow.LAPSED), ("bob", None)]


def test_a_close_after_the_lapse_finishes_the_lapsed_attempt(held, ann):
    task, now = held
    _lapse(ann, task, now)
    db.session.commit()
    assert stored("c1").reserved_by_id is None
    _close(ann, task, now + (OFFER_TIMEOUT + 5) * S)
    db.session.commit()
    (row,) = attempts()
    assert (row.ended_how, row.outcome) == (EndedHow.CLOSED, "COMPLETE")


@pytest.mark.parametrize("act", [_status, _transfer, _delete, _bulk], ids=lambda f: f.__name__)
def test_a_task_never_delivered_gets_no_attempt(renewals, act):
    task = add(renewals, "c1")
    act(None, task, start())
    db.session.commit()
    assert db.session.scalar(select(func.count()).select_from(Attempt)) == 0
