"""The supervisors' counts and board, with a controlled clock: every count follows the
delivery rules (a lapsed reservation and an ended hold are none, a future next earliest
time waits), and what is counted deliverable is what `next_task` actually hands out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import event, select

from app.extensions import db
from app.models import AuditRecord, Task
from app.services.actors import Actor
from app.services.delivery import (
    agent_state,
    closing,
    kept_back,
    progress,
    progress_groups,
    rules,
)
from app.services.errors import InvalidInput, StaleTask, TaskNotFound
from app.services.people.users import NewUser, add_user
from app.services.tasks import changes as tasks
from app.services.tasks.changes import Locator, TaskChanges
from app.wire.times import sent_time
from tests.conftest import SETUP, make_tenant
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
from tests.desk.desk_support import make_agent as make_desk_agent

S = timedelta(seconds=1)
BOSS = Actor.supervisor("boss@example.com")


@contextmanager
def statements() -> Iterator[list[str]]:
    seen: list[str] = []

    def spy(_conn, _cursor, statement, *_args) -> None:
        if statement.startswith("SELECT"):  # not SQLite's BEGIN IMMEDIATE
            seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", spy)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", spy)


def buckets(campaign, now) -> dict[str, int]:
    counted = progress.campaign_progress(campaign, now)
    return {
        "deliverable": counted.deliverable,
        "waiting": counted.waiting,
        "held": counted.held,
        "in_work": counted.in_work,
        "kept_back": counted.kept_back,
    }


def only(bucket: str, count: int = 1) -> dict[str, int]:
    return {"deliverable": 0, "waiting": 0, "held": 0, "in_work": 0, "kept_back": 0, bucket: count}


def set_state(campaign, client_id_: str, state: str, **changes) -> None:
    tasks.change_status(
        campaign, Locator(client_id=client_id_), state, TaskChanges(**changes), actor=SETUP
    )
    db.session.commit()


def close(agent, task, now) -> None:
    closing.close_task(
        agent, task.record_id, "COMPLETE", actor=Actor.agent(agent.login_user_id), now=now
    )
    db.session.commit()


# --- the counts --------------------------------------------------------------------------


def test_counts_by_worked_state_cover_every_state_and_only_this_campaign(renewals, winback):
    for name in ("n1", "n2", "w1", "c1", "r1"):
        add(renewals, name)
    add(winback, "elsewhere")
    set_state(
        renewals,
        "w1",
        "WORKED",
        next_earliest=sent_time(ms(start() + 3600 * S), "nextEarliestWorkTimeUTC"),
    )
    set_state(renewals, "c1", "COMPLETED")
    set_state(renewals, "r1", "REMOVED")
    counted = progress.campaign_progress(renewals, start())
    assert counted.by_state == {"NOTWORKED": 2, "WORKED": 1, "COMPLETED": 1, "REMOVED": 1}
    assert (counted.total, counted.open) == (5, 3)
    assert buckets(renewals, start()) == {**only("deliverable", 2), "waiting": 1}


def test_an_empty_campaign_counts_zero_everywhere(renewals):
    counted = progress.campaign_progress(renewals, start())
    assert counted.total == 0 and set(counted.by_state.values()) == {0}
    assert buckets(renewals, start()) == only("deliverable", 0)


@pytest.mark.parametrize("state", ["COMPLETED", "REMOVED"])
def test_closed_tasks_are_in_no_bucket_of_open_tasks(renewals, state):
    add(renewals, "c1")
    set_state(renewals, "c1", state)
    assert buckets(renewals, start()) == only("deliverable", 0)


def test_a_future_next_earliest_time_waits_until_it_passes(renewals):
    now = start()
    due = now + 600 * S
    add(renewals, "later", next_earliest=sent_time(ms(due), "nextEarliestWorkTimeUTC"))
    assert buckets(renewals, now) == only("waiting")
    assert buckets(renewals, due - S) == only("waiting")
    assert buckets(renewals, due) == only("deliverable")


def test_a_delivered_task_is_in_work_until_its_reservation_lapses(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    assert client_id(offer(ann, now)) == "c1"
    assert buckets(renewals, now) == only("in_work")
    assert buckets(renewals, now + (OFFER_TIMEOUT - 1) * S) == only("in_work")
    # Lapsed, the clock not yet run: it counts as none, as delivery treats it.
    assert buckets(renewals, now + OFFER_TIMEOUT * S) == only("deliverable")
    assert stored("c1").reserved_by_id == ann.id


def test_a_hold_counts_as_held_until_it_ends_then_deliverable(renewals):
    add(renewals, "for-bob", preferred_agent="bob")
    ends = stored("for-bob").hold_until
    assert buckets(renewals, ends - S) == only("held")
    # Ended, the clock not yet run (the preference still stored): no hold.
    assert buckets(renewals, ends) == only("deliverable")
    assert stored("for-bob").preferred_agent == "bob"


def test_a_hold_on_a_task_not_yet_due_waits_first(renewals):
    now = start()
    due = now + 600 * S
    add(
        renewals,
        "later-for-bob",
        preferred_agent="bob",
        next_earliest=sent_time(ms(due), "nextEarliestWorkTimeUTC"),
    )
    assert buckets(renewals, now) == only("waiting")
    assert buckets(renewals, due) == only("held")  # the hold runs from when it is due
    assert buckets(renewals, due + HOLD * S) == only("deliverable")


def test_the_counts_are_one_query_over_the_tasks_however_many(renewals):
    def asked() -> tuple[int, int]:
        _ = renewals.id  # loaded again after the commit
        with statements() as seen:
            progress.campaign_progress(renewals, start())
        return len(seen), sum(bool(re.search(r"FROM tasks\s", one)) for one in seen)

    add(renewals, "c1")
    few = asked()
    for n in range(5):
        add(renewals, f"more{n}", preferred_agent="bob" if n % 2 else None)
    # The rules of when and whom may look a few things up first (schedules, windows, lists).
    assert asked() == few and few[1] == 1


def mixed_campaign(renewals, ann, bob, carl):
    """At the moment returned: 4 deliverable, 1 waiting, 1 held for bob, 1 in work, 1 closed."""
    t0 = start()
    add(renewals, "lapsed")
    available(carl, t0)
    assert client_id(offer(carl, t0)) == "lapsed"
    add(renewals, "in-work")
    available(bob, t0 + 10 * S)
    assert client_id(offer(bob, t0 + 10 * S)) == "in-work"
    now = t0 + (OFFER_TIMEOUT + 1) * S  # carl's reservation lapsed, bob's runs
    add(renewals, "plain")
    add(renewals, "ended-hold", preferred_agent="not-a-user")  # its hold ended before now
    add(
        renewals,
        "held",
        preferred_agent="bob",
        next_earliest=sent_time(ms(now - 10 * S), "nextEarliestWorkTimeUTC"),
    )
    add(renewals, "due-since", next_earliest=sent_time(ms(now - 5 * S), "nextEarliestWorkTimeUTC"))
    add(renewals, "waiting", next_earliest=sent_time(ms(now + 3600 * S), "nextEarliestWorkTimeUTC"))
    add(renewals, "done")
    set_state(renewals, "done", "COMPLETED")
    return now


def test_the_buckets_split_the_open_tasks(renewals, ann, bob, acme):
    now = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    counted = progress.campaign_progress(renewals, now)
    assert counted.by_state == {"NOTWORKED": 7, "WORKED": 0, "COMPLETED": 1, "REMOVED": 0}
    assert buckets(renewals, now) == {
        **only("deliverable", 4),
        "waiting": 1,
        "held": 1,
        "in_work": 1,
    }
    assert counted.open == 4 + 1 + 1 + 1  # every open task is in exactly one bucket


def test_what_is_counted_deliverable_is_what_next_task_hands_out(renewals, ann, bob, acme):
    now = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    counted = set(
        db.session.scalars(
            select(Task.client_id).where(
                Task.campaign_id == renewals.id, progress.buckets(acme.id, now)["deliverable"]
            )
        )
    )
    assert counted == {"lapsed", "plain", "ended-hold", "due-since"}
    available(ann, now)
    handed_out = set()
    while (found := offer(ann, now)).task is not None:
        handed_out.add(found.task.client_id)
        close(ann, found.task, now)
    assert handed_out == counted
    assert found.reason == "every task is held for other agents"  # the one held for bob
    assert buckets(renewals, now) == {**only("waiting"), "held": 1, "in_work": 1}


def test_a_rule_of_when_and_whom_keeps_tasks_back_for_the_counts_as_for_delivery(
    renewals, ann, monkeypatch
):
    """Hours of operation, calling windows and the do-not-call list are rules of ELIGIBILITY
    that hold for any agent: one more such rule keeps tasks back in both places at once."""
    not_now = lambda _seat: Task.client_id != "not-now"  # noqa: E731 - a rule is a callable
    monkeypatch.setattr(rules, "ELIGIBILITY", [*rules.ELIGIBILITY, not_now])
    add(renewals, "not-now")
    add(renewals, "now")
    now = start()
    assert buckets(renewals, now) == {**only("deliverable"), "kept_back": 1}
    available(ann, now)
    assert client_id(offer(ann, now)) == "now"
    close(ann, stored("now"), now)
    assert offer(ann, now).task is None
    assert buckets(renewals, now) == only("kept_back")


def test_a_task_counted_deliverable_in_another_queue_goes_to_that_queues_agent(
    renewals, winback, acme
):
    add(winback, "support-task")  # queue Support
    sue = make_agent(acme, "sue", queues=("Support",))
    now = start()
    assert buckets(winback, now) == only("deliverable")
    available(sue, now)
    assert client_id(offer(sue, now)) == "support-task"
    assert buckets(winback, now) == only("in_work")


# --- the agents' board ---------------------------------------------------------------------


def test_the_board_lists_agents_with_state_time_in_state_queues_and_task(renewals, acme, ann):
    add(renewals, "c1")
    make_desk_agent(acme, "pat", queues=())  # a desk password, no queue: an agent
    add_user(acme, NewUser("plain", "Plain", "User", "Agent"), actor=SETUP)  # neither
    db.session.commit()
    now = start()
    available(ann, now)
    offer(ann, now)
    rows = {row.agent.login_user_id: row for row in progress.agent_board(acme, now + 90 * S)}
    assert list(rows) == ["ann", "pat"]
    assert (rows["ann"].state, rows["ann"].in_state, rows["ann"].queues) == (
        "AVAILABLE",
        90 * S,
        ["Sales"],
    )
    assert rows["ann"].task.client_id == "c1"
    assert (rows["pat"].state, rows["pat"].in_state, rows["pat"].task) == ("OFFLINE", None, None)
    assert progress.count_agents(acme, now) == 2


def test_a_silent_desk_is_offline_since_its_silence_passed_the_idle_limit(acme, ann):
    now = start()
    available(ann, now)
    [row] = progress.agent_board(acme, now + (IDLE + 30) * S)
    assert (row.state, row.since, row.in_state) == ("OFFLINE", now + IDLE * S, 30 * S)


def test_a_lapsed_reservation_is_no_current_task(renewals, acme, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    later = now + OFFER_TIMEOUT * S
    agent_state.heartbeat(ann, later)  # the desk is open, the task untouched
    db.session.commit()
    [row] = progress.agent_board(acme, later)
    assert row.state == "AVAILABLE" and row.task is None


def test_whoever_holds_a_task_is_listed_even_without_queues(renewals, acme, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    ann.skill_queues = []
    db.session.commit()
    [row] = progress.agent_board(acme, now)
    assert row.agent.id == ann.id and row.task.client_id == "c1"


def test_the_board_takes_three_queries_however_many_agents_hold_tasks(renewals, acme):
    def board_statements() -> int:
        db.session.expire_all()
        _ = acme.id
        with statements() as seen:
            rows = progress.agent_board(acme, now)
            for row in rows:  # what the page reads of each row
                _ = (row.queues, row.task and row.task.campaign.name)
        return len(seen)

    now = start()
    for n in range(2):
        add(renewals, f"c{n}")
        offer(available(make_agent(acme, f"a{n}"), now), now)
    few = board_statements()
    for n in range(2, 6):
        add(renewals, f"c{n}")
        offer(available(make_agent(acme, f"a{n}"), now), now)
    assert board_statements() == few == 3  # the agents, their queues, the tasks they hold


def test_the_board_shows_only_the_tenants_agents(renewals, acme, ann):
    other, _ = make_tenant("Other")
    make_agent(other, "olga")
    assert [row.agent.login_user_id for row in progress.agent_board(acme, start())] == ["ann"]


# --- who holds a task, releasing it ---------------------------------------------------------


def test_holder_names_the_agent_and_when_the_task_was_delivered(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    offer(ann, now + 60 * S)  # asking again keeps the task, restarts its timeout
    held = progress.holder(stored("c1"), now + 61 * S)
    assert (held.agent.id, held.since) == (ann.id, now)
    assert progress.holder(stored("c1"), now + (60 + OFFER_TIMEOUT) * S) is None  # lapsed


def test_a_supervisor_releases_a_held_task_with_its_audit_record_and_event(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    task = stored("c1")
    agent = progress.release_by_supervisor(
        task, actor=BOSS, now=now + S, expected_version=task.version
    )
    db.session.commit()
    assert agent.id == ann.id
    task = stored("c1")
    assert (task.reserved_by_id, task.reserved_at, task.work_attempts) == (None, None, 0)
    audit = db.session.scalar(select(AuditRecord).filter_by(action="task.released"))
    assert (audit.actor_kind, audit.actor_id) == ("supervisor", "boss@example.com")
    [released] = events("task.released")
    assert released["actor"] == {"kind": "supervisor", "id": "boss@example.com"}
    assert buckets(renewals, now + S) == only("deliverable")
    # The agent's next action on it says it is no longer theirs.
    with pytest.raises(TaskNotFound):
        closing.close_task(ann, task.record_id, "COMPLETE", actor=Actor.agent("ann"), now=now)


def test_releasing_a_task_nobody_holds_is_refused(renewals, ann):
    add(renewals, "c1")
    with pytest.raises(InvalidInput, match="nobody holds task 'c1'"):
        progress.release_by_supervisor(stored("c1"), actor=BOSS, now=start())
    now = start()
    available(ann, now)
    offer(ann, now)
    with pytest.raises(InvalidInput, match="nobody holds"):  # its reservation lapsed
        progress.release_by_supervisor(stored("c1"), actor=BOSS, now=now + OFFER_TIMEOUT * S)
    assert db.session.scalar(select(AuditRecord).filter_by(action="task.released")) is None


def test_a_release_from_an_older_page_is_refused(renewals, ann, bob):
    """Ann completed the task shown and bob now holds the next version: he keeps it."""
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    shown = stored("c1").version
    closing.release_task(ann, stored("c1").record_id, actor=Actor.agent("ann"), now=now)
    db.session.commit()
    available(bob, now)
    assert client_id(offer(bob, now)) == "c1"
    with pytest.raises(StaleTask, match="nothing was released"):
        progress.release_by_supervisor(stored("c1"), actor=BOSS, now=now, expected_version=shown)
    db.session.rollback()
    assert stored("c1").reserved_by_id == bob.id


def test_a_supervisors_release_ends_the_hold_and_the_next_agent_of_the_queue_gets_it(
    renewals, ann, bob
):
    """Releasing from the Agents page means "not this agent now": before, the preferred
    agent's hold gave ann the task back on her next click."""
    add(renewals, "for-ann", preferred_agent="ann")
    add(renewals, "other")
    now = start()
    available(ann, now)
    assert client_id(offer(ann, now)) == "for-ann"
    task = stored("for-ann")
    progress.release_by_supervisor(task, actor=BOSS, now=now + S, expected_version=task.version)
    db.session.commit()
    assert client_id(offer(ann, now + 2 * S)) == "other"  # not the task taken from her
    task = stored("for-ann")
    assert (task.preferred_agent, task.hold_until) == (None, None)  # the hold ended
    assert buckets(renewals, now + 2 * S) == {**only("deliverable"), "in_work": 1}
    close(ann, stored("other"), now + 2 * S)
    nothing = offer(ann, now + 3 * S)
    assert nothing.task is None and "a supervisor took the remaining tasks back" in nothing.reason
    assert nothing.next_due == now + S + HOLD * S
    available(bob, now + 3 * S)
    assert client_id(offer(bob, now + 3 * S)) == "for-ann"


def test_a_supervisors_release_says_the_hold_ended_in_its_audit_record_and_event(renewals, ann):
    add(renewals, "for-ann", preferred_agent="ann")
    now = start()
    available(ann, now)
    offer(ann, now)
    progress.release_by_supervisor(stored("for-ann"), actor=BOSS, now=now + S)
    db.session.commit()
    audit = db.session.scalar(select(AuditRecord).filter_by(action="task.released"))
    before, after = audit.before, audit.after
    assert before["preferredAgent"] == "ann" and after.get("preferredAgent") is None
    assert after["holdEnded"] is True
    assert after["passedOver"]["agent"] == "ann"
    [released] = events("task.released")
    assert released["holdEnded"] is True and released["passedOver"]["agent"] == "ann"


def test_the_agent_a_task_was_taken_from_gets_it_again_when_nobody_took_it_in_time(
    renewals, ann, bob
):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    progress.release_by_supervisor(stored("c1"), actor=BOSS, now=now)
    db.session.commit()
    assert offer(ann, now + (HOLD - 1) * S).task is None
    assert client_id(offer(ann, now + HOLD * S)) == "c1"
    [released] = events("task.released")
    assert released["holdEnded"] is False


def test_once_another_agent_has_the_task_the_first_is_no_longer_kept_from_it(renewals, ann, bob):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    offer(ann, now)
    progress.release_by_supervisor(stored("c1"), actor=BOSS, now=now)
    db.session.commit()
    available(bob, now)
    assert client_id(offer(bob, now)) == "c1"
    assert (stored("c1").passed_over_agent, stored("c1").passed_over_until) == (None, None)
    closing.release_task(bob, stored("c1").record_id, actor=Actor.agent("bob"), now=now + S)
    db.session.commit()
    assert client_id(offer(ann, now + 2 * S)) == "c1"


def test_every_group_the_panel_links_to_lists_exactly_the_tasks_it_counts(
    renewals, ann, bob, acme, monkeypatch
):
    """The counts and the lists behind them come from the same conditions: they agree
    bucket by bucket and reason by reason, a new rule of delivery included."""
    not_now = lambda _seat: Task.client_id != "plain"  # noqa: E731 - a rule is a callable
    not_now.__doc__ = "Not the plain task."
    monkeypatch.setattr(rules, "ELIGIBILITY", [*rules.ELIGIBILITY, not_now])
    now = mixed_campaign(renewals, ann, bob, make_agent(acme, "carl"))
    counted = progress.campaign_progress(renewals, now)
    found = progress_groups.groups(acme.id, now)

    def listed(name: str) -> list[str]:
        query = select(Task.client_id).where(Task.campaign_id == renewals.id, found[name].condition)
        return sorted(db.session.scalars(query))

    for name in ("deliverable", "waiting", "held", "in_work", "kept_back"):
        assert len(listed(name)) == getattr(counted, name), name
    assert listed("kept_back") == ["plain"]
    by_reason = {why.key: why for why in counted.kept_back_by}
    assert [why.count for why in by_reason.values()] == [0] * (len(by_reason) - 1) + [1]
    assert len(by_reason) == len(kept_back.COUNTED) + 1
    [(key, why)] = [(key, why) for key, why in by_reason.items() if why.count]
    assert why.label == "Not the plain task"
    assert listed(f"kept_back.{key}") == ["plain"]
    with pytest.raises(InvalidInput, match="not a group"):
        progress_groups.group(acme.id, "kept_back.nonsense", now)
