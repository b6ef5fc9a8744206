"""Server-side dialling end to end: a campaign whose calls Amazon Connect's contact flow
places; startCall asks StartOutboundVoiceContact, and the worker learns the call's
connection and result from DescribeContact (botocore's Stubber on the real service model),
recording them on the attempt with their events and audit records. Controlled clock."""

from __future__ import annotations

import logging

import pytest
from botocore.stub import ANY

from app.extensions import db
from app.jobs import clock
from app.jobs.queue import huey
from app.models.campaigns import CallPlacement
from app.services.dialer import contact_flow
from app.services.dialer.call_events import ENDED, call_event
from app.services.dialer.contact_flow import GIVE_UP, UNKNOWN_GRACE, follow_calls
from app.services.dialer.placing import start_call
from app.services.tenants.setup import set_instance
from tests.calls.calls_support import (
    PHONE,
    S,
    add_phones,
    as_agent,
    attempts,
    audit,
    deliver,
    events,
)
from tests.conftest import SETUP
from tests.contact_centre.connect_support import FLOW_ID, INSTANCE_ID, QUEUE_ARN, QUEUE_ID, REGION
from tests.delivery.delivery_support import make_agent

CONTACTS = [f"c0ffee00-0000-4000-8000-00000000000{n}" for n in range(1, 6)]


@pytest.fixture
def flow_campaign(acme, renewals, connect_client):
    """Acme on Amazon Connect; Renewals' calls placed by its contact flow."""
    set_instance(acme, "amazon-connect", INSTANCE_ID, REGION, actor=SETUP)
    renewals.call_placement = CallPlacement.CONTACT_FLOW.value
    renewals.connect_contact_flow_id = FLOW_ID
    renewals.connect_queue_arn = QUEUE_ARN
    db.session.commit()
    return renewals


def placed(connect_client, agent, client_id, contact_id):
    """The agent is delivered task `client_id` and starts its call, which Connect places;
    (the task, the call's start)."""
    add_phones(agent_campaign(agent), client_id)
    task, now = deliver(agent)
    connect_client.add_response(
        "start_outbound_voice_contact",
        {"ContactId": contact_id},
        expected_params={
            "InstanceId": INSTANCE_ID,
            "DestinationPhoneNumber": PHONE,
            "ContactFlowId": FLOW_ID,
            "QueueId": QUEUE_ID,
            "ClientToken": ANY,
            "Attributes": {
                "previewRecordID": task.record_id,
                "campaignName": "Renewals",
                "clientId": client_id,
            },
            "RingTimeoutInSeconds": 30,
        },
    )
    call = start_call(agent, task.record_id, actor=as_agent(agent), now=now + S)
    assert call.failure is None
    db.session.commit()
    return task, now + S


def agent_campaign(agent):
    from app.services.campaigns.catalogue import find_campaign

    return find_campaign(agent.tenant, "Renewals")


def described(connect_client, contact_id, **fields):
    connect_client.add_response(
        "describe_contact",
        {
            "Contact": {
                "Id": contact_id,
                "Channel": "VOICE",
                "InitiationMethod": "API",
                **fields,
            }
        },
        expected_params={"InstanceId": INSTANCE_ID, "ContactId": contact_id},
    )


def refused(connect_client, code="ThrottlingException", status=429):
    connect_client.add_client_error(
        "describe_contact", service_error_code=code, http_status_code=status
    )


def test_the_worker_records_connection_then_result_with_events(flow_campaign, connect_client, ann):
    task, started = placed(connect_client, ann, "c1", CONTACTS[0])
    (attempt,) = attempts()
    assert (attempt.placed_by, attempt.contact_id) == ("contact-flow", CONTACTS[0])
    assert events("call.started")[0]["contactId"] == CONTACTS[0]

    # Ringing: nothing to record.
    described(connect_client, CONTACTS[0], InitiationTimestamp=started)
    assert follow_calls(started + 5 * S) == {"asked": 1, "changed": 0}
    assert events("call.connected") == []

    # Connected to ann 20 s after the start: recorded at Connect's time.
    agent = {"Id": "agent-1", "ConnectedToAgentTimestamp": started + 20 * S}
    described(connect_client, CONTACTS[0], InitiationTimestamp=started, AgentInfo=agent)
    assert follow_calls(started + 25 * S) == {"asked": 1, "changed": 1}
    (attempt,) = attempts()
    assert attempt.connected_at == started + 20 * S
    assert attempt.call_ended_at is None

    # Asked again while talking: nothing new.
    described(connect_client, CONTACTS[0], InitiationTimestamp=started, AgentInfo=agent)
    assert follow_calls(started + 30 * S) == {"asked": 1, "changed": 0}

    # The customer hangs up at 80 s.
    described(
        connect_client,
        CONTACTS[0],
        InitiationTimestamp=started,
        AgentInfo=agent,
        DisconnectTimestamp=started + 80 * S,
        DisconnectReason="CUSTOMER_DISCONNECT",
    )
    assert follow_calls(started + 85 * S) == {"asked": 1, "changed": 1}
    (attempt,) = attempts()
    assert (attempt.call_result, attempt.call_ended_at) == ("ANSWERED", started + 80 * S)
    (ended,) = events("call.ended")
    assert ended["previewRecordID"] == task.record_id
    assert (ended["result"], ended["ringSeconds"], ended["talkSeconds"]) == ("ANSWERED", 20, 60)
    assert len(events("call.connected")) == 1
    for action in ("call.connected", "call.ended"):
        (row,) = audit(action)
        assert (row.actor_kind, row.actor_id) == ("system", "contact flow")

    # An ended call is no longer asked about (the Stubber has nothing queued).
    assert follow_calls(started + 90 * S) == {"asked": 0, "changed": 0}


@pytest.mark.parametrize(
    ("fields", "result"),
    [
        ({"DisconnectReason": "TELECOM_UNANSWERED"}, "NO_ANSWER"),
        ({"DisconnectReason": "TELECOM_BUSY"}, "BUSY"),
        ({"AnsweringMachineDetectionStatus": "VOICEMAIL_BEEP"}, "VOICEMAIL"),
        ({"DisconnectReason": "OUTBOUND_DESTINATION_ENDPOINT_ERROR"}, "INVALID_NUMBER"),
    ],
)
def test_a_call_never_connected_ends_with_connects_result(
    flow_campaign, connect_client, ann, fields, result
):
    _task, started = placed(connect_client, ann, "c1", CONTACTS[0])
    described(connect_client, CONTACTS[0], DisconnectTimestamp=started + 30 * S, **fields)
    assert follow_calls(started + 40 * S)["changed"] == 1
    (attempt,) = attempts()
    assert (attempt.connected_at, attempt.call_result) == (None, result)
    assert events("call.connected") == []
    assert [e["result"] for e in events("call.ended")] == [result]


def test_a_contact_connect_does_not_know_ends_failed_after_the_grace(
    flow_campaign, connect_client, ann
):
    _task, started = placed(connect_client, ann, "c1", CONTACTS[0])
    connect_client.add_client_error(
        "describe_contact", service_error_code="ResourceNotFoundException", http_status_code=404
    )
    assert follow_calls(started + UNKNOWN_GRACE - S)["changed"] == 0
    assert attempts()[0].call_ended_at is None
    connect_client.add_client_error(
        "describe_contact", service_error_code="ResourceNotFoundException", http_status_code=404
    )
    assert follow_calls(started + UNKNOWN_GRACE)["changed"] == 1
    (attempt,) = attempts()
    assert (attempt.call_result, attempt.call_ended_at) == ("FAILED", started + UNKNOWN_GRACE)


def test_a_call_not_ended_after_the_limit_ends_failed(flow_campaign, connect_client, ann):
    _task, started = placed(connect_client, ann, "c1", CONTACTS[0])
    described(connect_client, CONTACTS[0], InitiationTimestamp=started)
    assert follow_calls(started + GIVE_UP - S)["changed"] == 0
    described(connect_client, CONTACTS[0], InitiationTimestamp=started)
    assert follow_calls(started + GIVE_UP)["changed"] == 1
    assert attempts()[0].call_result == "FAILED"
    assert follow_calls(started + GIVE_UP + S) == {"asked": 0, "changed": 0}


def test_a_failing_instance_leaves_its_calls_for_the_next_run(
    flow_campaign, connect_client, ann, bob, caplog
):
    _t1, first = placed(connect_client, ann, "c1", CONTACTS[0])
    _t2, _second = placed(connect_client, bob, "c2", CONTACTS[1])
    refused(connect_client)  # the first call's question; the second is not asked
    connect_client.sent.clear()
    with caplog.at_level(logging.WARNING):
        assert follow_calls(first + 60 * S) == {"asked": 0, "changed": 0}
    assert connect_client.sent == ["DescribeContact"]
    assert "ThrottlingException" in caplog.text
    assert [a.call_ended_at for a in attempts()] == [None, None]
    for contact in CONTACTS[:2]:
        described(
            connect_client,
            contact,
            DisconnectTimestamp=first + 30 * S,
            DisconnectReason="TELECOM_UNANSWERED",
        )
    assert follow_calls(first + 61 * S) == {"asked": 2, "changed": 2}
    assert [a.call_result for a in attempts()] == ["NO_ANSWER", "NO_ANSWER"]


def test_each_run_asks_of_at_most_per_tenant_calls_oldest_first(flow_campaign, connect_client):
    agents = [make_agent(flow_campaign.tenant, f"agent{n}") for n in range(3)]
    starts = [
        placed(connect_client, agent, f"c{n}", CONTACTS[n])[1] for n, agent in enumerate(agents)
    ]
    for contact in CONTACTS[:2]:
        described(connect_client, contact, InitiationTimestamp=starts[0])
    assert follow_calls(starts[2] + S, per_tenant=2) == {"asked": 2, "changed": 0}


def test_the_desk_reporting_the_end_first_wins(flow_campaign, connect_client, ann):
    task, started = placed(connect_client, ann, "c1", CONTACTS[0])
    pending = contact_flow.pending_calls()
    (call,) = pending[flow_campaign.tenant_id]
    (attempt,) = attempts()
    call_event(
        ann,
        task.record_id,
        attempt.call_id,
        ENDED,
        "BUSY",
        actor=as_agent(ann),
        now=started + 10 * S,
    )
    db.session.commit()
    # What the worker learnt meanwhile changes nothing.
    described(
        connect_client,
        CONTACTS[0],
        DisconnectTimestamp=started + 12 * S,
        DisconnectReason="TELECOM_UNANSWERED",
    )
    state = contact_flow.instance_for(flow_campaign.tenant).describe_contact(CONTACTS[0])
    assert contact_flow.apply_state(call, state, started + 20 * S) is False
    db.session.commit()
    assert attempts()[0].call_result == "BUSY"
    assert [e["result"] for e in events("call.ended")] == ["BUSY"]
    (row,) = audit("call.ended")
    assert row.actor_kind == "agent"


def test_a_replaced_call_is_not_changed_by_its_predecessors_contact(
    flow_campaign, connect_client, ann
):
    """The agent redialled (a new call on the attempt) after the worker listed the old one."""
    _task, started = placed(connect_client, ann, "c1", CONTACTS[0])
    (call,) = contact_flow.pending_calls()[flow_campaign.tenant_id]
    (attempt,) = attempts()
    attempt.call_id = "another-call"
    db.session.commit()
    state = contact_flow.ContactState(CONTACTS[0], None, started + 5 * S, "NO_ANSWER")
    assert contact_flow.apply_state(call, state, started + 10 * S) is False
    assert attempts()[0].call_ended_at is None


def test_the_clock_follows_calls_every_call_follow_seconds(app, flow_campaign, connect_client, ann):
    _task, started = placed(connect_client, ann, "c1", CONTACTS[0])
    huey.get(clock.FOLLOWED)  # no earlier run
    app.config["CALL_FOLLOW_SECONDS"] = 60
    described(connect_client, CONTACTS[0], DisconnectTimestamp=started + 5 * S)
    assert clock.follow_placed_calls(started + 10 * S) == {"asked": 1, "changed": 1}
    assert clock.follow_placed_calls(started + 11 * S) is None  # within the interval
    assert clock.follow_placed_calls in clock.EVERY_TICK


def test_calls_of_a_tenant_no_longer_on_amazon_connect_end_failed_after_the_grace(
    flow_campaign, connect_client, ann
):
    _task, started = placed(connect_client, ann, "c1", CONTACTS[0])
    set_instance(flow_campaign.tenant, "local", actor=SETUP)
    db.session.commit()
    connect_client.sent.clear()
    assert follow_calls(started + UNKNOWN_GRACE - S) == {"asked": 1, "changed": 0}
    assert follow_calls(started + UNKNOWN_GRACE) == {"asked": 1, "changed": 1}
    assert connect_client.sent == []  # the local instance knows no contact
    assert attempts()[0].call_result == "FAILED"


def test_the_desk_api_starts_the_call_and_the_worker_ends_it(
    app, desk_api, flow_campaign, connect_client
):
    make_agent(flow_campaign.tenant, "carl")
    add_phones(flow_campaign, "c1")
    desk_api("setAgentState", agent="carl", state="AVAILABLE")
    record_id = desk_api("nextTask", agent="carl")["task"]["previewRecordID"]
    connect_client.add_response("start_outbound_voice_contact", {"ContactId": CONTACTS[0]})
    answer = desk_api("startCall", agent="carl", previewRecordID=record_id)
    assert answer["result"] == "SUCCESS", answer
    (attempt,) = attempts()
    assert attempt.contact_id == CONTACTS[0]
    assert answer["call"]["callId"] == attempt.call_id

    started = attempt.call_started_at
    described(
        connect_client,
        CONTACTS[0],
        DisconnectTimestamp=started + 40 * S,
        DisconnectReason="TELECOM_BUSY",
    )
    app.config["CALL_FOLLOW_SECONDS"] = 0
    clock.run_all(clock.EVERY_TICK, started + 45 * S)
    (attempt,) = attempts()
    assert attempt.call_result == "BUSY"
    listed = desk_api("taskAttempts", agent="carl", previewRecordID=record_id)
    assert listed["result"] == "SUCCESS", listed


@pytest.mark.parametrize(
    ("code", "status", "says"),
    [
        ("DestinationNotAllowedException", 403, "does not allow calls to this number"),
        ("LimitExceededException", 429, "limit of calls"),
    ],
)
def test_the_desk_api_says_why_connect_refused_the_call(
    desk_api, flow_campaign, connect_client, code, status, says
):
    make_agent(flow_campaign.tenant, "carl")
    add_phones(flow_campaign, "c1")
    desk_api("setAgentState", agent="carl", state="AVAILABLE")
    record_id = desk_api("nextTask", agent="carl")["task"]["previewRecordID"]
    connect_client.add_client_error(
        "start_outbound_voice_contact", service_error_code=code, http_status_code=status
    )
    answer = desk_api("startCall", agent="carl", previewRecordID=record_id)
    assert answer["result"] == "FAIL"
    assert says in answer["message"]
    (attempt,) = attempts()
    assert (attempt.call_result, attempt.contact_id) == ("FAILED", None)
    assert [e["result"] for e in events("call.ended")] == ["FAILED"]
