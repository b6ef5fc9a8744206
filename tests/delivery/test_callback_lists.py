"""Callbacks listed, handed over and handed back (a controlled clock): the tasks kept for an
agent while their hold runs, for that agent and for the supervisors; a supervisor keeps one
for another agent of its queue; an agent deleted or taken off the queue hands theirs back
to the queue at once, not when the hold runs out; each change with its audit record and
event."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.extensions import db
from app.services.delivery import callbacks, closing
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.people import agents
from app.services.people.users import delete_user
from app.wire.times import sent_time
from tests.calls.calls_support import add_phones, as_agent, audit, events
from tests.conftest import SETUP
from tests.delivery.delivery_support import (
    available,
    make_agent,
    offer,
    settings,  # noqa: F401 - short desk timings
)

NOW = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)  # 10:00 in New York
H = timedelta(hours=1)
AT = NOW + 3 * H


def _callback(campaign, agent, client_id="c1"):
    task = add_phones(campaign, client_id)
    available(agent, NOW)
    assert offer(agent, NOW).task.id == task.id
    at = sent_time(int(AT.timestamp() * 1000), "nextEarliestWorkTimeUTC")
    closing.close_task(agent, task.record_id, "RESCHEDULE", next_earliest=at,
                       personal_callback=True, actor=as_agent(agent), now=NOW)  # fmt: skip
    db.session.commit()
    return task


def test_each_agent_sees_the_callbacks_kept_for_them(acme, renewals, ann, bob):
    task = _callback(renewals, ann)
    [mine] = callbacks.callbacks(acme, NOW, "ann")
    assert (mine.task.id, mine.agent, mine.due, mine.kept_until) == (
        task.id, "ann", AT, AT + timedelta(minutes=30))  # fmt: skip
    assert (mine.name, mine.zones) == ("C1", ("America/New_York",))
    assert callbacks.callbacks(acme, NOW, "bob") == []
    assert [c.task.id for c in callbacks.callbacks(acme, NOW)] == [task.id]
    # Once the hold has run out it is no one's callback.
    assert callbacks.callbacks(acme, AT + H) == []


def test_a_supervisor_hands_a_callback_to_another_agent_of_its_queue(acme, renewals, ann, bob):
    task = _callback(renewals, ann)
    callbacks.hand_over(acme, task.record_id, "bob", actor=SETUP, now=NOW)
    db.session.commit()
    available(ann, AT)
    assert offer(ann, AT).task is None
    available(bob, AT)
    assert offer(bob, AT).task.id == task.id
    [event] = events(callbacks.HANDED_OVER)
    assert (event["from"], event["to"], event["preferredAgent"]) == ("ann", "bob", "bob")
    [record] = audit(callbacks.HANDED_OVER)
    assert record.after["preferredAgent"] == "bob"


@pytest.mark.parametrize(
    ("to", "error", "words"),
    [
        ("nobody", InvalidInput, "agent 'nobody' does not exist"),
        ("cy", InvalidInput, "agent 'cy' does not work the task's queue Sales"),
    ],
)
def test_a_hand_over_to_someone_who_cannot_work_it_is_refused(
    acme, renewals, ann, to, error, words
):
    make_agent(acme, "cy", ("Support",))
    task = _callback(renewals, ann)
    with pytest.raises(error, match=words):
        callbacks.hand_over(acme, task.record_id, to, actor=SETUP, now=NOW)
    db.session.rollback()
    assert callbacks.callbacks(acme, NOW)[0].agent == "ann"


def test_a_callback_with_its_agent_now_or_no_longer_kept_is_not_handed_over(
    acme, renewals, ann, bob
):
    task = _callback(renewals, ann)
    available(ann, AT)
    assert offer(ann, AT).task.id == task.id
    db.session.commit()
    with pytest.raises(Conflict, match="is with an agent now"):
        callbacks.hand_over(acme, task.record_id, "bob", actor=SETUP, now=AT)
    db.session.rollback()
    with pytest.raises(NotFound, match="is not kept for an agent now"):
        callbacks.hand_over(acme, task.record_id, "bob", actor=SETUP, now=AT + H)


def test_an_agent_deleted_hands_their_callbacks_back_at_once(acme, renewals, ann, bob):
    task = _callback(renewals, ann)
    delete_user(acme, "ann", actor=SETUP)
    db.session.commit()
    available(bob, AT)
    assert offer(bob, AT).task.id == task.id  # not 30 minutes later
    [event] = events(callbacks.HANDED_BACK)
    assert event["reason"] == callbacks.DELETED


def test_an_agent_taken_off_the_queue_hands_its_callbacks_back(acme, renewals, ann, bob):
    task = _callback(renewals, ann)
    agents.set_agent_queues(ann, ["Sales", "Support"], actor=SETUP)
    assert callbacks.callbacks(acme, NOW, "ann") != []  # still in Sales: kept
    agents.set_agent_queues(ann, ["Support"], actor=SETUP)
    db.session.commit()
    assert callbacks.callbacks(acme, NOW) == []
    available(bob, AT)
    assert offer(bob, AT).task.id == task.id
    [record] = audit(callbacks.HANDED_BACK)
    assert record.after["preferredAgent"] is None
