"""Amazon Connect as the tenant's instance via boto3: CreateUser, DescribeUser and DeleteUser
(the users), StartOutboundVoiceContact and DescribeContact (the calls its contact flow places).

boto3 is an optional extra (`pip install -e '.[connect]'`). The client comes from the
CONNECT_CLIENT_FACTORY setting, a callable taking the region, so tests can hand in a
client wired to botocore's Stubber.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from flask import current_app

from app.models import CallResult, PhoneType, Tenant
from app.services.contact_centre.interface import (
    ContactState,
    InstanceError,
    InstanceUser,
    InstanceUserInfo,
    OutboundCall,
)

# A slow instance must not hold a request (and, on SQLite, the write lock) for minutes.
USERS_TIMEOUTS: dict[str, Any] = {
    "connect_timeout": 3,
    "read_timeout": 10,
    "retries": {"max_attempts": 2},
}
# Placing a call answers an agent waiting at the desk (startCall), and the worker asks of
# many calls in one run: at most 2 tries of 2 s + 4 s each. The standard retry mode also
# retries throttling, which is safe: the call's ClientToken places no second call.
CALLS_TIMEOUTS: dict[str, Any] = {
    "connect_timeout": 2,
    "read_timeout": 4,
    "retries": {"total_max_attempts": 2, "mode": "standard"},
}


def default_client_factory(region: str, timeouts: dict[str, Any] = USERS_TIMEOUTS) -> Any:
    try:
        import boto3
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise InstanceError(
            "Amazon Connect support needs boto3: pip install -e '.[connect]'"
        ) from None
    from botocore.config import Config

    return boto3.client("connect", region_name=region, config=Config(**timeouts))


# What each refusal of StartOutboundVoiceContact means, said to the agent and the audit trail.
CALL_REFUSALS = {
    "ThrottlingException": "Amazon Connect is placing too many calls right now: try again "
    "in a moment",
    "LimitExceededException": "Amazon Connect's limit of calls (concurrent or per second) is "
    "reached: try again in a moment",
    "TooManyRequestsException": "Amazon Connect is placing too many calls right now: try "
    "again in a moment",
    "DestinationNotAllowedException": "Amazon Connect does not allow calls to this number "
    "(the instance's allowed countries)",
    "OutboundContactNotPermittedException": "Amazon Connect did not permit this outbound "
    "call (the instance's outbound calls setting, or the queue's)",
    "ResourceNotFoundException": "Amazon Connect has no such contact flow or queue: check the "
    "campaign's contact flow id and outbound queue ARN",
    "AccessDeniedException": "Amazon Connect refused the service's credentials for placing "
    "calls (connect:StartOutboundVoiceContact)",
    "InternalServiceException": "Amazon Connect failed placing the call (its own error): try again",
}

# The outcome of a contact the contact flow placed, from DescribeContact. The answering
# machine detection's status (campaign traffic) first, then whether an agent was
# connected, then the disconnect reason; an ended contact nothing here names is FAILED.
MACHINE_RESULTS = {
    "VOICEMAIL_BEEP": CallResult.VOICEMAIL,
    "VOICEMAIL_NO_BEEP": CallResult.VOICEMAIL,
    "SIT_TONE_BUSY": CallResult.BUSY,
    "SIT_TONE_INVALID_NUMBER": CallResult.INVALID_NUMBER,
    "AMD_UNANSWERED": CallResult.NO_ANSWER,
    "FAX_MACHINE_DETECTED": CallResult.FAILED,
    "SIT_TONE_DETECTED": CallResult.FAILED,
}
DISCONNECT_RESULTS = {
    "TELECOM_BUSY": CallResult.BUSY,
    "TELECOM_NUMBER_INVALID": CallResult.INVALID_NUMBER,
    "OUTBOUND_DESTINATION_ENDPOINT_ERROR": CallResult.INVALID_NUMBER,
    "TELECOM_UNANSWERED": CallResult.NO_ANSWER,
    "TELECOM_TIMEOUT": CallResult.NO_ANSWER,
    "CUSTOMER_NEVER_ARRIVED": CallResult.NO_ANSWER,
    "EXPIRED": CallResult.NO_ANSWER,
    "TELECOM_ORIGINATOR_CANCEL": CallResult.CANCELLED,
    "OUTBOUND_PREVIEW_DISCARDED": CallResult.CANCELLED,
    "API": CallResult.CANCELLED,
    "OUTBOUND_RESOURCE_ERROR": CallResult.FAILED,
    "OUTBOUND_ATTEMPT_FAILED": CallResult.FAILED,
    "TELECOM_PROBLEM": CallResult.FAILED,
    "TELECOM_POTENTIAL_BLOCKING": CallResult.FAILED,
    "TELECOM_OTHER_ERROR": CallResult.FAILED,
}


def contact_result(contact: dict[str, Any]) -> CallResult | None:
    """The call result of DescribeContact's `Contact`; None while it has not ended."""
    if contact.get("DisconnectTimestamp") is None:
        return None
    machine = MACHINE_RESULTS.get(contact.get("AnsweringMachineDetectionStatus", ""))
    if machine is not None:
        return machine
    if (contact.get("AgentInfo") or {}).get("ConnectedToAgentTimestamp") is not None:
        return CallResult.ANSWERED
    return DISCONNECT_RESULTS.get(contact.get("DisconnectReason", ""), CallResult.FAILED)


def _utc(moment: datetime | None) -> datetime | None:
    """In UTC, to the millisecond (the service's precision)."""
    if moment is None:
        return None
    moment = moment.astimezone(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def queue_id(queue_arn: str) -> str:
    """The queue's id, the last part of its ARN (…/instance/ID/queue/QUEUE_ID); an id as is."""
    return queue_arn.rstrip("/").rsplit("/", 1)[-1]


def _snake(operation: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation).lstrip("_")


class AmazonConnect:
    def __init__(self, tenant: Tenant) -> None:
        if not tenant.connect_instance_id or not tenant.connect_region:
            raise InstanceError(
                f"tenant {tenant.label} has no Amazon Connect instance id and region configured"
            )
        self.instance_id = tenant.connect_instance_id
        self.region = tenant.connect_region
        self.factory = current_app.config.get("CONNECT_CLIENT_FACTORY")
        self.client = (self.factory or default_client_factory)(tenant.connect_region)

    @cached_property
    def calls_client(self) -> Any:
        """The client for calls: tighter timeouts than the users' (CALLS_TIMEOUTS)."""
        if self.factory is not None:
            return self.client
        return default_client_factory(self.region, CALLS_TIMEOUTS)

    def _call(
        self,
        operation: str,
        *,
        client: Any = None,
        refusals: dict[str, str] | None = None,
        **params: Any,
    ) -> dict | None:
        """Call the operation; None when Connect answers ResourceNotFoundException (except
        where `refusals` names it). A refusal `refusals` names is said as it says."""
        from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError

        method = getattr(client or self.client, _snake(operation))
        refusals = refusals or {}
        try:
            return method(InstanceId=self.instance_id, **params)
        except ClientError as error:
            detail = error.response.get("Error", {})
            code = detail.get("Code")
            if code in refusals:
                raise InstanceError(refusals[code]) from None
            if code == "ResourceNotFoundException" and operation != "CreateUser":
                return None
            raise InstanceError(
                f"Amazon Connect refused {operation}: {code}: {detail.get('Message')}"
            ) from None
        except ParamValidationError as error:
            raise InstanceError(f"Amazon Connect refused {operation}'s input: {error}") from None
        except BotoCoreError as error:
            raise InstanceError(
                f"Amazon Connect could not be reached in time for {operation}: {error}"
            ) from None

    def create_user(self, user: InstanceUser) -> str:
        template = user.template
        if not template.security_profile_ids or not template.routing_profile_id:
            raise InstanceError(
                f"user template '{template.name}' names no security profile and routing profile "
                "for Amazon Connect"
            )
        identity = {"FirstName": user.first_name, "LastName": user.last_name}
        if user.email:
            identity["Email"] = user.email
        if user.secondary_email:
            identity["SecondaryEmail"] = user.secondary_email
        phone: dict[str, Any] = {
            "PhoneType": template.phone_type,
            "AutoAccept": template.auto_accept,
            "AfterContactWorkTimeLimit": template.after_contact_work_seconds,
        }
        if template.phone_type == PhoneType.DESK_PHONE and template.desk_phone_number:
            phone["DeskPhoneNumber"] = template.desk_phone_number
        params: dict[str, Any] = {
            "Username": user.username,
            "IdentityInfo": identity,
            "PhoneConfig": phone,
            "SecurityProfileIds": list(template.security_profile_ids),
            "RoutingProfileId": template.routing_profile_id,
        }
        if template.hierarchy_group_id:
            params["HierarchyGroupId"] = template.hierarchy_group_id
        return self._call("CreateUser", **params)["UserId"]

    def describe_user(self, user_id: str) -> InstanceUserInfo | None:
        answer = self._call("DescribeUser", UserId=user_id)
        if answer is None:
            return None
        return InstanceUserInfo(answer["User"]["Id"], answer["User"]["Username"])

    def delete_user(self, user_id: str) -> bool:
        return self._call("DeleteUser", UserId=user_id) is not None

    def start_outbound_call(self, call: OutboundCall) -> str:
        params: dict[str, Any] = {
            "DestinationPhoneNumber": call.destination,
            "ContactFlowId": call.contact_flow_id,
            "ClientToken": call.client_token,
            "Attributes": dict(call.attributes),
            "RingTimeoutInSeconds": current_app.config.get("CONNECT_RING_TIMEOUT_SECONDS", 30),
        }
        if call.queue_arn:
            params["QueueId"] = queue_id(call.queue_arn)
        if call.caller_id:
            params["SourcePhoneNumber"] = call.caller_id
        if "QueueId" not in params and "SourcePhoneNumber" not in params:
            raise InstanceError(
                "Amazon Connect needs the campaign's outbound queue ARN or its caller id "
                "to place a call"
            )
        answer = self._call(
            "StartOutboundVoiceContact",
            client=self.calls_client,
            refusals=CALL_REFUSALS,
            **params,
        )
        return answer["ContactId"]

    def describe_contact(self, contact_id: str) -> ContactState | None:
        answer = self._call("DescribeContact", client=self.calls_client, ContactId=contact_id)
        if answer is None:
            return None
        contact = answer["Contact"]
        result = contact_result(contact)
        return ContactState(
            contact_id=contact.get("Id", contact_id),
            connected_at=_utc((contact.get("AgentInfo") or {}).get("ConnectedToAgentTimestamp")),
            ended_at=_utc(contact.get("DisconnectTimestamp")),
            result=None if result is None else result.value,
        )
