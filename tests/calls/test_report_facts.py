"""The facts the reports count, kept in the transaction of the change that makes them: an
agent's state spans (time Available, Away, in work) and an attempt's contact and success
(from its call's result and the chosen work codes' flags)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.jobs import clock
from app.models import AgentStateSpan, AuditRecord
from app.services.actors import Actor
from app.services.delivery import agent_state, closing
from app.services.dialer import call_events, placing
from app.services.people.users import delete_user
from app.services.work_codes import groups as work_codes
from app.services.work_codes.groups import CodeSettings
from tests.calls.calls_support import S, add_phones, as_agent, attempts, deliver
from tests.conftest import SETUP
from tests.delivery.delivery_support import IDLE, settings, start  # noqa: F401 - short desk timings


def spans() -> list[tuple]:
    db.session.expire_all()
    rows = db.session.scalars(select(AgentStateSpan).order_by(AgentStateSpan.id))
    return [(row.agent_login, row.state, row.started_at, row.ended_at) for row in rows]


def change(agent, state, now):
    agent_state.set_agent_state(agent, state, actor=as_agent(agent), now=now)
    db.session.commit()


# --- state spans --------------------------------------------------------------------------------


def test_each_change_ends_the_open_span_and_opens_the_next(ann):
    t0 = start()
    change(ann, "AVAILABLE", t0)
    change(ann, "AWAY", t0 + 60 * S)
    change(ann, "AWAY", t0 + 90 * S)  # no change: the span goes on
    change(ann, "AVAILABLE", t0 + 120 * S)
    change(ann, "OFFLINE", t0 + 300 * S)
    assert spans() == [
        ("ann", "AVAILABLE", t0, t0 + 60 * S),
        ("ann", "AWAY", t0 + 60 * S, t0 + 120 * S),
        ("ann", "AVAILABLE", t0 + 120 * S, t0 + 300 * S),
        ("ann", "OFFLINE", t0 + 300 * S, None),
    ]
    assert agent_state.open_span(ann).state == "OFFLINE"


def test_an_agent_with_no_history_starts_one_at_the_change(ann, bob):
    """Nothing is made up for the time before the first recorded change."""
    assert agent_state.open_span(ann) is None
    t0 = start()
    change(bob, "AWAY", t0)
    assert spans() == [("bob", "AWAY", t0, None)]


def test_a_silent_desk_goes_offline_with_its_span(ann, bob):
    t0 = start()
    change(ann, "AVAILABLE", t0)
    change(bob, "AVAILABLE", t0)
    bob.last_seen_at = t0 + 100 * S
    db.session.commit()
    swept = t0 + (IDLE + 1) * S
    clock.expire_desk_timeouts(swept)
    assert spans() == [
        ("ann", "AVAILABLE", t0, swept),
        ("bob", "AVAILABLE", t0, None),  # still heard from
        ("ann", "OFFLINE", swept, None),
    ]


def test_a_deleted_agent_keeps_its_time_and_no_span_stays_open(acme, ann):
    t0 = start()
    change(ann, "AVAILABLE", t0)
    delete_user(acme, "ann", actor=Actor.supervisor("boss@example.com"))
    db.session.commit()
    [(login, state, started, ended)] = spans()
    assert (login, state, started) == ("ann", "AVAILABLE", t0) and ended is not None


def test_the_span_belongs_to_the_changes_transaction(ann):
    t0 = start()
    agent_state.set_agent_state(ann, "AWAY", actor=as_agent(ann), now=t0)
    db.session.rollback()
    assert spans() == []
    assert db.session.scalar(select(AuditRecord).filter_by(action="agent.state_changed")) is None


# --- contact and success ------------------------------------------------------------------------


@pytest.fixture
def flagged(acme):
    """Sales offers Result: Sale (contact, success), Not interested (contact), Goal only
    (success), No answer (no flag)."""
    group = work_codes.create_group(acme, "Result", actor=SETUP)
    for name, contact, success in (
        ("Sale", True, True),
        ("Not interested", True, False),
        ("Goal only", False, True),
        ("No answer", False, False),
    ):
        flags = CodeSettings(contact=contact, success=success)
        work_codes.add_code(group, name, flags, actor=SETUP)
    work_codes.set_queue_groups(acme, "Sales", ["Result"], actor=SETUP)
    db.session.commit()
    return group


def call(ann, task, now, result):
    placed = placing.start_call(ann, task.record_id, None, actor=as_agent(ann), now=now)
    call_events.call_event(
        ann, task.record_id, placed.call_id, "ENDED", result, actor=as_agent(ann), now=now + 9 * S
    )
    db.session.commit()
    return placed


def close(ann, task, now, code=None):
    codes = [("Result", code)] if code else []
    closing.close_task(
        ann, task.record_id, "COMPLETE", work_codes=codes, actor=as_agent(ann), now=now
    )
    db.session.commit()


@pytest.mark.parametrize(
    ("result", "code", "contact", "success"),
    [
        (None, None, False, False),
        ("ANSWERED", None, True, False),
        ("ANSWERED", "No answer", True, False),  # an unflagged code leaves the answer a contact
        ("NO_ANSWER", "No answer", False, False),
        ("NO_ANSWER", "Sale", True, True),
        ("BUSY", "Not interested", True, False),
        ("VOICEMAIL", "Goal only", False, True),  # the flags say what they say
        (None, "Sale", True, True),  # no call placed by the service, the code tells
        ("ANSWERED", "Sale", True, True),
    ],
)
def test_contact_and_success_at_close(renewals, ann, flagged, result, code, contact, success):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    if result:
        call(ann, task, now + S, result)
    close(ann, task, now + 30 * S, code)
    [row] = attempts()
    assert (row.ended_how, row.contact, row.success) == ("CLOSED", contact, success)


def test_an_answered_call_is_a_contact_as_it_ends(renewals, ann, flagged):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    call(ann, task, now + S, "ANSWERED")
    [row] = attempts()
    assert (row.ended_how, row.contact, row.success) == (None, True, False)


def test_a_new_call_on_the_attempt_counts_afresh(renewals, ann, flagged):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    call(ann, task, now + S, "ANSWERED")
    call(ann, task, now + 20 * S, "NO_ANSWER")
    close(ann, task, now + 40 * S, "No answer")
    [row] = attempts()
    assert (row.call_result, row.contact) == ("NO_ANSWER", False)


def test_a_call_ending_after_the_close_keeps_the_codes_word(renewals, ann, flagged):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    placed = placing.start_call(ann, task.record_id, None, actor=as_agent(ann), now=now + S)
    close(ann, task, now + 20 * S, "Sale")
    call_events.call_event(
        ann, task.record_id, placed.call_id, "ENDED", "NO_ANSWER", actor=as_agent(ann),
        now=now + 25 * S,
    )  # fmt: skip
    db.session.commit()
    [row] = attempts()
    assert (row.call_result, row.contact, row.success) == ("NO_ANSWER", True, True)


def test_a_flag_changed_later_leaves_attempts_made(renewals, ann, flagged):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    close(ann, task, now + 30 * S, "Not interested")
    code = work_codes.get_code(flagged, "Not interested")
    work_codes.change_code(code, code.name, CodeSettings(success=True), actor=SETUP)
    db.session.commit()
    [row] = attempts()
    assert (row.contact, row.success) == (True, False)


def test_released_and_lapsed_attempts_count_their_call(renewals, ann, flagged):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    call(ann, task, now + S, "ANSWERED")
    closing.release_task(ann, task.record_id, actor=as_agent(ann), now=now + 20 * S)
    db.session.commit()
    [row] = attempts()
    assert (row.ended_how, row.contact, row.success) == ("RELEASED", True, False)
