"""Changing a provisioned user after it was added: its names, e-mail addresses and the
identity provider's id for it (`update_user`), and whether it is active (`set_active`).

The User Provisioning API adds and deletes users; an identity provider (SCIM) also changes
them and deactivates them. A deactivated user keeps its record, its history and its
queues, and cannot work: it cannot sign in to the desk, its desk sessions end at once, it
goes OFFLINE (the task it holds goes back to its queue) and its callbacks are the queue's.
Reactivating it lets it sign in again. Each change raises the user's version (the
resource's ETag), with its audit record and event in the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.extensions import db
from app.models import AgentState, Tenant, User
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.delivery import callbacks
from app.services.delivery.agent_state import hold_agent, set_agent_state
from app.services.errors import InvalidInput
from app.services.fields import USER_EXTERNAL_ID, USER_TEMPLATE
from app.services.people import console_roles, sessions
from app.services.people.users import NewUser, check_email, checked_user, email_index, user_fields

MAX_EXTERNAL_ID = 255
# Why a deactivated agent's callbacks went back to their queue (`task.preferred_agent_cleared`).
DEACTIVATED = "agent deactivated"


@dataclass(frozen=True)
class Email:
    """One of the e-mail addresses an identity provider keeps for a user."""

    value: str
    type: str | None = None
    primary: bool | None = None  # as sent: true, false or not said


@dataclass(frozen=True)
class Profile:
    """What an identity provider says of a user, whole (a change replaces every field):
    its names, its e-mail addresses (the one marked primary is the primaryEmailAddr, the
    first other one the secondaryEmailAddr), its external id and its department."""

    first_name: str
    last_name: str
    emails: tuple[Email, ...] = ()
    external_id: str | None = None
    department: str | None = None

    def addresses(self) -> tuple[str | None, str | None]:
        """(primary, secondary) as the User API names them."""
        primary = next((e for e in self.emails if e.primary), None)
        others = [e for e in self.emails if e is not primary]
        if primary is None and others:
            primary = others.pop(0)
        return (primary.value if primary else None, others[0].value if others else None)

    def entries(self) -> list[dict] | None:
        """The e-mail entries as the user keeps them (None: none sent)."""
        if not self.emails:
            return None
        return [{"value": e.value, "type": e.type, "primary": e.primary} for e in self.emails]


def emails_of(user: User) -> tuple[Email, ...]:
    """The user's e-mail entries: those its provider sent, else its two addresses."""
    if user.email_entries is not None:
        entries = user.email_entries
        return tuple(Email(e["value"], e.get("type"), e.get("primary")) for e in entries)
    found = []
    if user.primary_email:
        found.append(Email(user.primary_email, "work", True))
    if user.secondary_email:
        found.append(Email(user.secondary_email, "other"))
    return tuple(found)


def profile_of(user: User) -> Profile:
    return Profile(
        user.first_name, user.last_name, emails_of(user), user.external_id, user.department
    )


def check_external_id(value: str | None) -> str | None:
    """The provider's id, without surrounding blanks; None for none."""
    value = (value or "").strip() or None
    if value is not None and len(value) > MAX_EXTERNAL_ID:
        raise InvalidInput(
            f"externalId is longer than {MAX_EXTERNAL_ID} characters", field=USER_EXTERNAL_ID
        )
    return value


def touch_user(user: User, now: datetime) -> None:
    """A change of the user: a new version (ETag) and its time."""
    user.version = (user.version or 0) + 1
    user.updated_at = now


def _change(user: User, action: str, before: dict, after: dict) -> Change:
    return Change(
        action=action,
        entity_kind="user",
        entity_id=user.login_user_id,
        tenant_id=user.tenant_id,
        before=before,
        after=after,
        event_type=action,
        event_data={"loginUserId": user.login_user_id, "before": before, "after": after},
        subject=f"user:{user.login_user_id}",
    )


def _fields(user: User) -> dict:
    """The user as the trail and the events say it: the User API's fields and what an
    identity provider keeps besides."""
    return {
        **user_fields(user),
        "externalId": user.external_id,
        "emails": user.email_entries,
        "department": user.department,
        "active": user.active,
    }


def check_profile(tenant: Tenant, login: str, template: str, profile: Profile) -> NewUser:
    """The profile checked by the rules of adding a user (names not empty, e-mail addresses
    valid, a primary one for a directory-linked tenant), as a NewUser of that template."""
    primary, secondary = profile.addresses()
    for email in profile.emails:
        check_email(email.value)
    if profile.department is not None and len(profile.department) > MAX_EXTERNAL_ID:
        raise InvalidInput(
            f"department is longer than {MAX_EXTERNAL_ID} characters", field=USER_TEMPLATE
        )
    return checked_user(
        tenant,
        NewUser(
            login,
            profile.first_name,
            profile.last_name,
            template,
            primary,
            secondary,
            external_id=check_external_id(profile.external_id),
            email_entries=profile.entries(),
            department=profile.department,
        ),
    )


def update_user(tenant: Tenant, user: User, profile: Profile, *, actor: Actor) -> bool:
    """Give the user this profile (checked as `check_profile`); whether anything changed.
    The department is kept as sent: the template it named at creation stays."""
    checked = check_profile(tenant, user.login_user_id, user.template.name, profile)
    before = _fields(user)
    old = (user.first_name, user.last_name, user.primary_email, user.secondary_email,
           user.external_id, user.email_entries, user.department)  # fmt: skip
    address = console_roles.address_of(user)
    new = (checked.first_name, checked.last_name, checked.primary_email,
           checked.secondary_email, checked.external_id, checked.email_entries,
           checked.department)  # fmt: skip
    if new == old:
        return False
    (user.first_name, user.last_name, user.primary_email, user.secondary_email,
     user.external_id, user.email_entries, user.department) = new  # fmt: skip
    user.email_index = email_index(user)
    # A new address moves the console role the user's role groups give to that address.
    addresses = {address, console_roles.address_of(user)}
    if len(addresses) > 1:
        console_roles.settle(tenant, console_roles.emails_of_addresses(addresses), actor=actor)
    touch_user(user, utcnow())
    changed = {k: v for k, v in _fields(user).items() if before[k] != v}
    if changed:
        record(actor, _change(user, "user.updated", {k: before[k] for k in changed}, changed))
    return True


def set_active(user: User, active: bool, *, actor: Actor, now: datetime | None = None) -> bool:
    """Activate or deactivate the user (see the module's docstring); whether it changed."""
    if user.active == active:
        return False
    now = now or utcnow()
    hold_agent(user)  # the agent's own requests and this change take turns
    if not active:
        # OFFLINE first: the task it holds goes back to its queue, its time is recorded.
        set_agent_state(user, AgentState.OFFLINE, actor=actor, now=now)
        callbacks.hand_back(user, actor=actor, now=now, reason=DEACTIVATED)
        sessions.end_sessions(user, sessions.AGENTS)
    user.active = active
    touch_user(user, now)
    tenant = db.session.get(Tenant, user.tenant_id)
    console_roles.settle(tenant, console_roles.emails_of([user]), actor=actor)
    action = "user.reactivated" if active else "user.deactivated"
    record(actor, _change(user, action, {"active": not active}, {"active": active}))
    return True
