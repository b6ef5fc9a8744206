"""The one small interface every contact-centre instance offers, and its values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from app.models import UserTemplate
from app.services.errors import ServiceError


class InstanceError(ServiceError):
    """The contact-centre instance refused or failed a call."""


@dataclass(frozen=True)
class InstanceUser:
    """What the instance needs to create a user."""

    username: str
    first_name: str
    last_name: str
    email: str | None
    secondary_email: str | None
    template: UserTemplate


@dataclass(frozen=True)
class InstanceUserInfo:
    """What the instance tells of an existing user."""

    user_id: str
    username: str


@dataclass(frozen=True)
class OutboundCall:
    """A call the contact centre's contact flow places (Amazon Connect's
    StartOutboundVoiceContact), then queues to an agent like an inbound one."""

    destination: str  # E.164
    contact_flow_id: str
    queue_arn: str | None  # the outbound queue; its caller id shows unless caller_id is set
    caller_id: str | None  # E.164
    attributes: dict[str, str]  # previewRecordID, campaignName, clientId
    client_token: str  # the call's id: a retried request places no second call


@dataclass(frozen=True)
class ContactState:
    """What the contact centre tells of a contact it placed: None times while not yet."""

    contact_id: str
    connected_at: datetime | None
    ended_at: datetime | None
    result: str | None  # a CallResult once ended


class ContactCentre(Protocol):
    def create_user(self, user: InstanceUser) -> str:
        """Create the user; return the instance's unique user id."""

    def describe_user(self, user_id: str) -> InstanceUserInfo | None:
        """The user with this id, or None when the instance has no such user."""

    def delete_user(self, user_id: str) -> bool:
        """Delete the user; False when the instance had no such user."""

    def start_outbound_call(self, call: OutboundCall) -> str:
        """Have the contact flow place the call; return the contact's id. InstanceError
        when the instance refuses, cannot be reached in time, or places no calls."""

    def describe_contact(self, contact_id: str) -> ContactState | None:
        """The placed contact as it is now, or None when the instance has no such contact."""
