"""Amazon Connect placing the call (StartOutboundVoiceContact) and telling how it went
(DescribeContact), through botocore's Stubber against the real service model: every request
is checked against the model and the exact parameters, every answer against its shape."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from botocore.exceptions import ReadTimeoutError

from app.services.contact_centre import InstanceError, OutboundCall, instance_for
from app.services.contact_centre.connect import (
    CALLS_TIMEOUTS,
    AmazonConnect,
    default_client_factory,
    queue_id,
)
from app.services.tenants.setup import set_instance
from tests.conftest import SETUP
from tests.contact_centre.connect_support import (
    ATTRIBUTES,
    CONTACT_ID,
    FLOW_ID,
    INSTANCE_ID,
    QUEUE_ARN,
    QUEUE_ID,
    REGION,
    TOKEN,
)

T0 = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)


def outbound(**changes) -> OutboundCall:
    values = {
        "destination": "+442071234567",
        "contact_flow_id": FLOW_ID,
        "queue_arn": QUEUE_ARN,
        "caller_id": None,
        "attributes": ATTRIBUTES,
        "client_token": TOKEN,
    }
    return OutboundCall(**{**values, **changes})


START = {
    "InstanceId": INSTANCE_ID,
    "DestinationPhoneNumber": "+442071234567",
    "ContactFlowId": FLOW_ID,
    "QueueId": QUEUE_ID,
    "ClientToken": TOKEN,
    "Attributes": ATTRIBUTES,
    "RingTimeoutInSeconds": 30,
}


@pytest.fixture
def instance(acme, connect_client):
    set_instance(acme, "amazon-connect", INSTANCE_ID, REGION, actor=SETUP)
    found = instance_for(acme)
    assert isinstance(found, AmazonConnect)
    return found


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (outbound(), START),
        (
            outbound(caller_id="+442079460000"),
            {**START, "SourcePhoneNumber": "+442079460000"},
        ),
        (
            outbound(queue_arn=None, caller_id="+442079460000"),
            {
                **{k: v for k, v in START.items() if k != "QueueId"},
                "SourcePhoneNumber": "+442079460000",
            },
        ),
    ],
    ids=["queue's caller id", "queue and caller id", "caller id, the flow's queue"],
)
def test_start_outbound_call_asks_the_contact_flow_and_returns_the_contact_id(
    instance, connect_client, call, expected
):
    connect_client.add_response(
        "start_outbound_voice_contact", {"ContactId": CONTACT_ID}, expected_params=expected
    )
    assert instance.start_outbound_call(call) == CONTACT_ID


def test_the_ring_timeout_is_a_setting(app, instance, connect_client):
    app.config["CONNECT_RING_TIMEOUT_SECONDS"] = 45
    connect_client.add_response(
        "start_outbound_voice_contact",
        {"ContactId": CONTACT_ID},
        expected_params={**START, "RingTimeoutInSeconds": 45},
    )
    assert instance.start_outbound_call(outbound()) == CONTACT_ID


def test_a_call_with_neither_queue_nor_caller_id_is_refused_before_asking(instance):
    with pytest.raises(InstanceError, match="outbound queue ARN or its caller id"):
        instance.start_outbound_call(outbound(queue_arn=None))


@pytest.mark.parametrize(
    ("arn", "expected"),
    [(QUEUE_ARN, QUEUE_ID), (QUEUE_ID, QUEUE_ID), (QUEUE_ARN + "/", QUEUE_ID)],
)
def test_queue_id_is_the_last_part_of_the_arn(arn, expected):
    assert queue_id(arn) == expected


@pytest.mark.parametrize(
    ("code", "status", "says"),
    [
        ("ThrottlingException", 429, "too many calls"),
        ("LimitExceededException", 429, "limit of calls"),
        ("DestinationNotAllowedException", 403, "does not allow calls to this number"),
        ("OutboundContactNotPermittedException", 403, "did not permit this outbound call"),
        ("ResourceNotFoundException", 404, "no such contact flow or queue"),
        ("AccessDeniedException", 403, "refused the service's credentials"),
        ("InternalServiceException", 500, "its own error"),
        ("InvalidParameterException", 400, "refused StartOutboundVoiceContact"),
        ("InvalidRequestException", 400, "refused StartOutboundVoiceContact"),
    ],
)
def test_each_refusal_is_a_clear_instance_error(instance, connect_client, code, status, says):
    # (The Stubber answers before the retry handler: retries are the next test's.)
    connect_client.add_client_error(
        "start_outbound_voice_contact",
        service_error_code=code,
        service_message="refused",
        http_status_code=status,
    )
    with pytest.raises(InstanceError, match=says):
        instance.start_outbound_call(outbound())


def test_a_silent_instance_is_tried_twice_then_an_instance_error(app, monkeypatch):
    """The calls' own timeouts: a read that times out is tried once more, then refused."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    client = default_client_factory(REGION, CALLS_TIMEOUTS)
    assert client.meta.config.connect_timeout == 2
    assert client.meta.config.read_timeout == 4
    sent = []

    def time_out(request, **_):
        sent.append(request.url)
        raise ReadTimeoutError(endpoint_url=request.url)

    client.meta.events.register("before-send.connect.StartOutboundVoiceContact", time_out)
    app.config["CONNECT_CLIENT_FACTORY"] = lambda region: client
    instance = AmazonConnect.__new__(AmazonConnect)
    instance.instance_id, instance.region, instance.factory = INSTANCE_ID, REGION, None
    instance.client = client
    instance.calls_client = client
    with pytest.raises(InstanceError, match="could not be reached in time"):
        instance.start_outbound_call(outbound())
    assert len(sent) == 2


def test_the_calls_client_has_the_calls_timeouts(app, acme, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    app.config.pop("CONNECT_CLIENT_FACTORY", None)
    set_instance(acme, "amazon-connect", INSTANCE_ID, REGION, actor=SETUP)
    instance = instance_for(acme)
    config = instance.calls_client.meta.config
    assert (config.connect_timeout, config.read_timeout) == (2, 4)
    assert config.retries == {"total_max_attempts": 2, "mode": "standard"}
    assert instance.client.meta.config.read_timeout == 10


def contact(**fields) -> dict:
    return {
        "Contact": {
            "Id": CONTACT_ID,
            "InitiationMethod": "API",
            "Channel": "VOICE",
            "InitiationTimestamp": T0,
            **fields,
        }
    }


AGENT = {"AgentInfo": {"Id": "agent-1", "ConnectedToAgentTimestamp": T0 + timedelta(seconds=20)}}
ENDED = {"DisconnectTimestamp": T0 + timedelta(seconds=80)}


# The mapping table of docs/amazon-connect.md, row by row.
@pytest.mark.parametrize(
    ("fields", "result"),
    [
        ({}, None),
        ({**AGENT}, None),
        ({**AGENT, **ENDED, "DisconnectReason": "CUSTOMER_DISCONNECT"}, "ANSWERED"),
        ({**AGENT, **ENDED, "DisconnectReason": "AGENT_DISCONNECT"}, "ANSWERED"),
        ({**ENDED, "AnsweringMachineDetectionStatus": "VOICEMAIL_BEEP"}, "VOICEMAIL"),
        ({**ENDED, "AnsweringMachineDetectionStatus": "VOICEMAIL_NO_BEEP"}, "VOICEMAIL"),
        ({**AGENT, **ENDED, "AnsweringMachineDetectionStatus": "VOICEMAIL_BEEP"}, "VOICEMAIL"),
        ({**ENDED, "AnsweringMachineDetectionStatus": "SIT_TONE_BUSY"}, "BUSY"),
        ({**ENDED, "AnsweringMachineDetectionStatus": "SIT_TONE_INVALID_NUMBER"}, "INVALID_NUMBER"),
        ({**ENDED, "AnsweringMachineDetectionStatus": "AMD_UNANSWERED"}, "NO_ANSWER"),
        ({**ENDED, "AnsweringMachineDetectionStatus": "FAX_MACHINE_DETECTED"}, "FAILED"),
        ({**ENDED, "AnsweringMachineDetectionStatus": "SIT_TONE_DETECTED"}, "FAILED"),
        ({**AGENT, **ENDED, "AnsweringMachineDetectionStatus": "HUMAN_ANSWERED"}, "ANSWERED"),
        ({**ENDED, "DisconnectReason": "TELECOM_BUSY"}, "BUSY"),
        ({**ENDED, "DisconnectReason": "TELECOM_NUMBER_INVALID"}, "INVALID_NUMBER"),
        ({**ENDED, "DisconnectReason": "OUTBOUND_DESTINATION_ENDPOINT_ERROR"}, "INVALID_NUMBER"),
        ({**ENDED, "DisconnectReason": "TELECOM_UNANSWERED"}, "NO_ANSWER"),
        ({**ENDED, "DisconnectReason": "TELECOM_TIMEOUT"}, "NO_ANSWER"),
        ({**ENDED, "DisconnectReason": "CUSTOMER_NEVER_ARRIVED"}, "NO_ANSWER"),
        ({**ENDED, "DisconnectReason": "EXPIRED"}, "NO_ANSWER"),
        ({**ENDED, "DisconnectReason": "TELECOM_ORIGINATOR_CANCEL"}, "CANCELLED"),
        ({**ENDED, "DisconnectReason": "OUTBOUND_PREVIEW_DISCARDED"}, "CANCELLED"),
        ({**ENDED, "DisconnectReason": "API"}, "CANCELLED"),
        ({**ENDED, "DisconnectReason": "OUTBOUND_RESOURCE_ERROR"}, "FAILED"),
        ({**ENDED, "DisconnectReason": "OUTBOUND_ATTEMPT_FAILED"}, "FAILED"),
        ({**ENDED, "DisconnectReason": "TELECOM_PROBLEM"}, "FAILED"),
        ({**ENDED, "DisconnectReason": "TELECOM_POTENTIAL_BLOCKING"}, "FAILED"),
        ({**ENDED, "DisconnectReason": "TELECOM_OTHER_ERROR"}, "FAILED"),
        ({**ENDED, "DisconnectReason": "CUSTOMER_DISCONNECT"}, "FAILED"),
        ({**ENDED, "DisconnectReason": "CONTACT_FLOW_DISCONNECT"}, "FAILED"),
        ({**ENDED}, "FAILED"),
    ],
)
def test_describe_contact_reads_times_and_result(instance, connect_client, fields, result):
    connect_client.add_response(
        "describe_contact",
        contact(**fields),
        expected_params={"InstanceId": INSTANCE_ID, "ContactId": CONTACT_ID},
    )
    state = instance.describe_contact(CONTACT_ID)
    assert state.contact_id == CONTACT_ID
    assert state.result == result
    agent = fields.get("AgentInfo", {}).get("ConnectedToAgentTimestamp")
    assert state.connected_at == agent
    assert state.ended_at == fields.get("DisconnectTimestamp")
    for moment in (state.connected_at, state.ended_at):
        assert moment is None or moment.utcoffset() == timedelta(0)


def test_a_contact_connect_does_not_know_is_none(instance, connect_client):
    connect_client.add_client_error(
        "describe_contact", service_error_code="ResourceNotFoundException", http_status_code=404
    )
    assert instance.describe_contact(CONTACT_ID) is None


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("ThrottlingException", 429),
        ("InvalidRequestException", 400),
        ("AccessDeniedException", 403),
    ],
)
def test_describe_refusals_are_instance_errors(instance, connect_client, code, status):
    connect_client.add_client_error(
        "describe_contact", service_error_code=code, http_status_code=status
    )
    with pytest.raises(InstanceError, match=code):
        instance.describe_contact(CONTACT_ID)
