"""The one small interface every contact-centre instance offers, and its values."""

from __future__ import annotations

from dataclasses import dataclass
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


class ContactCentre(Protocol):
    def create_user(self, user: InstanceUser) -> str:
        """Create the user; return the instance's unique user id."""

    def describe_user(self, user_id: str) -> InstanceUserInfo | None:
        """The user with this id, or None when the instance has no such user."""

    def delete_user(self, user_id: str) -> bool:
        """Delete the user; False when the instance had no such user."""
