"""The counts of the contact limits, on a controlled clock: every call placed counts (a
redial too), in the rolling window before now, per number, person or task, across the
tenant's campaigns or within one; contacts count as the reports count them; a refusal
names the limit and says when the call would be allowed, and changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.db import pruning
from app.extensions import db
from app.models import ContactMark, ContactScope
from app.services.contact_limits import limits
from app.services.contact_limits.counts import ContactLimitReached, prune_marks, verdicts
from app.services.contact_rules.engine import explain
from app.services.contactability.seat import local_text
from app.services.dialer import call_events, placing
from tests.calls.calls_support import (
    MOBILE,
    PHONE,
    S,
    add_phones,
    as_agent,
    attempts,
    deliver,
    events,
)
from tests.conftest import SETUP
from tests.contact_limits.limits_support import add_limit, marks
from tests.delivery.delivery_support import make_agent, start

H = timedelta(hours=1)
D = timedelta(days=1)


def call(agent, task, now, key=None):
    placed = placing.start_call(agent, task.record_id, key, actor=as_agent(agent), now=now)
    db.session.commit()
    return placed


def end(agent, task, placed, now, result="NO_ANSWER"):
    call_events.call_event(
        agent, task.record_id, placed.call_id, "ENDED", result, actor=as_agent(agent), now=now
    )
    db.session.commit()


def refused(agent, task, now, key=None) -> ContactLimitReached:
    with pytest.raises(ContactLimitReached) as caught:
        placing.start_call(agent, task.record_id, key, actor=as_agent(agent), now=now)
    db.session.rollback()
    return caught.value


def test_a_redial_is_a_second_call_and_the_window_rolls(acme, renewals, ann):
    limit = add_limit(acme, 3, "24h", "number")
    add_phones(renewals, "c1")
    task, t0 = deliver(ann)
    for n in range(3):  # a call, then Call again twice: three calls placed
        placed = call(ann, task, t0 + n * H)
        end(ann, task, placed, t0 + n * H + 30 * S)
    assert marks("call").count((f"number:{PHONE}", "call")) == 3
    held = refused(ann, task, t0 + 5 * H)
    assert held.until == t0 + D  # the first call leaves the window then
    assert f"contact limit {limit.id} reached for number {PHONE}" in held.message
    assert "at most 3 calls within 24 hours per number" in held.message
    assert held.message.endswith(f"the call may be placed from {local_text(t0 + D, 'UTC')}")
    refused(ann, task, t0 + D - S)
    assert call(ann, task, t0 + D).phone_number == PHONE  # exactly `within` old: it has left


def test_a_refusal_changes_nothing(acme, renewals, ann):
    add_limit(acme, 1, "1h", "task")
    add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    task, t0 = deliver(ann)
    first = call(ann, task, t0)
    before = (marks(), len(events("call.started")))
    refused(ann, task, t0 + 10 * S, key="Mobile_Phone")  # another number, the same task
    assert (marks(), len(events("call.started"))) == before
    (attempt,) = attempts()
    assert (attempt.call_id, attempt.call_ended_at) == (first.call_id, None)  # still going on


def test_the_same_click_again_is_no_second_call(acme, renewals, ann):
    add_limit(acme, 1, "1h", "number")
    add_phones(renewals, "c1")
    task, t0 = deliver(ann)
    first = call(ann, task, t0)
    assert call(ann, task, t0 + S).call_id == first.call_id
    assert len(marks("call")) == 3  # its number, person and task, once


def test_limits_count_across_campaigns_or_within_one(acme, renewals, winback, ann):
    cat = make_agent(acme, "cat", queues=("Support",))
    add_phones(renewals, "r1")
    add_phones(winback, "w1")
    own = add_limit(acme, 1, "24h", "number", campaign="Renewals")
    task, t0 = deliver(ann)
    call(ann, task, t0)
    other, _ = deliver(cat, t0)
    placed = call(cat, other, t0 + H)  # Renewals' own limit leaves Winback's calls alone
    end(cat, other, placed, t0 + H + S)
    limits.remove_limit(acme, own.id, actor=SETUP)
    db.session.commit()
    add_limit(acme, 2, "24h", "number")  # every campaign: both calls count
    assert "per number, across every campaign" in refused(cat, other, t0 + 2 * H).message


def test_without_a_person_key_a_person_is_a_client_id(acme, renewals, winback, ann):
    cat = make_agent(acme, "cat", queues=("Support",))
    add_limit(acme, 1, "7d", "person")
    add_phones(renewals, "c1", Phone=PHONE)
    add_phones(winback, "c1", Phone=MOBILE)  # the same clientId in another campaign
    task, t0 = deliver(ann)
    other, _ = deliver(cat, t0)  # delivered before the call: delivery would hold it back
    call(ann, task, t0)
    assert "reached for person c1" in refused(cat, other, t0 + H).message


def test_the_person_key_names_a_person_across_campaigns(acme, renewals, winback, ann):
    cat = make_agent(acme, "cat", queues=("Support",))
    limits.set_person_key(acme, "Account", actor=SETUP)
    add_limit(acme, 1, "7d", "person")
    add_phones(renewals, "r1", Phone=PHONE, Account="ACC-9")
    same = add_phones(winback, "w1", Phone=MOBILE, Account="ACC-9")
    other = add_phones(winback, "r1", Phone="+14155550111")  # no Account: person r1
    task, t0 = deliver(ann)
    held, _ = deliver(cat, t0)  # delivered before the call: delivery would hold it back
    assert held.id == same.id
    call(ann, task, t0)
    assert [v.callable_now for v in verdicts([same, other], t0 + H)] == [False, True]
    assert verdicts([same], t0 + H)[0].until == t0 + 7 * D
    assert "reached for person ACC-9" in refused(cat, held, t0 + H).message


def test_delivery_holds_back_the_person_the_limit_counts_and_no_other(acme, renewals, ann):
    # Each task's person is its own Account item, in delivery's SQL as at the click: the
    # customer called is held back, the next customer is offered.
    cat = make_agent(acme, "cat")
    limits.set_person_key(acme, "Account", actor=SETUP)
    add_limit(acme, 1, "7d", "person")
    first = add_phones(renewals, "r1", Phone=PHONE, Account="ACC-1")
    second = add_phones(renewals, "r2", Phone=MOBILE, Account="ACC-2")
    task, t0 = deliver(ann)
    assert task.id == first.id
    call(ann, task, t0)
    offered, _ = deliver(cat, t0 + H)
    assert offered.id == second.id
    assert explain(first, t0 + H).rules == ["CONTACT_LIMIT"]
    assert explain(second, t0 + H).callable_now


def test_contacts_count_as_the_reports_count_them(acme, renewals, ann):
    regulation_f = add_limit(acme, 1, "7d", "person", counting="contacts")
    add_phones(renewals, "c1")
    task, t0 = deliver(ann)
    placed = call(ann, task, t0)
    end(ann, task, placed, t0 + 20 * S, "NO_ANSWER")  # no conversation: no contact
    placed = call(ann, task, t0 + H)
    assert marks("contact") == []
    call_events.call_event(ann, task.record_id, placed.call_id, "CONNECTED", actor=as_agent(ann),
                       now=t0 + H + 5 * S)  # fmt: skip
    end(ann, task, placed, t0 + H + 3 * 60 * S, "ANSWERED")
    assert sorted(marks("contact")) == [
        (f"number:{PHONE}", "contact"), ("person:c1", "contact"), (f"task:{task.id}", "contact")
    ]  # fmt: skip
    held = refused(ann, task, t0 + 2 * H)
    assert held.until == t0 + H + 3 * 60 * S + 7 * D
    assert f"contact limit {regulation_f.id}" in held.message
    assert "at most 1 contact within 7 days per person" in held.message


def test_verdicts_say_whether_tasks_may_be_called_now_and_until_when(acme, renewals, ann):
    add_limit(acme, 1, "24h", "number")
    add_limit(acme, 2, "7d", "person")
    two = add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    none = add_phones(renewals, "c2", Name_Only="no phone")  # held back by person limits only
    t0 = start()
    assert [v.callable_now for v in verdicts([two, none], t0)] == [True, True]
    task, _ = deliver(ann, t0)
    assert task.id == two.id
    call(ann, task, t0)
    (verdict,) = verdicts([two], t0 + H)
    assert verdict.callable_now  # its mobile may still be called
    assert [len(h) for h in verdict.numbers.values()] == [1, 0]
    placed = call(ann, task, t0 + 2 * H, key="Mobile_Phone")
    end(ann, task, placed, t0 + 2 * H + S)
    (verdict,) = verdicts([two], t0 + 3 * H)
    # Both numbers held (the first until a day after its call) and the person's two calls
    # in seven days reached: the later end is when it may be called.
    assert not verdict.callable_now
    assert [hold.limit.per for hold in verdict.holds] == ["person"]
    assert verdict.until == t0 + 7 * D
    assert verdicts([none], t0 + 3 * H)[0].callable_now  # another person, no number


def test_marks_older_than_the_longest_window_are_pruned_and_the_rest_still_count(
    acme, renewals, ann, monkeypatch
):
    """The daily prune deletes what no limit can count (older than 90 days) and nothing a
    limit still counts, a batch at a time."""
    monkeypatch.setattr(pruning, "BATCH", 2)  # several batches
    add_phones(renewals, "c1")
    task, t0 = deliver(ann)
    for n in range(3):  # 3 calls: 9 marks (number, person, task) and 3 scopes
        end(ann, task, call(ann, task, t0 + n * D), t0 + n * D + 30 * S)
    limit = add_limit(acme, 2, "90d", "number")

    assert prune_marks(t0 + 90 * D) == 0  # the first call is exactly 90 days old: kept
    assert prune_marks(t0 + 90 * D + S) == 3  # its number, person and task
    assert len(marks("call")) == 6
    held = refused(ann, task, t0 + 90 * D + S)  # the two later calls still count
    assert held.until == t0 + D + 90 * D
    assert f"contact limit {limit.id}" in held.message

    assert prune_marks(t0 + 93 * D) == 6
    assert marks() == []
    assert db.session.scalars(select(ContactScope)).all() == []  # no call since the cutoff


def test_an_attempts_contact_mark_is_found_through_its_index_beside_many_call_marks(acme, renewals):
    # The marks of calls name no attempt; with their statistics gathered before any contact
    # was made, an attempt's contact mark (looked up at every call's end) is still one
    # probe of the index, not a scan of every call's marks.
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner, led by ANALYZE's statistics")
    at = start()
    rows = [
        {"tenant_id": acme.id, "scope_key": f"number:+1415555{n:04d}", "kind": "call",
         "campaign_id": renewals.id, "at": at, "attempt_id": None}
        for n in range(2000)
    ]  # fmt: skip
    db.session.execute(ContactMark.__table__.insert(), rows)
    db.session.commit()
    with db.engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
        lookup = select(ContactMark.id).where(
            ContactMark.attempt_id == 7, ContactMark.kind == "contact"
        )
        compiled = lookup.compile(connection, compile_kwargs={"literal_binds": True})
        plan = [row[3] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}")]
    assert any("ix_contact_marks_attempt" in line for line in plan), plan
