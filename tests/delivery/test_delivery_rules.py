"""Every delivery rule, with a controlled clock: each test fails when its rule breaks."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord
from app.services.actors import Actor
from app.services.delivery import agent_state, closing, offers, rules, sweeps
from app.services.errors import InvalidInput, NotAvailable, TaskNotFound
from app.services.tasks import changes as tasks
from app.services.tasks.changes import Locator, TaskChanges
from app.wire.times import sent_time
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    HOLD,
    IDLE,
    OFFER_TIMEOUT,
    add,
    available,
    client_id,
    events,
    make_agent,
    ms,
    offer,
    settings,
    start,
    stored,
)

S = timedelta(seconds=1)


def close(agent, task, outcome="COMPLETE", now=None, **more):
    closed = closing.close_task(
        agent, task.record_id, outcome, actor=Actor.agent(agent.login_user_id), now=now, **more
    )
    db.session.commit()
    return closed


# --- delivery and its reservation ------------------------------------------------------------


def test_delivery_reserves_the_task_and_records_the_attempts_start(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    found = offer(ann, now)
    task = stored("c1")
    assert found.task.id == task.id
    assert (task.reserved_by_id, task.reserved_at) == (ann.id, now)
    assert (task.last_attempt_agent, task.last_attempt_at) == ("ann", now)
    assert task.work_attempts == 0  # an attempt counts when it is closed
    assert task.version == 2
    [event] = events("task.delivered")
    assert event["previewRecordID"] == task.record_id
    assert event["lastAttemptAgent"] == "ann"
    assert event["actor"] == {"kind": "agent", "id": "ann"}
    audit = db.session.scalar(select(AuditRecord).filter_by(action="task.delivered"))
    assert audit.before["lastAttemptAgent"] is None and audit.after["lastAttemptAgent"] == "ann"


def test_an_agent_holding_a_task_gets_that_task_again(renewals, ann):
    add(renewals, "c1")
    add(renewals, "c2")
    now = start()
    available(ann, now)
    assert client_id(offer(ann, now)) == "c1"
    assert client_id(offer(ann, now + 10 * S)) == "c1"
    assert stored("c2").reserved_by_id is None
    assert len(events("task.delivered")) == 1


def test_two_agents_never_receive_the_same_task(renewals, ann, bob):
    add(renewals, "c1")
    add(renewals, "c2")
    now = start()
    available(ann, now)
    available(bob, now)
    assert client_id(offer(ann, now)) == "c1"
    assert client_id(offer(bob, now)) == "c2"
    assert {stored("c1").reserved_by_id, stored("c2").reserved_by_id} == {ann.id, bob.id}


@pytest.mark.parametrize("state", ["AWAY", "OFFLINE"])
def test_an_agent_not_available_gets_no_task(renewals, ann, state):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    agent_state.set_agent_state(ann, state, actor=Actor.agent("ann"), now=now)
    with pytest.raises(NotAvailable):
        offers.next_task(ann, actor=Actor.agent("ann"), now=now)


def test_a_silent_desk_counts_as_offline(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    with pytest.raises(NotAvailable):
        offers.next_task(ann, actor=Actor.agent("ann"), now=now + (IDLE + 1) * S)
    assert rules.effective_state(ann, now + (IDLE + 1) * S) == "OFFLINE"
    assert offers.next_task(ann, actor=Actor.agent("ann"), now=now + (IDLE - 1) * S).task


# --- which tasks: state, time, queue ----------------------------------------------------------


@pytest.mark.parametrize("state", ["COMPLETED", "REMOVED"])
def test_completed_and_removed_tasks_are_never_delivered(renewals, ann, state):
    add(renewals, "c1")
    tasks.change_status(renewals, Locator(client_id="c1"), state, TaskChanges(), actor=SETUP)
    db.session.commit()
    now = start()
    available(ann, now)
    found = offer(ann, now)
    assert found.task is None and found.reason == offers.NO_TASKS


def test_a_task_is_not_delivered_before_its_next_earliest_time(renewals, ann):
    now = start()
    due = now + 600 * S
    add(renewals, "later", next_earliest=sent_time(ms(due), "nextEarliestWorkTimeUTC"))
    available(ann, now)
    found = offer(ann, now)
    assert found.task is None
    assert found.next_due == due.replace(microsecond=due.microsecond // 1000 * 1000)
    assert found.reason.startswith("the next task is due at ")
    assert client_id(offer(ann, due + S)) == "later"


def test_an_agent_receives_only_tasks_of_their_queues(renewals, winback, acme):
    add(renewals, "sales-task")  # queue Sales
    support = make_agent(acme, "sue", queues=("Support",))
    now = start()
    available(support, now)
    found = offer(support, now)
    assert found.task is None and found.reason == "no tasks in your queues"
    add(winback, "support-task")  # queue Support
    assert client_id(offer(support, now + 5 * S)) == "support-task"


# --- the preferred agent's hold ------------------------------------------------------------


def test_while_the_hold_runs_only_the_preferred_agent_gets_the_task(renewals, ann, bob):
    add(renewals, "for-bob", preferred_agent="bob")
    now = start()
    available(ann, now)
    available(bob, now)
    found = offer(ann, now)
    assert found.task is None and found.reason == "every task is held for other agents"
    assert client_id(offer(bob, now)) == "for-bob"


def test_after_the_hold_any_agent_gets_the_task_and_the_preference_is_cleared(renewals, ann, api):
    add(renewals, "for-bob", preferred_agent="bob")
    now = start()
    available(ann, now)
    assert offer(ann, now).task is None
    later = now + (HOLD + 1) * S  # the clock has not run: delivery does not wait for it
    assert client_id(offer(ann, later)) == "for-bob"
    assert api.find("for-bob")["preferredAgent"] is None
    [cleared] = events("task.preferred_agent_cleared")
    assert cleared["actor"] == {"kind": "system", "id": "preferred-agent-hold"}


def test_the_clock_clears_an_ended_hold(renewals, api):
    add(renewals, "for-nobody", preferred_agent="not-a-user")  # never becomes available
    now = start()
    assert sweeps.expire_holds(now) == 0
    assert sweeps.expire_holds(now + (HOLD + 1) * S) == 1
    db.session.commit()
    assert api.find("for-nobody")["preferredAgent"] is None
    assert stored("for-nobody").hold_until is None
    audit = db.session.scalar(select(AuditRecord).filter_by(action="task.preferred_agent_cleared"))
    assert (audit.actor_kind, audit.actor_id) == ("system", "preferred-agent-hold")
    assert audit.before["preferredAgent"] == "not-a-user"


def test_the_hold_starts_when_the_task_becomes_available(renewals, bob, ann):
    now = start()
    due = now + 1000 * S
    add(
        renewals,
        "later-for-bob",
        preferred_agent="bob",
        next_earliest=sent_time(ms(due), "nextEarliestWorkTimeUTC"),
    )
    assert stored("later-for-bob").hold_until >= due + HOLD * S - S
    available(ann, due + S)
    assert offer(ann, due + S).reason == "every task is held for other agents"
    assert sweeps.expire_holds(due + S) == 0


@pytest.mark.parametrize("how", ["update", "change_status", "transfer"])
def test_giving_a_task_a_preferred_agent_starts_its_hold(renewals, how):
    add(renewals, "c1")
    assert stored("c1").hold_until is None
    before = start()
    locator, changes = Locator(client_id="c1"), TaskChanges(preferred_agent="bob")
    if how == "update":
        tasks.add_or_update_task(renewals, "c1", [], preferred_agent="bob", actor=SETUP)
    elif how == "change_status":
        tasks.change_status(renewals, locator, "NOTWORKED", changes, actor=SETUP)
    else:
        tasks.transfer_task(renewals, locator, "Winback", changes, actor=SETUP)
    db.session.commit()
    task = stored("c1")
    assert task.preferred_agent == "bob"
    assert before + (HOLD - 5) * S <= task.hold_until <= before + (HOLD + 5) * S


# --- order and fairness ----------------------------------------------------------------------


def test_order_held_then_due_reschedules_oldest_time_first_then_new_oldest_first(renewals, ann):
    now = start()
    add(renewals, "new-1")
    add(renewals, "new-2")
    for name, seconds in (("resched-late", 20), ("resched-early", 10)):
        add(renewals, name)
        tasks.change_status(
            renewals,
            Locator(client_id=name),
            "WORKED",
            TaskChanges(next_earliest=sent_time(ms(now + seconds * S), "nextEarliestWorkTimeUTC")),
            actor=SETUP,
        )
    # WORKED without a next time: no door makes one (a WORKED state needs a time), but a
    # stored one is still delivered, after the timed reschedules.
    add(renewals, "worked-no-time").worked_state = "WORKED"
    add(renewals, "held-for-ann", preferred_agent="ann")
    db.session.commit()
    when = now + 30 * S
    available(ann, when)
    order = []
    for step in range(6):
        found = offer(ann, when + step * S)
        order.append(client_id(found))
        close(ann, found.task, now=when + step * S)
    assert order == [
        "held-for-ann",
        "resched-early",
        "resched-late",
        "worked-no-time",
        "new-1",
        "new-2",
    ]


def test_campaigns_sharing_an_agent_take_turns(renewals, winback, acme):
    add(renewals, "r1")
    add(renewals, "r2")
    add(renewals, "r3")
    add(winback, "w1")
    add(winback, "w2")
    both = make_agent(acme, "bo", queues=("Sales", "Support"))
    now = start()
    available(both, now)
    order = []
    for step in range(5):
        found = offer(both, now + step * S)
        order.append(client_id(found))
        close(both, found.task, now=now + step * S)
    assert order == ["r1", "w1", "r2", "w2", "r3"]


def test_tasks_held_for_an_agent_take_turns_across_campaigns_too(renewals, winback, acme):
    for campaign, name in ((renewals, "r1"), (renewals, "r2"), (winback, "w1"), (winback, "w2")):
        add(campaign, name, preferred_agent="bo")
    add(renewals, "r-new")
    both = make_agent(acme, "bo", queues=("Sales", "Support"))
    now = start()
    available(both, now)
    order = []
    for step in range(5):
        found = offer(both, now + step * S)
        order.append(client_id(found))
        close(both, found.task, now=now + step * S)
    assert order == ["r1", "w1", "r2", "w2", "r-new"]


# --- reservations that end --------------------------------------------------------------------


def test_an_idle_reservation_lapses_and_another_agent_gets_the_task(renewals, ann, bob):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    later = now + (OFFER_TIMEOUT + 1) * S
    available(bob, later)
    assert client_id(offer(bob, later)) == "c1"  # without waiting for the clock
    with pytest.raises(TaskNotFound):
        close(ann, stored("c1"), now=later)


def test_the_clock_releases_idle_reservations_and_silent_agents(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    assert sweeps.expire_reservations(now + 10 * S) == 0
    assert sweeps.expire_reservations(now + (IDLE + 1) * S) == 1  # ann went silent
    db.session.commit()
    assert stored("c1").reserved_by_id is None
    db.session.refresh(ann)
    assert ann.desk_state == "OFFLINE"
    [lapsed] = events("task.reservation_lapsed")
    assert lapsed["actor"] == {"kind": "system", "id": "reservation-timeout"}


def test_going_offline_releases_the_agents_task(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    agent_state.set_agent_state(ann, "OFFLINE", actor=Actor.agent("ann"), now=now + S)
    db.session.commit()
    assert stored("c1").reserved_by_id is None
    changes = [(e["from"], e["to"]) for e in events("agent.state_changed")]
    assert changes == [("OFFLINE", "AVAILABLE"), ("AVAILABLE", "OFFLINE")]


@pytest.mark.parametrize("change", ["delete", "transfer", "COMPLETED", "REMOVED"])
def test_a_task_changed_elsewhere_is_no_longer_the_agents(renewals, ann, change):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    task = offer(ann, now).task
    record_id, locator = task.record_id, Locator(client_id="c1")
    if change == "delete":
        tasks.delete_task(renewals, locator, actor=SETUP)
    elif change == "transfer":
        tasks.transfer_task(renewals, locator, "Winback", TaskChanges(), actor=SETUP)
    else:
        tasks.change_status(renewals, locator, change, TaskChanges(), actor=SETUP)
    db.session.commit()
    with pytest.raises(TaskNotFound):
        closing.close_task(ann, record_id, "COMPLETE", actor=Actor.agent("ann"), now=now)
    with pytest.raises(TaskNotFound):
        closing.release_task(ann, record_id, actor=Actor.agent("ann"), now=now)


# --- outcomes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("outcome", "state"), [("COMPLETE", "COMPLETED"), ("REMOVE", "REMOVED")])
def test_closing_counts_an_attempt_and_sets_the_state(renewals, ann, api, outcome, state):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    task = offer(ann, now).task
    codes = [("Outcome", "Sale"), ("Reason", "Price")]
    close(ann, task, outcome, now=now + 5 * S, work_codes=codes)
    shown = api.find("c1")
    assert shown["workedState"] == state
    assert shown["workAttempts"] == 1
    assert shown["lastAttemptAgent"] == "ann"
    assert shown["lastAttemptTime"] is not None
    assert shown["workCodes"] == [
        {"key": "Outcome", "value": "Sale"},
        {"key": "Reason", "value": "Price"},
    ]
    assert stored("c1").reserved_by_id is None
    [closed] = events("task.closed")
    assert (closed["outcome"], closed["attempt"]) == (outcome, 1)
    assert closed["workCodes"] == shown["workCodes"]


def test_a_reschedule_sets_the_next_time_and_is_delivered_again_then(renewals, ann, api):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    close(
        ann,
        offer(ann, now).task,
        "RESCHEDULE",
        now=now,
        next_earliest=sent_time(ms(now + 3600 * S), "nextEarliestWorkTimeUTC"),
    )
    shown = api.find("c1")
    assert shown["workedState"] == "WORKED"
    assert shown["nextEarliestWorkTime"] is not None
    assert offer(ann, now + 60 * S).task is None
    found = offer(ann, now + 3601 * S)
    assert client_id(found) == "c1"
    close(ann, found.task, "COMPLETE", now=now + 3602 * S, work_codes=[("Outcome", "Done")])
    shown = api.find("c1")
    assert shown["workAttempts"] == 2
    assert shown["workCodes"] == [{"key": "Outcome", "value": "Done"}]  # the last attempt's


@pytest.mark.parametrize("offset", [None, 0, -60])
def test_a_reschedule_needs_a_time_in_the_future(renewals, ann, offset):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    task = offer(ann, now).task
    when = None if offset is None else ms(now) + offset * 1000
    with pytest.raises(InvalidInput):
        close(
            ann,
            task,
            "RESCHEDULE",
            now=now,
            next_earliest=sent_time(when, "nextEarliestWorkTimeUTC"),
        )


def test_an_unknown_outcome_is_refused(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    with pytest.raises(InvalidInput):
        close(ann, offer(ann, now).task, "SKIP", now=now)


def test_an_agent_cannot_close_a_task_held_by_another(renewals, ann, bob):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    task = offer(ann, now).task
    with pytest.raises(TaskNotFound):
        close(bob, task, now=now)


def test_release_returns_the_task_without_counting_an_attempt(renewals, ann, bob):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    available(bob, now)
    task = offer(ann, now).task
    closing.release_task(ann, task.record_id, actor=Actor.agent("ann"), now=now + S)
    db.session.commit()
    assert stored("c1").work_attempts == 0
    assert stored("c1").reserved_by_id is None
    assert client_id(offer(bob, now + 2 * S)) == "c1"
    assert len(events("task.released")) == 1


def test_outcome_rules_may_refuse_a_closing(renewals, ann, monkeypatch):
    def codes_required(task, closing):
        if not closing.work_codes:
            raise InvalidInput("a work code is required")

    monkeypatch.setattr(closing, "OUTCOME_RULES", [codes_required])
    add(renewals, "c1")
    now = start()
    available(ann, now)
    with pytest.raises(InvalidInput):
        close(ann, offer(ann, now).task, now=now)


def test_a_status_change_clears_why_the_service_closed_the_task(renewals):
    task = add(renewals, "c1")
    task.worked_state, task.close_reason = "COMPLETED", "attempt limit reached (5 attempts)"
    db.session.commit()
    locator = Locator(client_id="c1")
    tasks.change_status(renewals, locator, "NOTWORKED", TaskChanges(), actor=SETUP)
    db.session.commit()
    assert stored("c1").close_reason is None
