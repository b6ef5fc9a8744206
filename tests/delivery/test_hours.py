"""Hours of operation in delivery: a closed queue's tasks are not delivered, the desk says
which queue is closed and until when (in the agent's zone), they are delivered once it opens,
and the supervisors' counts agree. The rule hands SQL no condition, or a plain IN list."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import event, false, true

from app.extensions import db
from app.models import Task
from app.services.actors import Actor
from app.services.contactability.seat import Seat
from app.services.delivery import closing, rules
from app.services.delivery.progress import campaign_progress
from app.services.people import agents
from app.services.schedules import hours, queue_hours
from app.services.tenants.setup import get_skill_queue
from app.wire.times import sent_time
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    add,
    available,
    make_agent,
    offer,
    settings,
    stored,
)
from tests.schedules.hours_support import make_schedule, utc

LONDON = "Europe/London"
SATURDAY = utc("2026-11-28 12:00")  # the London office is closed for the weekend
MONDAY_OPENING = utc("2026-11-30 08:00")  # 08:00 GMT
S = timedelta(seconds=1)


@pytest.fixture
def office(acme):
    """Sales follows a London office schedule; Support follows none."""
    schedule = make_schedule(acme, "mon-fri 08:00-18:00", zone=LONDON)
    hours.set_queue_schedule(get_skill_queue(acme, "Sales"), schedule, actor=SETUP)
    db.session.commit()
    return schedule


@pytest.fixture
def ann(acme):
    agent = make_agent(acme, "ann", ("Sales", "Support"))
    agents.set_agent_zone(agent, "America/New_York", actor=SETUP)
    db.session.commit()
    return agent


def ask(agent, now):
    available(agent, now)
    return offer(agent, now)


def test_a_closed_queues_task_waits_and_the_desk_says_until_when(renewals, office, ann):
    add(renewals, "c1")
    found = ask(ann, SATURDAY)
    assert found.task is None
    # 08:00 in London is 03:00 in New York, where Ann reads her times.
    assert found.reason == "the Sales queue is closed until 2026-11-30 03:00 America/New_York"
    assert found.next_due == MONDAY_OPENING
    assert stored("c1").reserved_by_id is None


def test_the_task_is_delivered_once_the_queue_opens(renewals, office, ann):
    add(renewals, "c1")
    assert ask(ann, MONDAY_OPENING - S).task is None
    found = ask(ann, MONDAY_OPENING)
    assert found.task is not None and found.task.client_id == "c1"


def test_an_open_queue_delivers_while_another_is_closed(renewals, winback, office, ann):
    add(renewals, "sales-task")
    add(winback, "support-task")
    found = ask(ann, SATURDAY)
    assert found.task.client_id == "support-task"
    closing.close_task(ann, found.task.record_id, "COMPLETE", actor=Actor.agent("ann"),
                        now=SATURDAY)  # fmt: skip
    db.session.commit()
    assert offer(ann, SATURDAY).reason.startswith("the Sales queue is closed until")


def test_a_queue_without_a_schedule_is_always_open(acme, renewals, ann):
    add(renewals, "c1")
    assert ask(ann, SATURDAY).task.client_id == "c1"


def test_a_closed_queue_with_nothing_ready_does_not_claim_the_reason(renewals, office, ann):
    add(
        renewals,
        "later",
        next_earliest=sent_time(
            int(utc("2026-12-01 15:00").timestamp() * 1000), "nextEarliestWorkTimeUTC"
        ),
    )
    found = ask(ann, SATURDAY)
    assert found.reason == "the next task is due at 2026-12-01 10:00 America/New_York"


def test_ready_tasks_of_an_open_queue_kept_back_by_another_rule_are_not_blamed_on_hours(
    monkeypatch, acme, renewals, winback, office, ann
):
    support = get_skill_queue(acme, "Support").id

    def no_support(_seat):  # stands for a calling window or the do-not-call list
        return Task.skill_queue_id != support

    monkeypatch.setattr(rules, "WORK_RULES", [*rules.WORK_RULES, no_support])
    monkeypatch.setattr(rules, "ELIGIBILITY", [*rules.ELIGIBILITY, no_support])
    add(renewals, "sales-task")
    add(winback, "support-task")
    found = ask(ann, SATURDAY)
    assert found.task is None
    assert not found.reason.startswith("the Sales queue")


def test_several_closed_queues_are_named_with_their_openings(acme, renewals, winback, office, ann):
    late = make_schedule(acme, "tue 10:00-11:00", zone=LONDON, name="Late")
    hours.set_queue_schedule(get_skill_queue(acme, "Support"), late, actor=SETUP)
    db.session.commit()
    add(renewals, "c1")
    add(winback, "c2")
    found = ask(ann, SATURDAY)
    assert found.reason == (
        "the Sales queue is closed until 2026-11-30 03:00 America/New_York, "
        "the Support queue until 2026-12-01 05:00 America/New_York"
    )
    assert found.next_due == MONDAY_OPENING


def test_the_supervisors_counts_agree_with_the_desk(renewals, office, ann):
    add(renewals, "c1")
    closed = campaign_progress(renewals, now=SATURDAY)
    assert (closed.deliverable, closed.kept_back) == (0, 1)
    opened = campaign_progress(renewals, now=MONDAY_OPENING)
    assert (opened.deliverable, opened.kept_back) == (1, 0)


def test_the_supervisors_progress_says_when_the_queue_opens(renewals, office):
    add(renewals, "c1")
    closed = campaign_progress(renewals, now=SATURDAY)
    # Renewals' zone is New York: 08:00 in London is 03:00 there.
    assert [(why.reason, why.until) for why in closed.kept_back_why] == [
        ("the Sales queue is closed until 2026-11-30 03:00 America/New_York", MONDAY_OPENING)
    ]
    assert campaign_progress(renewals, now=MONDAY_OPENING).kept_back_why == ()


# --- what SQL is handed -------------------------------------------------------------------


@contextmanager
def counted_queries():
    statements: list[str] = []
    engine = db.engine

    def count(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def seat_of(acme, *queues: str, now=SATURDAY) -> Seat:
    ids = tuple(get_skill_queue(acme, q).id for q in queues)
    return Seat(agent_id=1, login="ann", queue_ids=ids, now=now, tenant_id=acme.id)


def test_no_condition_and_one_query_when_no_queue_follows_a_schedule(acme):
    seat = seat_of(acme, "Sales", "Support")
    with counted_queries() as statements:
        condition = queue_hours.queue_is_open(seat)
    assert condition.compare(true())
    assert len(statements) == 1


def test_an_in_list_of_the_open_queues_from_one_query(acme, office):
    seat = seat_of(acme, "Sales", "Support")
    with counted_queries() as statements:
        condition = queue_hours.queue_is_open(seat)
    assert len(statements) == 1  # the queues with their schedules, hours and exceptions
    compiled = condition.compile(compile_kwargs={"literal_binds": True})
    assert str(compiled) == f"tasks.skill_queue_id IN ({get_skill_queue(acme, 'Support').id})"
    assert queue_hours.queue_is_open(seat_of(acme, "Sales", "Support", now=MONDAY_OPENING)).compare(
        true()
    )


def test_nothing_deliverable_when_every_queue_of_the_agent_is_closed(acme, office):
    assert queue_hours.queue_is_open(seat_of(acme, "Sales")).compare(false())
