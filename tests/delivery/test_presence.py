"""An open desk keeps its agent and task, and a lapse never throws away the agent's choice.

The shift that lost an agent's work: a task left on screen while the agent was on the phone
went back to the queue when the desk fell silent past AGENT_IDLE_SECONDS, and the agent's
Complete was then refused. With a controlled clock: heartbeats keep the agent present
through every sweep, activity and "Keep it" restart the offer timeout, and a close after a
lapse is accepted while nobody else has taken or changed the task, else refused saying
what happened, by whom and when.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.extensions import db
from app.services.actors import Actor
from app.services.delivery import closing, presence, progress, sweeps
from app.services.errors import TaskNotFound, TaskTaken
from app.services.tasks import changes as tasks
from app.services.tasks.changes import Locator, TaskChanges
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    IDLE,
    OFFER_TIMEOUT,
    add,
    available,
    events,
    offer,
    settings,
    start,
    stored,
)

S = timedelta(seconds=1)


def sweep(now):
    sweeps.expire_reservations(now)
    db.session.commit()


def close(agent, record_id, now, outcome="COMPLETE"):
    closed = closing.close_task(
        agent, record_id, outcome, actor=Actor.agent(agent.login_user_id), now=now
    )
    db.session.commit()
    return closed


def beat(agent, now, active=False):
    seen = presence.desk_heartbeat(agent, active=active, now=now)
    db.session.commit()
    return seen


def test_an_open_desk_keeps_the_agent_and_the_task_past_the_idle_limit(renewals, ann):
    """D1: heartbeats every IDLE/4 keep the agent AVAILABLE and the task held through
    sweeps well past AGENT_IDLE_SECONDS (the offer timeout is longer)."""
    add(renewals, "c1")
    now = start()
    available(ann, now)
    record_id = offer(ann, now).task.record_id
    step = timedelta(seconds=IDLE / 4)
    moment = now
    while moment < now + timedelta(seconds=IDLE * 2):
        moment += step
        beat(ann, moment)
        sweep(moment)
    db.session.refresh(ann)
    assert ann.desk_state == "AVAILABLE"
    assert stored("c1").reserved_by_id == ann.id
    assert close(ann, record_id, moment).worked_state == "COMPLETED"


def test_without_heartbeats_the_same_desk_loses_the_task(renewals, ann):
    """The defect itself: silent past AGENT_IDLE_SECONDS, the clock releases the task."""
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    sweep(now + timedelta(seconds=IDLE) + S)
    db.session.refresh(ann)
    assert ann.desk_state == "OFFLINE" and stored("c1").reserved_by_id is None


def test_activity_restarts_the_offer_timeout_and_a_bare_heartbeat_does_not(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    later = now + timedelta(seconds=OFFER_TIMEOUT / 2)
    seen = beat(ann, later)
    assert stored("c1").reserved_at == now
    assert seen.offer_lapses_at == now + timedelta(seconds=OFFER_TIMEOUT)
    seen = beat(ann, later, active=True)
    assert stored("c1").reserved_at == later
    assert seen.offer_lapses_at == later + timedelta(seconds=OFFER_TIMEOUT)
    assert seen.idle_lapses_at == later + timedelta(seconds=IDLE)


def test_keep_it_restarts_the_offer_timeout(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    record_id = offer(ann, now).task.record_id
    warned = now + timedelta(seconds=OFFER_TIMEOUT) - 30 * S
    kept = presence.keep_task(ann, record_id, now=warned)
    db.session.commit()
    assert kept.offer_lapses_at == warned + timedelta(seconds=OFFER_TIMEOUT)
    sweep(now + timedelta(seconds=OFFER_TIMEOUT) + S)  # past the first timeout: still held
    assert stored("c1").reserved_by_id == ann.id


def test_the_warning_comes_sixty_seconds_ahead_or_at_half_the_offer_timeout(app, ann):
    assert presence.warn_seconds() == 60  # offer timeout 300: 60 fits
    app.config["OFFER_TIMEOUT_SECONDS"] = 30
    assert presence.warn_seconds() == 15


@pytest.mark.parametrize("lapse", ["offer-timeout", "agent-idle"])
def test_a_close_after_a_lapse_is_accepted_while_the_task_is_free(renewals, ann, lapse):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    record_id = offer(ann, now).task.record_id
    if lapse == "offer-timeout":
        beat(ann, now + timedelta(seconds=OFFER_TIMEOUT) - S)  # present, but not active
        late = now + timedelta(seconds=OFFER_TIMEOUT) + S
    else:
        late = now + timedelta(seconds=IDLE) + S
    sweep(late)
    assert stored("c1").reserved_by_id is None
    closed = close(ann, record_id, late + S)
    assert (closed.worked_state, closed.work_attempts, closed.last_attempt_agent) == (
        "COMPLETED",
        1,
        "ann",
    )
    [event] = events("task.closed")
    assert event["outcome"] == "COMPLETE" and event["actor"] == {"kind": "agent", "id": "ann"}


def test_a_lapsed_task_another_agent_took_is_refused_naming_who_and_when(renewals, ann, bob):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    record_id = offer(ann, now).task.record_id
    late = now + timedelta(seconds=OFFER_TIMEOUT) + S
    sweep(late)
    available(bob, late)
    assert offer(bob, late).task.record_id == record_id
    with pytest.raises(TaskTaken) as refused:
        close(ann, record_id, late + S)
    assert (refused.value.what, refused.value.who, refused.value.at) == ("taken", "agent bob", late)
    assert "bob" in refused.value.message
    db.session.rollback()
    assert stored("c1").reserved_by_id == bob.id and stored("c1").work_attempts == 0


@pytest.mark.parametrize(
    ("change", "what"),
    [("transfer", "moved"), ("COMPLETED", "changed"), ("delete", "deleted")],
)
def test_a_lapsed_task_changed_elsewhere_is_refused_naming_the_change(renewals, ann, change, what):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    record_id = offer(ann, now).task.record_id
    late = now + timedelta(seconds=OFFER_TIMEOUT) + S
    sweep(late)
    locator = Locator(client_id="c1")
    if change == "transfer":
        tasks.transfer_task(renewals, locator, "Winback", TaskChanges(), actor=SETUP)
    elif change == "delete":
        tasks.delete_task(renewals, locator, actor=SETUP)
    else:
        tasks.change_status(renewals, locator, change, TaskChanges(), actor=SETUP)
    db.session.commit()
    with pytest.raises(TaskNotFound) as refused:
        close(ann, record_id, late + S)
    assert isinstance(refused.value, TaskTaken)
    assert refused.value.what == what and refused.value.who == f"operator {SETUP.id}"


def test_a_supervisors_release_is_not_undone_by_the_agents_close(renewals, ann, boss):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    task = offer(ann, now).task
    record_id = task.record_id
    progress.release_by_supervisor(task, actor=Actor.supervisor(boss.email), now=now + S)
    db.session.commit()
    with pytest.raises(TaskTaken) as refused:
        close(ann, record_id, now + 2 * S)
    assert refused.value.who == f"supervisor {boss.email}"


def test_release_still_needs_the_task_held(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    record_id = offer(ann, now).task.record_id
    sweep(now + timedelta(seconds=OFFER_TIMEOUT) + S)
    with pytest.raises(TaskNotFound):
        closing.release_task(ann, record_id, actor=Actor.agent("ann"), now=now)
