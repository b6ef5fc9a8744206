"""A task's numbers: every call is kept (a redial too), the number to dial next rotates
from the one called last and wraps round, a number found INVALID_NUMBER is skipped until
its value changes, and a listed or limited number is not callable; startCall without a
phoneKey dials the suggested number, with the key of a number that may not be called it is
refused naming the rule."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Call
from app.services.contact_rules import engine
from app.services.dialer import call_events, numbers, placing
from app.services.dnc import numbers as dnc
from app.services.errors import NotAvailable
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.calls.calls_support import S, add_phones, as_agent, deliver
from tests.conftest import SETUP
from tests.contact_limits.limits_support import add_limit

HOME, WORK, CELL = "+14155550101", "+14155550102", "+14155550103"
THREE = {"Home_Phone": HOME, "Work_Phone": WORK, "Mobile_Phone": CELL}
KEYS = ["Home_Phone", "Work_Phone", "Mobile_Phone"]


def start(agent, task, key=None, now=None):
    placed = placing.start_call(agent, task.record_id, key, actor=as_agent(agent), now=now)
    db.session.commit()
    return placed


def end(agent, task, placed, result, now):
    call_events.call_event(
        agent, task.record_id, placed.call_id, "ENDED", result, actor=as_agent(agent), now=now
    )
    db.session.commit()


def states(task, now):
    db.session.expire_all()
    return [(n.key, n.callable, n.rule) for n in numbers.task_numbers(task, now)]


def invalid_keys(task, now):
    return {key for key, _callable, rule in states(task, now) if rule == engine.INVALID_NUMBER}


def suggested(task, now):
    db.session.expire_all()
    return numbers.suggested_phone_key(task, now)


def all_calls() -> list[Call]:
    db.session.expire_all()
    return list(db.session.scalars(select(Call).order_by(Call.started_at, Call.id)))


def test_a_tasks_numbers_are_its_phone_items_in_display_order(renewals, ann):
    add_phones(renewals, "c1", **THREE)
    task, now = deliver(ann)
    assert states(task, now) == [(key, True, None) for key in KEYS]
    assert suggested(task, now) == "Home_Phone"  # never called: the first


def test_the_number_rotates_from_the_one_called_last_and_wraps_round(renewals, ann):
    add_phones(renewals, "c1", **THREE)
    task, now = deliver(ann)
    dialled = []
    for n in range(4):  # no phoneKey: each call dials the suggested number
        at = now + (n * 60 + 1) * S
        placed = start(ann, task, now=at)
        dialled.append(placed.key)
        end(ann, task, placed, "NO_ANSWER", at + 20 * S)
    assert dialled == ["Home_Phone", "Work_Phone", "Mobile_Phone", "Home_Phone"]
    assert suggested(task, now + 300 * S) == "Work_Phone"
    # Every call is kept with its own number, times and result, in one attempt.
    calls = all_calls()
    assert [(c.phone_key, c.result) for c in calls] == [(k, "NO_ANSWER") for k in dialled]
    assert [c.started_at for c in calls] == [now + (n * 60 + 1) * S for n in range(4)]
    assert len({c.attempt_id for c in calls}) == 1


def test_a_number_chosen_by_the_agent_moves_the_rotation_on(renewals, ann):
    add_phones(renewals, "c1", **THREE)
    task, now = deliver(ann)
    placed = start(ann, task, "Mobile_Phone", now=now + S)
    end(ann, task, placed, "BUSY", now + 9 * S)
    assert suggested(task, now + 10 * S) == "Home_Phone"  # after the last one: wraps round


def test_an_invalid_number_is_skipped_until_its_value_changes(renewals, ann):
    add_phones(renewals, "c1", **THREE)
    task, now = deliver(ann)
    placed = start(ann, task, now=now + S)
    end(ann, task, placed, "INVALID_NUMBER", now + 5 * S)
    assert invalid_keys(task, now + 6 * S) == {"Home_Phone"}
    assert states(task, now + 6 * S)[0] == ("Home_Phone", False, engine.INVALID_NUMBER)
    second = start(ann, task, now=now + 10 * S)
    end(ann, task, second, "INVALID_NUMBER", now + 15 * S)
    third = start(ann, task, now=now + 20 * S)
    assert (second.key, third.key) == ("Work_Phone", "Mobile_Phone")
    end(ann, task, third, "NO_ANSWER", now + 30 * S)
    # Rotation wraps past both invalid numbers to the only callable one.
    assert suggested(task, now + 31 * S) == "Mobile_Phone"
    with pytest.raises(NotAvailable, match=re.escape(f"a call to {HOME} ended INVALID_NUMBER")):
        start(ann, task, "Home_Phone", now=now + 32 * S)
    db.session.rollback()
    # An update of the task changing Home_Phone's value makes it callable again.
    items = [ItemInput("Name", "C1"), ItemInput("Home_Phone", "+14155550109"),
             ItemInput("Work_Phone", WORK), ItemInput("Mobile_Phone", CELL)]  # fmt: skip
    add_or_update_task(renewals, "c1", items, actor=SETUP)
    db.session.commit()
    assert invalid_keys(task, now + 40 * S) == {"Work_Phone"}
    assert suggested(task, now + 40 * S) == "Home_Phone"


def test_listed_and_limited_numbers_are_not_callable(renewals, ann, acme):
    add_phones(renewals, "c1", **THREE)
    task, now = deliver(ann)
    dnc.add_numbers(acme, [HOME], actor=SETUP)
    add_limit(acme, 1, "24h", "number")
    placed = start(ann, task, now=now + S)
    assert placed.key == "Work_Phone"  # Home is listed
    end(ann, task, placed, "NO_ANSWER", now + 5 * S)
    found = numbers.task_numbers(task, now + 6 * S)
    assert [(n.key, n.rule) for n in found] == [
        ("Home_Phone", engine.DO_NOT_CALL),
        ("Work_Phone", engine.CONTACT_LIMIT),
        ("Mobile_Phone", None),
    ]
    assert found[1].until == now + S + 24 * 3600 * S
    assert "the call may be placed from" in (found[1].blocked_by or "")
    assert suggested(task, now + 6 * S) == "Mobile_Phone"
    last = start(ann, task, now=now + 10 * S)
    end(ann, task, last, "NO_ANSWER", now + 15 * S)
    assert suggested(task, now + 16 * S) is None  # no number may be called now
    with pytest.raises(NotAvailable, match="contact limit"):
        start(ann, task, now=now + 17 * S)


def test_the_earlier_calls_events_are_accepted_after_a_redial(renewals, ann):
    """A call the contact centre reports late (its CONNECTED after the agent redialled on
    another number): the earlier call is still known; its end was recorded (CANCELLED) so
    the event changes nothing, and the attempt shows its last call."""
    add_phones(renewals, "c1", **THREE)
    task, now = deliver(ann)
    first = start(ann, task, now=now + S)
    second = start(ann, task, "Work_Phone", now=now + 5 * S)
    attempt = call_events.call_event(
        ann, task.record_id, first.call_id, "CONNECTED", actor=as_agent(ann), now=now + 6 * S
    )
    db.session.commit()
    assert attempt.call_id == second.call_id and attempt.connected_at is None
    end(ann, task, second, "ANSWERED", now + 60 * S)
    calls = all_calls()
    assert [(c.call_id, c.result, c.ended_at) for c in calls] == [
        (first.call_id, "CANCELLED", now + 5 * S),
        (second.call_id, "ANSWERED", now + 60 * S),
    ]
