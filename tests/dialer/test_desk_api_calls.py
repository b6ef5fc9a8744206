"""The Desk API's calls: startCall, callEvent and taskAttempts as published, their results
for each refusal, nextTask's dialling settings, and no skipping on the page and the API."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, Task
from app.models.campaigns import CallPlacement
from app.services.campaigns import life_cycle
from app.services.contact_centre import InstanceError
from app.services.dialer import placing
from app.services.dnc import numbers as dnc
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from app.services.work_codes import groups as work_codes
from app.services.work_codes.groups import CodeSettings
from tests.admin.conftest import csrf_token, page
from tests.calls.calls_support import MOBILE, PHONE, FakeInstance, add_phones, events
from tests.conftest import SETUP
from tests.desk.desk_support import desk_session


@pytest.fixture
def desk(desk_api):
    """The Desk API, called as tenant Acme/prod, each answer checked against its schema."""
    return desk_api


def holding(desk, agent: str = "ann") -> str:
    """The agent, AVAILABLE, receives the next task: its previewRecordID."""
    desk("setAgentState", agent=agent, state="AVAILABLE")
    return desk("nextTask", agent=agent)["task"]["previewRecordID"]


def test_a_call_from_start_to_close(desk, renewals, ann):
    add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    record_id = holding(desk)
    started = desk("startCall", agent="ann", previewRecordID=record_id, phoneKey="Mobile_Phone")
    assert started["result"] == "SUCCESS", started
    call = started["call"]
    assert (call["phoneNumber"], call["key"]) == (MOBILE, "Mobile_Phone")
    connected = desk(
        "callEvent",
        agent="ann",
        previewRecordID=record_id,
        callId=call["callId"],
        event="CONNECTED",
        contactId="ct-1",
    )
    assert connected["result"] == "SUCCESS"
    assert connected["attempt"]["connectedAt"] is not None
    ended = desk(
        "callEvent",
        agent="ann",
        previewRecordID=record_id,
        callId=call["callId"],
        event="ENDED",
        result="ANSWERED",
    )
    assert (ended["result"], ended["attempt"]["callResult"]) == ("SUCCESS", "ANSWERED")
    closed = desk(
        "closeTask",
        agent="ann",
        previewRecordID=record_id,
        outcome="COMPLETE",
        workCodes=[{"key": "Outcome", "value": "Sale"}],
    )
    assert closed["result"] == "SUCCESS"
    (attempt,) = desk("taskAttempts", agent="ann", previewRecordID=record_id)["attempts"]
    assert {k: attempt[k] for k in ("agent", "callResult", "contactId", "phoneKey")} == {
        "agent": "ann",
        "callResult": "ANSWERED",
        "contactId": "ct-1",
        "phoneKey": "Mobile_Phone",
    }
    assert (attempt["outcome"], attempt["endedHow"]) == ("COMPLETE", "CLOSED")
    assert attempt["workCodes"] == [{"key": "Outcome", "value": "Sale"}]
    assert attempt["deliveredAt"] <= attempt["callStartedAt"] <= attempt["connectedAt"]
    assert attempt["connectedAt"] <= attempt["callEndedAt"] <= attempt["closedAt"]
    for name in ("previewSeconds", "talkSeconds", "wrapUpSeconds"):
        assert attempt[name] >= 0
    assert events("task.closed")[0]["call"]["callId"] == call["callId"]


def _listed(acme, renewals):
    dnc.add_numbers(acme, [PHONE], actor=SETUP)


def _paused(acme, renewals):
    life_cycle.change_status(renewals, "pause", actor=SETUP)


# (what changes after the delivery, the fields sent, the result, words of the message)
STARTS = [
    (_listed, {}, "NOT_AVAILABLE", "on the do-not-call list"),
    (_paused, {}, "NOT_AVAILABLE", "the Renewals campaign is paused"),
    (None, {"phoneKey": "Fax"}, "INVALID_ARGUMENTS", "phoneKey 'Fax'"),
    (None, {"phoneKey": 7}, "INVALID_ARGUMENTS", "phoneKey"),
    (None, {"previewRecordID": "nobody's"}, "NOT_AVAILABLE", "task 'nobody's' is not yours"),
    (None, {"previewRecordID": None}, "INVALID_ARGUMENTS", "previewRecordID"),
    (None, {"agent": "nobody"}, "INVALID_ARGUMENTS", "agent 'nobody'"),
]


@pytest.mark.parametrize(
    ("change", "fields", "result", "words"),
    STARTS,
    ids=["listed", "paused", "unknown key", "key not text", "not held", "no id", "no agent"],
)
def test_start_call_refusals(desk, acme, renewals, ann, change, fields, result, words):
    add_phones(renewals, "c1")
    record_id = holding(desk)
    if change is not None:
        change(acme, renewals)
        db.session.commit()
    answer = desk("startCall", **{"agent": "ann", "previewRecordID": record_id, **fields})
    assert (answer["result"], answer["call"]) == (result, None), answer
    assert words in answer["message"]
    db.session.expire_all()
    assert db.session.scalar(select(Attempt.call_id)) is None
    assert events("call.started") == []


@pytest.mark.parametrize(
    ("fields", "result", "words"),
    [
        ({"callId": "no-such-call"}, "NOT_FOUND", "no call 'no-such-call'"),
        ({"event": "RINGING"}, "INVALID_ARGUMENTS", "event 'RINGING'"),
        ({"event": "ENDED"}, "INVALID_ARGUMENTS", "result is required with ENDED"),
        ({"event": "ENDED", "result": "HUNG_UP"}, "INVALID_ARGUMENTS", "result 'HUNG_UP'"),
        ({"event": None}, "INVALID_ARGUMENTS", "event"),
        ({"contactId": "x" * 256}, "INVALID_ARGUMENTS", "contactId"),
    ],
    ids=["unknown call", "unknown event", "no result", "bad result", "no event", "long id"],
)
def test_call_event_refusals(desk, renewals, ann, fields, result, words):
    add_phones(renewals, "c1")
    record_id = holding(desk)
    call_id = desk("startCall", agent="ann", previewRecordID=record_id)["call"]["callId"]
    body = {"agent": "ann", "previewRecordID": record_id, "callId": call_id, "event": "CONNECTED"}
    answer = desk("callEvent", **{**body, **fields})
    assert (answer["result"], answer["attempt"]) == (result, None), answer
    assert words in answer["message"]
    db.session.expire_all()
    assert db.session.scalar(select(Attempt.connected_at)) is None


def test_a_repeated_event_answers_success_and_changes_nothing(desk, renewals, ann):
    add_phones(renewals, "c1")
    record_id = holding(desk)
    call_id = desk("startCall", agent="ann", previewRecordID=record_id)["call"]["callId"]
    body = {"agent": "ann", "previewRecordID": record_id, "callId": call_id}
    first = desk("callEvent", **body, event="ENDED", result="BUSY")
    again = desk("callEvent", **body, event="ENDED", result="ANSWERED")
    late = desk("callEvent", **body, event="CONNECTED")
    assert [a["result"] for a in (first, again, late)] == ["SUCCESS"] * 3
    assert again["attempt"] == first["attempt"] == late["attempt"]
    assert len(events("call.ended")) == 1 and events("call.connected") == []


def test_another_agent_may_read_any_task_attempts(desk, acme, renewals, ann, bob):
    add_phones(renewals, "c1")
    record_id = holding(desk)
    desk("releaseTask", agent="ann", previewRecordID=record_id)
    assert holding(desk, "bob") == record_id
    answer = desk("taskAttempts", agent="ann", previewRecordID=record_id)
    assert [(a["agent"], a["endedHow"]) for a in answer["attempts"]] == [
        ("bob", None),
        ("ann", "RELEASED"),
    ]
    unknown = desk("taskAttempts", agent="ann", previewRecordID="no-such-task")
    assert (unknown["result"], unknown["attempts"]) == ("NOT_FOUND", None)


def test_a_call_the_contact_centre_fails_answers_fail_and_is_kept(desk, renewals, ann, monkeypatch):
    failing = FakeInstance(InstanceError("Amazon Connect could not be reached"))
    monkeypatch.setattr(placing, "instance_for", lambda tenant: failing)
    renewals.call_placement = CallPlacement.CONTACT_FLOW.value
    renewals.connect_contact_flow_id = "flow-1"
    db.session.commit()
    add_phones(renewals, "c1")
    record_id = holding(desk)
    answer = desk("startCall", agent="ann", previewRecordID=record_id)
    assert answer["result"] == "FAIL"
    assert answer["message"] == "Amazon Connect could not be reached"
    db.session.expire_all()
    row = db.session.scalar(select(Attempt))
    assert (row.call_id, row.call_result) == (answer["call"]["callId"], "FAILED")
    assert [e["result"] for e in events("call.ended")] == ["FAILED"]


# --- nextTask ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "seconds", "can_skip", "expected"),
    [
        ("preview", None, True, ("PREVIEW", None, True)),
        ("progressive", 15, False, ("PROGRESSIVE", 15, False)),
        ("preview", 30, True, ("PREVIEW", 30, True)),
    ],
    ids=["preview", "progressive", "preview with a countdown"],
)
def test_next_task_tells_how_the_desk_dials(desk, renewals, ann, kind, seconds, can_skip, expected):
    renewals.type, renewals.auto_dial_seconds, renewals.can_skip = kind, seconds, can_skip
    db.session.commit()
    desk("setAgentState", agent="ann", state="AVAILABLE")
    empty = desk("nextTask", agent="ann")
    assert (empty["dialMode"], empty["autoDialSeconds"], empty["canSkip"]) == (None, None, None)
    add_phones(renewals, "c1")
    answer = desk("nextTask", agent="ann")
    assert (answer["dialMode"], answer["autoDialSeconds"], answer["canSkip"]) == expected


def test_next_task_names_each_codes_suggested_result(desk, acme, renewals, ann):
    group = work_codes.create_group(acme, "Result", actor=SETUP)
    busy = work_codes.add_code(group, "Busy", CodeSettings("", 1, "RESCHEDULE", 30), actor=SETUP)
    busy.suggested_for = "BUSY"
    work_codes.add_code(group, "Sale", CodeSettings("", 2, "COMPLETE"), actor=SETUP)
    work_codes.set_queue_groups(acme, "Sales", ["Result"], actor=SETUP)
    db.session.commit()
    add_phones(renewals, "c1")
    holding(desk)
    (offered,) = desk("nextTask", agent="ann")["workCodeGroups"]
    assert [(c["name"], c["suggestedFor"]) for c in offered["codes"]] == [
        ("Busy", "BUSY"),
        ("Sale", None),
    ]


# --- no skipping -----------------------------------------------------------------------------


def test_no_skip_on_the_api(desk, renewals, ann):
    renewals.can_skip = False
    db.session.commit()
    add_phones(renewals, "c1")
    record_id = holding(desk)
    answer = desk("releaseTask", agent="ann", previewRecordID=record_id)
    assert (answer["result"], answer["task"]) == ("NOT_AVAILABLE", None)
    assert answer["message"] == (
        "the Renewals campaign does not let agents skip a task: close it with an outcome"
    )
    assert desk("nextTask", agent="ann")["task"]["previewRecordID"] == record_id
    offline = desk("setAgentState", agent="ann", state="OFFLINE")
    assert offline["result"] == "SUCCESS"  # going offline still releases it
    db.session.expire_all()
    assert db.session.scalar(select(Task.reserved_by_id)) is None


def test_no_skip_on_the_desk_page(client, renewals, ann):
    renewals.can_skip = False
    db.session.commit()
    add_phones(renewals, "c1")
    desk_session(client, ann)
    token = csrf_token(page(client, "/desk"))
    client.post("/desk/state", data={"state": "AVAILABLE", "csrf_token": token})
    shown = page(client, "/desk")
    record_id = shown.find("article", class_="desk-task")["data-record-id"]
    token = csrf_token(shown)
    response = client.post(f"/desk/tasks/{record_id}/release", data={"csrf_token": token})
    assert response.status_code == 302
    db.session.expire_all()
    assert db.session.scalar(select(Task.reserved_by_id)) == ann.id
    said = page(client, "/desk").get_text(" ", strip=True)
    assert "does not let agents skip a task" in said


def test_the_task_pages_history_tells_the_call(desk, signed_in, acme, renewals, ann):
    add_phones(renewals, "c1")
    record_id = holding(desk)
    call_id = desk("startCall", agent="ann", previewRecordID=record_id)["call"]["callId"]
    body = {"agent": "ann", "previewRecordID": record_id, "callId": call_id}
    desk("callEvent", **body, event="ENDED", result="BUSY")
    said = page(signed_in, f"/tenants/{acme.id}/tasks/{record_id}").get_text(" ", strip=True)
    assert "call.started" in said and "call.ended" in said and "BUSY" in said


def test_a_redial_is_a_call_of_its_own_in_task_attempts(desk, renewals, ann, acme):
    """nextTask suggests the number to dial (the first callable one), says of each number
    whether it may be called; startCall without phoneKey dials it; a redial on the next
    number is a second call; taskAttempts lists both, oldest first, and the attempt's call
    fields are its last call's."""
    add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    dnc.add_numbers(acme, ["+14155550111"], actor=SETUP)
    add_or_update_task(
        renewals,
        "c1",
        [ItemInput("Name", "C1"), ItemInput("Phone", PHONE), ItemInput("Mobile_Phone", MOBILE),
         ItemInput("Work_Phone", "+14155550111")],
        actor=SETUP,
    )  # fmt: skip
    db.session.commit()
    desk("setAgentState", agent="ann", state="AVAILABLE")
    offered = desk("nextTask", agent="ann")
    assert offered["suggestedPhoneKey"] == "Phone"
    details = {d["key"]: d for d in offered["task"]["agentView"]["details"]}
    assert (details["Phone"]["callable"], details["Phone"]["blockedBy"]) == (True, None)
    assert details["Work_Phone"]["callable"] is False
    assert (
        details["Work_Phone"]["blockedBy"] == "DO_NOT_CALL: +14155550111 is on the do-not-call list"
    )
    record_id = offered["task"]["previewRecordID"]
    first = desk("startCall", agent="ann", previewRecordID=record_id)["call"]
    assert first["key"] == "Phone"
    desk("callEvent", agent="ann", previewRecordID=record_id, callId=first["callId"],
         event="ENDED", result="NO_ANSWER")  # fmt: skip
    assert desk("nextTask", agent="ann")["suggestedPhoneKey"] == "Mobile_Phone"
    second = desk("startCall", agent="ann", previewRecordID=record_id)["call"]
    assert second["key"] == "Mobile_Phone"
    desk("callEvent", agent="ann", previewRecordID=record_id, callId=second["callId"],
         event="CONNECTED")  # fmt: skip
    # The first call's id is still known: a repeated end answers SUCCESS, changing nothing.
    late = desk("callEvent", agent="ann", previewRecordID=record_id, callId=first["callId"],
                event="ENDED", result="ANSWERED")  # fmt: skip
    assert late["result"] == "SUCCESS" and late["attempt"]["callResult"] is None
    desk("callEvent", agent="ann", previewRecordID=record_id, callId=second["callId"],
         event="ENDED", result="ANSWERED")  # fmt: skip
    (attempt,) = desk("taskAttempts", agent="ann", previewRecordID=record_id)["attempts"]
    calls = attempt["calls"]
    assert [(c["callId"], c["phoneKey"], c["phoneNumber"], c["result"]) for c in calls] == [
        (first["callId"], "Phone", PHONE, "NO_ANSWER"),
        (second["callId"], "Mobile_Phone", MOBILE, "ANSWERED"),
    ]
    assert calls[0]["connectedAt"] is None and calls[1]["connectedAt"] is not None
    assert calls[0]["startedAt"] <= calls[0]["endedAt"] <= calls[1]["startedAt"]
    assert calls[1]["startedAt"] <= calls[1]["connectedAt"] <= calls[1]["endedAt"]
    assert (attempt["callResult"], attempt["phoneKey"]) == ("ANSWERED", "Mobile_Phone")
    assert (attempt["callStartedAt"], attempt["callEndedAt"]) == (
        calls[1]["startedAt"],
        calls[1]["endedAt"],
    )


def test_a_task_without_a_phone_item_suggests_none(desk, renewals, ann):
    add_or_update_task(renewals, "c1", [ItemInput("Name", "C1")], actor=SETUP)
    db.session.commit()
    desk("setAgentState", agent="ann", state="AVAILABLE")
    offered = desk("nextTask", agent="ann")
    assert offered["task"] is not None, offered
    assert offered["dialMode"] == "PREVIEW"
    assert offered["suggestedPhoneKey"] is None
