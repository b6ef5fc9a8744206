"""Calls, as the service places and follows them: startCall checks delivery's rules again
at the moment of the call, the call belongs to the agent's attempt, its events are
idempotent, every change leaves its audit record and event in the same transaction, and a
campaign may forbid skipping."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, Call, EndedHow, Task
from app.models.campaigns import CallPlacement
from app.services.actors import Actor
from app.services.campaigns import life_cycle
from app.services.contact_centre import InstanceError
from app.services.delivery import agent_state, closing, progress
from app.services.dialer import call_events, placing
from app.services.dialer.call_events import CallNotFound
from app.services.dnc import numbers as dnc
from app.services.errors import InvalidInput, NotAvailable, TaskNotFound
from app.services.schedules import calling_windows, hours
from app.services.tenants.setup import get_skill_queue
from app.services.work_codes import groups as work_codes
from app.services.work_codes.groups import CodeSettings
from app.wire.times import format_time
from tests.calls.calls_support import (
    MOBILE,
    PHONE,
    FakeInstance,
    S,
    add_phones,
    as_agent,
    attempts,
    audit,
    deliver,
    events,
)
from tests.conftest import SETUP
from tests.delivery.delivery_support import settings  # noqa: F401 - short desk timings
from tests.schedules.hours_support import make_schedule

BOSS = Actor.supervisor("boss@example.com")
# Friday 27 November 2026, 17:59:30 in London (UTC in winter): its office closes at 18:00.
FRIDAY_EVENING = datetime(2026, 11, 27, 17, 59, 30, tzinfo=UTC)
# 08:59:30 in New York (Renewals' zone): an 08:00-09:00 window closes in 30 seconds.
NY_MORNING = datetime(2026, 11, 30, 13, 59, 30, tzinfo=UTC)


def start(agent, task, key=None, now=None, **options):
    return placing.start_call(agent, task.record_id, key, actor=as_agent(agent), now=now, **options)


def event(agent, task, call_id, name, result=None, contact=None, now=None):
    return call_events.call_event(
        agent, task.record_id, call_id, name, result, contact, actor=as_agent(agent), now=now
    )


def the_attempt() -> Attempt:
    return attempts()[-1]


# --- placing the call ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "chosen", "number"),
    [(None, "Phone", PHONE), ("Mobile_Phone", "Mobile_Phone", MOBILE), ("Phone", "Phone", PHONE)],
    ids=["first phone item", "another item", "the first named"],
)
def test_the_call_is_the_attempts(renewals, ann, key, chosen, number):
    add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    task, now = deliver(ann)
    placed = start(ann, task, key, now=now + 5 * S)
    db.session.commit()
    assert (placed.key, placed.phone_number) == (chosen, number)
    row = the_attempt()
    assert row.call_id == placed.call_id and len(row.call_id) == 36
    assert (row.phone_key, row.phone_number, row.placed_by) == (chosen, number, "desk")
    assert row.call_started_at == now + 5 * S and row.ended_how is None
    assert row.preview_time == 5 * S
    started = events("call.started")
    assert started == [
        {
            "previewRecordID": task.record_id,
            "clientId": task.client_id,  # the history and the event name the task as people do
            "callId": placed.call_id,
            "phoneKey": chosen,
            "phoneNumber": number,
            "placedBy": "desk",
            "contactId": None,
            "actor": {"kind": "agent", "id": "ann"},
        }
    ]
    # The call is activity: the reservation's offer timeout starts again.
    db.session.expire_all()
    assert db.session.get(Task, task.id).reserved_at == now + 5 * S


def _not_yours(ann, bob, task, now):
    progress.release_by_supervisor(task, actor=BOSS, now=now)


def _listed(ann, bob, task, now):
    dnc.add_numbers(task.campaign.tenant, [PHONE], actor=SETUP)


def _paused(ann, bob, task, now):
    life_cycle.change_status(task.campaign, "pause", actor=SETUP, now=now)


def _archived(ann, bob, task, now):
    life_cycle.change_status(task.campaign, "archive", actor=SETUP, now=now)


def _window(ann, bob, task, now):
    calling_windows.set_calling_window(task.campaign, 8 * 60, 9 * 60, actor=SETUP)


def _office(ann, bob, task, now):
    schedule = make_schedule(task.campaign.tenant, "mon-fri 08:00-18:00", zone="Europe/London")
    hours.set_queue_schedule(get_skill_queue(task.campaign.tenant, "Sales"), schedule, actor=SETUP)


# (what changes after the delivery, when the call is asked for, the refusal's words)
REFUSALS = [
    (_not_yours, FRIDAY_EVENING, "task '{}' is not yours: released by supervisor boss@example.com"),
    (_listed, FRIDAY_EVENING, f"{PHONE} is on the do-not-call list"),
    (_paused, FRIDAY_EVENING, "the Renewals campaign is paused"),
    (_archived, FRIDAY_EVENING, "the Renewals campaign is archived"),
    (
        _office,
        FRIDAY_EVENING,
        "the Sales queue is closed until 2026-11-30 08:00 UTC",
    ),
    (
        _window,
        NY_MORNING,
        "outside the campaign's calling window (08:00-09:00 America/New_York): "
        "the task can be called from 2026-12-01 13:00 UTC",
    ),
]


@pytest.mark.parametrize(
    ("change", "delivered", "words"),
    REFUSALS,
    ids=["not yours", "do-not-call", "paused", "archived", "queue closed", "calling window"],
)
def test_each_rule_refuses_the_call_and_nothing_changes(
    renewals, ann, bob, change, delivered, words
):
    task = add_phones(renewals, "c1")
    if change is _window:  # set first: the task is delivered inside it, called after
        change(ann, bob, task, delivered)
        db.session.commit()
    task, now = deliver(ann, delivered)
    if change is not _window:
        change(ann, bob, task, now)
    db.session.commit()
    before = [(a.call_id, a.call_started_at, a.ended_how) for a in attempts()]
    with pytest.raises(NotAvailable) as refused:
        start(ann, task, now=now + 60 * S)
    db.session.rollback()
    assert refused.value.message.startswith(words.format(task.record_id))
    assert [(a.call_id, a.call_started_at, a.ended_how) for a in attempts()] == before
    assert events("call.started") == [] and audit("call.started") == []


@pytest.mark.parametrize(
    ("items", "key", "error", "words"),
    [
        ({"Phone": PHONE}, "Mobile", InvalidInput, "phoneKey 'Mobile' is not a phone item"),
        ({"Phone": PHONE, "City": "Paris"}, "City", InvalidInput, "phoneKey 'City' is not"),
        ({"Phone": PHONE, "Hidden": "Phone"}, None, NotAvailable, "task '{}' has no phone"),
        ({"City": "Paris"}, None, NotAvailable, "task '{}' has no phone number to call"),
    ],
    ids=["unknown key", "not a phone item", "hidden phone", "no phone item"],
)
def test_the_phone_item_must_be_one_of_the_tasks(renewals, ann, items, key, error, words):
    add_phones(renewals, "c1", **items)
    task, now = deliver(ann)
    with pytest.raises(error) as refused:
        start(ann, task, key, now=now + S)
    db.session.rollback()
    assert refused.value.message.startswith(words.format(task.record_id))
    if error is InvalidInput:
        assert str(refused.value.field) == "phoneKey"
    assert the_attempt().call_id is None


def test_a_listed_number_refuses_but_another_item_may_be_called(renewals, ann, acme):
    add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    task, now = deliver(ann)
    dnc.add_numbers(acme, [PHONE], actor=SETUP)
    db.session.commit()
    with pytest.raises(NotAvailable, match="on the do-not-call list") as refused:
        start(ann, task, "Phone", now=now + S)
    assert refused.value.rule == "DO_NOT_CALL"
    db.session.rollback()
    # Without a phoneKey, the first number the rules let be called.
    assert start(ann, task, now=now + 2 * S).phone_number == MOBILE


def test_another_agents_task_is_not_yours(renewals, ann, bob):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    with pytest.raises(NotAvailable, match=f"task '{task.record_id}' is not yours: taken by"):
        start(bob, task, now=now + S)


# --- a call started twice, a redial -----------------------------------------------------------


def test_the_same_click_again_is_the_same_call(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    first = start(ann, task, now=now + S)
    again = start(ann, task, "Phone", now=now + 2 * S)
    db.session.commit()
    assert again.call_id == first.call_id
    assert the_attempt().call_started_at == now + S
    assert len(events("call.started")) == 1


def test_another_item_while_the_call_goes_on_cancels_it(renewals, ann):
    add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    task, now = deliver(ann)
    first = start(ann, task, now=now + S).call_id
    second = start(ann, task, "Mobile_Phone", now=now + 4 * S).call_id
    db.session.commit()
    assert second != first
    assert [(e["callId"], e["result"], e["ringSeconds"]) for e in events("call.ended")] == [
        (first, "CANCELLED", 3.0)
    ]
    assert [e["phoneKey"] for e in events("call.started")] == ["Phone", "Mobile_Phone"]
    row = the_attempt()
    assert (row.call_id, row.phone_number, row.call_ended_at) == (second, MOBILE, None)
    # The earlier call is still known: its late end is accepted and changes nothing.
    assert event(ann, task, first, "ENDED", "ANSWERED", now=now + 5 * S).call_id == second
    db.session.commit()
    calls = db.session.scalars(select(Call).order_by(Call.started_at)).all()
    assert [(c.call_id, c.phone_key, c.result) for c in calls] == [
        (first, "Phone", "CANCELLED"),
        (second, "Mobile_Phone", None),
    ]
    assert (the_attempt().call_result, len(events("call.ended"))) == (None, 1)


def test_a_redial_after_the_end_is_the_attempts_last_call(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    first = start(ann, task, now=now + S).call_id
    event(ann, task, first, "ENDED", "BUSY", now=now + 9 * S)
    second = start(ann, task, now=now + 60 * S).call_id
    db.session.commit()
    row = the_attempt()
    assert len(attempts()) == 1 and second != first
    assert (row.call_id, row.call_started_at, row.call_ended_at, row.call_result) == (
        second,
        now + 60 * S,
        None,
        None,
    )
    assert len(events("call.started")) == 2
    calls = db.session.scalars(select(Call).order_by(Call.started_at)).all()
    assert [(c.call_id, c.started_at, c.ended_at, c.result) for c in calls] == [
        (first, now + S, now + 9 * S, "BUSY"),
        (second, now + 60 * S, None, None),
    ]


def test_a_task_delivered_before_the_ledger_gets_its_attempt_at_the_call(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    db.session.execute(db.delete(Attempt))
    db.session.commit()
    placed = start(ann, task, now=now + S)
    db.session.commit()
    assert [(a.call_id, a.delivered_at, a.agent_login) for a in attempts()] == [
        (placed.call_id, now + S, "ann")
    ]


# --- its events ----------------------------------------------------------------------------


# (the events sent, each with its seconds after the call's start; what is stored; the
# events recorded)
ORDERS = [
    (
        [("CONNECTED", None, 4), ("ENDED", "ANSWERED", 64)],
        (4, 64, "ANSWERED"),
        ["call.connected", "call.ended"],
    ),
    ([("ENDED", "NO_ANSWER", 30)], (None, 30, "NO_ANSWER"), ["call.ended"]),
    (
        [("ENDED", "BUSY", 5), ("CONNECTED", None, 6)],
        (None, 5, "BUSY"),
        ["call.ended"],
    ),
    (
        [("ENDED", "VOICEMAIL", 20), ("ENDED", "ANSWERED", 21)],
        (None, 20, "VOICEMAIL"),
        ["call.ended"],
    ),
    (
        [("CONNECTED", None, 3), ("CONNECTED", None, 8), ("ENDED", "ANSWERED", 10)],
        (3, 10, "ANSWERED"),
        ["call.connected", "call.ended"],
    ),
]


@pytest.mark.parametrize(
    ("sent", "stored", "recorded"),
    ORDERS,
    ids=["in order", "ended alone", "connected after the end", "ended twice", "connected twice"],
)
def test_events_out_of_order_or_repeated_change_nothing(renewals, ann, sent, stored, recorded):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    placed = start(ann, task, now=now)
    for name, result, after in sent:
        event(ann, task, placed.call_id, name, result, now=now + after * S)
        db.session.commit()
    row = the_attempt()
    connected = row.connected_at and int((row.connected_at - now).total_seconds())
    ended = int((row.call_ended_at - now).total_seconds())
    assert (connected, ended, row.call_result) == stored
    kinds = [r.action for r in audit("call.connected") + audit("call.ended")]
    assert sorted(kinds) == sorted(recorded)
    assert len(events("call.ended")) == 1


def test_call_ended_tells_how_long_it_rang_and_talked(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    placed = start(ann, task, now=now + 10 * S)
    event(ann, task, placed.call_id, "CONNECTED", contact="ct-1", now=now + 14 * S)
    event(ann, task, placed.call_id, "ENDED", "ANSWERED", now=now + 74 * S)
    db.session.commit()
    assert events("call.connected")[0]["contactId"] == "ct-1"
    ended = events("call.ended")[0]
    assert (ended["ringSeconds"], ended["talkSeconds"], ended["contactId"]) == (4.0, 60.0, "ct-1")
    assert ended["result"] == "ANSWERED" and ended["callId"] == placed.call_id


@pytest.mark.parametrize(
    ("name", "result", "field"),
    [
        ("RINGING", None, "event"),
        ("ENDED", None, "result"),
        ("ENDED", "HUNG_UP", "result"),
        ("ENDED", "answered", "result"),
    ],
    ids=["unknown event", "ENDED without result", "unknown result", "result in lower case"],
)
def test_a_bad_event_is_refused_naming_the_field(renewals, ann, name, result, field):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    placed = start(ann, task, now=now)
    db.session.commit()
    with pytest.raises(InvalidInput) as refused:
        event(ann, task, placed.call_id, name, result, now=now + S)
    assert str(refused.value.field) == field
    db.session.rollback()
    assert the_attempt().call_ended_at is None


def test_only_the_agents_call_of_this_task_is_found(renewals, ann, bob):
    add_phones(renewals, "c1")
    add_phones(renewals, "c2")
    task, now = deliver(ann)
    other, _ = deliver(bob, now)
    placed = start(ann, task, now=now)
    db.session.commit()
    for agent, record_id, call_id in (
        (ann, task.record_id, "no-such-call"),
        (bob, task.record_id, placed.call_id),  # another agent's
        (ann, other.record_id, placed.call_id),  # another task's
    ):
        with pytest.raises(CallNotFound):
            call_events.call_event(agent, record_id, call_id, "CONNECTED", actor=SETUP, now=now)


def test_the_end_may_come_after_the_close(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    placed = start(ann, task, now=now + S)
    closing.close_task(ann, task.record_id, "COMPLETE", actor=as_agent(ann), now=now + 20 * S)
    event(ann, task, placed.call_id, "ENDED", "ANSWERED", now=now + 25 * S)
    db.session.commit()
    row = the_attempt()
    assert (row.ended_how, row.call_result) == ("CLOSED", "ANSWERED")
    assert events("task.closed")[0]["call"]["endedAt"] is None  # not known at the close


def test_the_worker_rule_tells_whether_it_changed_anything(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    start(ann, task, now=now)
    row = the_attempt()
    record = call_events.record_call_event
    assert record(row, "CONNECTED", actor=SETUP, now=now + S) is True
    assert record(row, "CONNECTED", actor=SETUP, now=now + 2 * S) is False
    assert record(row, "ENDED", "ANSWERED", "ct-9", actor=SETUP, now=now + 9 * S) is True
    assert record(row, "ENDED", "ANSWERED", actor=SETUP, now=now + 10 * S) is False
    assert row.contact_id == "ct-9"


# --- the trail --------------------------------------------------------------------------------


def test_each_change_leaves_its_audit_record_with_its_event(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    placed = start(ann, task, now=now)
    event(ann, task, placed.call_id, "CONNECTED", now=now + S)
    event(ann, task, placed.call_id, "ENDED", "ANSWERED", now=now + 2 * S)
    db.session.commit()
    for action in ("call.started", "call.connected", "call.ended"):
        (record,) = audit(action)
        assert (record.entity_kind, record.entity_id) == ("task", task.record_id)
        assert (record.actor_kind, record.actor_id) == ("agent", "ann")
        assert record.after["callId"] == placed.call_id
        assert len(events(action)) == 1


def test_a_rolled_back_call_leaves_no_record_no_event(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    start(ann, task, now=now)
    db.session.rollback()
    assert the_attempt().call_id is None
    assert audit("call.started") == [] and events("call.started") == []


def test_task_closed_tells_the_attempts_call(renewals, ann):
    add_phones(renewals, "c1")
    add_phones(renewals, "c2")
    task, now = deliver(ann)
    placed = start(ann, task, now=now + 10 * S)
    event(ann, task, placed.call_id, "CONNECTED", now=now + 15 * S)
    event(ann, task, placed.call_id, "ENDED", "ANSWERED", now=now + 75 * S)
    closing.close_task(ann, task.record_id, "COMPLETE", actor=as_agent(ann), now=now + 95 * S)
    db.session.commit()
    second, later = deliver(ann, now + 100 * S)
    closing.close_task(ann, second.record_id, "COMPLETE", actor=as_agent(ann), now=later + S)
    db.session.commit()
    first_call, no_call = (e["call"] for e in events("task.closed"))
    assert first_call == {
        "callId": placed.call_id,
        "result": "ANSWERED",
        "startedAt": first_call["startedAt"],
        "connectedAt": first_call["connectedAt"],
        "endedAt": first_call["endedAt"],
        "previewSeconds": 10.0,
        "talkSeconds": 60.0,
        "wrapUpSeconds": 20.0,
    }
    assert first_call["startedAt"] == format_time(now + 10 * S)
    assert no_call is None


# --- the contact flow places the call --------------------------------------------------------


@pytest.fixture
def contact_flow(renewals):
    renewals.call_placement = CallPlacement.CONTACT_FLOW.value
    renewals.connect_contact_flow_id = "flow-1"
    renewals.connect_queue_arn = "arn:aws:connect:us-east-1:1:instance/i/queue/q"
    renewals.connect_caller_id = "+14155550000"
    db.session.commit()
    return renewals


def test_the_contact_flow_places_the_call(contact_flow, ann, monkeypatch):
    fake = FakeInstance("contact-42")
    monkeypatch.setattr(placing, "instance_for", lambda tenant: fake)
    task = add_phones(contact_flow, "c1")
    task, now = deliver(ann)
    placed = start(ann, task, now=now + S)
    db.session.commit()
    assert placed.failure is None
    (call,) = fake.calls
    assert (call.destination, call.contact_flow_id, call.caller_id) == (
        PHONE,
        "flow-1",
        "+14155550000",
    )
    assert call.queue_arn == contact_flow.connect_queue_arn
    assert call.client_token == placed.call_id
    assert call.attributes == {
        "previewRecordID": task.record_id,
        "campaignName": "Renewals",
        "clientId": "c1",
    }
    row = the_attempt()
    assert (row.placed_by, row.contact_id) == ("contact-flow", "contact-42")
    assert events("call.started")[0]["contactId"] == "contact-42"


@pytest.mark.parametrize(
    ("instance", "words"),
    [
        (FakeInstance(InstanceError("Amazon Connect refused it: Throttling")), "Amazon Connect"),
        (None, "the embedded instance places no calls"),
    ],
    ids=["instance refuses", "local instance"],
)
def test_a_call_the_contact_centre_cannot_place_ends_failed(
    contact_flow, ann, monkeypatch, instance, words
):
    if instance is not None:
        monkeypatch.setattr(placing, "instance_for", lambda tenant: instance)
    add_phones(contact_flow, "c1")
    task, now = deliver(ann)
    placed = start(ann, task, now=now + S)
    db.session.commit()
    assert placed.failure is not None and words in placed.failure
    row = the_attempt()
    assert (row.call_result, row.call_ended_at, row.ended_how) == ("FAILED", now + S, None)
    assert [e["result"] for e in events("call.ended")] == ["FAILED"]
    assert len(events("call.started")) == 1


def test_a_campaign_without_a_contact_flow_fails_the_call(contact_flow, ann):
    contact_flow.connect_contact_flow_id = None
    db.session.commit()
    add_phones(contact_flow, "c1")
    task, now = deliver(ann)
    placed = start(ann, task, now=now)
    assert "names no contact flow" in placed.failure


# --- no skipping ----------------------------------------------------------------------------


def test_a_campaign_that_forbids_skipping_refuses_the_agents_release(renewals, ann):
    renewals.can_skip = False
    db.session.commit()
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    with pytest.raises(NotAvailable) as refused:
        closing.release_task(ann, task.record_id, actor=as_agent(ann), now=now + S)
    db.session.rollback()
    assert refused.value.message == (
        "the Renewals campaign does not let agents skip a task: close it with an outcome"
    )
    assert the_attempt().ended_how is None


@pytest.mark.parametrize("how", ["offline", "supervisor"])
def test_other_releases_still_end_a_task_that_may_not_be_skipped(renewals, ann, how):
    renewals.can_skip = False
    db.session.commit()
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    if how == "offline":
        agent_state.set_agent_state(ann, "OFFLINE", actor=as_agent(ann), now=now + S)
    else:
        progress.release_by_supervisor(task, actor=SETUP, now=now + S)
    db.session.commit()
    assert the_attempt().ended_how in (EndedHow.RELEASED, EndedHow.TAKEN_BACK)
    assert db.session.scalar(select(Task.reserved_by_id).where(Task.id == task.id)) is None


# --- what the desk reads ----------------------------------------------------------------------


def test_task_attempts_newest_first_and_unknown_task(renewals, ann, bob, acme):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    closing.release_task(ann, task.record_id, actor=as_agent(ann), now=now + S)
    db.session.commit()
    deliver(bob, now + 2 * S)
    assert [a.agent_login for a in placing.task_attempts(acme, task.record_id)] == ["bob", "ann"]
    assert placing.current_call(task).agent_login == "bob"
    with pytest.raises(TaskNotFound):
        placing.task_attempts(acme, "no-such-task")


def test_suggested_codes_are_the_queues_enabled_codes_for_the_result(renewals, ann, acme):
    result = work_codes.create_group(acme, "Result", actor=SETUP)
    topics = work_codes.create_group(acme, "Topics", multiple=True, actor=SETUP)
    other = work_codes.create_group(acme, "Elsewhere", actor=SETUP)
    for group, name, suggested, enabled in (
        (result, "Busy", "BUSY", True),
        (result, "Engaged", "BUSY", False),
        (result, "Sale", "ANSWERED", True),
        (topics, "Line busy", "BUSY", True),
        (other, "Busy elsewhere", "BUSY", True),
    ):
        code = work_codes.add_code(group, name, CodeSettings(), actor=SETUP)
        code.suggested_for, code.enabled = suggested, enabled
    work_codes.set_queue_groups(acme, "Sales", ["Result", "Topics"], actor=SETUP)
    db.session.commit()
    task = add_phones(renewals, "c1")
    assert placing.suggested_codes(task, "BUSY") == [("Result", "Busy"), ("Topics", "Line busy")]
    assert placing.suggested_codes(task, "VOICEMAIL") == []
