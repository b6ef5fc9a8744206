"""User provisioning: add, look up and delete users, in the service and in the instance.

The service and the instance never disagree: a user is created in the instance inside
the service's transaction, so when the instance refuses, the service keeps nothing; and
`add_user` commits itself, so that when the commit fails after the instance created the
user, it deletes that user from the instance again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import email_validator
from email_validator import EmailNotValidError, validate_email
from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import selectinload

from app.extensions import db
from app.models import AuthMode, EndedHow, Tenant, User
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.contact_centre import InstanceError, InstanceUser, instance_for
from app.services.delivery import callbacks
from app.services.delivery.agent_state import end_span, hold_agent
from app.services.delivery.closing import release_all
from app.services.errors import Conflict, InvalidInput, NotFound, ServiceError
from app.services.fields import (
    USER_FIRST_NAME,
    USER_LAST_NAME,
    USER_LOGIN_USER_ID,
    USER_PRIMARY_EMAIL,
    USER_SECONDARY_EMAIL,
    USER_TEMPLATE,
    Field,
)
from app.services.people import console_roles
from app.services.tenants.setup import find_user_template
from app.services.values import wrapped

# Amazon Connect's rule for usernames, applied to users created in any instance.
INSTANCE_USERNAME = re.compile(r"[a-zA-Z0-9_.@-]{1,100}")
MAX_NAME = 100
# Directory-linked environments commonly use internal mail domains (corp.local, home.arpa,
# mail.localhost, lab.test) that email-validator refuses as special-use names. Its documented
# list of those names is the way to allow them; only the ones that are never an internal
# mail domain stay refused. Every other syntax rule still applies (a period in the domain,
# no DNS look-up).
NEVER_INTERNAL = ("invalid", "onion")
email_validator.SPECIAL_USE_DOMAIN_NAMES[:] = [
    name for name in email_validator.SPECIAL_USE_DOMAIN_NAMES if name in NEVER_INTERNAL
]

# The fields as this module's messages name them: the spec's names, which the Users API
# says from its own table (app/api/fields.py) and the pages by their form's labels.
LOGIN = USER_LOGIN_USER_ID.said_as("loginUserId")
FIRST_NAME = USER_FIRST_NAME.said_as("firstName")
LAST_NAME = USER_LAST_NAME.said_as("lastName")
TEMPLATE = USER_TEMPLATE.said_as("userTemplateName")
PRIMARY_EMAIL = USER_PRIMARY_EMAIL.said_as("primaryEmailAddr")
SECONDARY_EMAIL = USER_SECONDARY_EMAIL.said_as("secondaryEmailAddr")


class NotSupported(ServiceError):
    """The tenant's sign-in mode does not allow user provisioning."""


class UserNotFound(NotFound):
    """No user with this loginUserId in the tenant."""


@dataclass(frozen=True)
class NewUser:
    login_user_id: str
    first_name: str
    last_name: str
    user_template_name: str
    primary_email: str | None = None
    secondary_email: str | None = None
    create_in_instance: bool = False
    # Set by an identity provider (SCIM): its own id for the user, and whether it is active.
    external_id: str | None = None
    active: bool = True
    email_entries: list[dict] | None = None
    department: str | None = None


@dataclass(frozen=True)
class UserStatus:
    """A user of the service and, when it exists there, its id in the instance."""

    user: User
    connect_user_id: str | None

    @property
    def instance_status(self) -> str:
        """EXISTS or NOT_FOUND, as query-existence's amazonConnectStatus says it."""
        return "EXISTS" if self.connect_user_id else "NOT_FOUND"


def check_supported(tenant: Tenant) -> None:
    if tenant.auth_mode == AuthMode.INTERNAL:
        raise NotSupported(
            "user provisioning is not supported for environments whose instance uses its "
            "internal user directory; it needs SAML 2.0 or a linked directory"
        )


def _email(value: str | None, field: Field) -> str | None:
    if value is None:
        return None
    try:
        return validate_email(value, check_deliverability=False).normalized
    except EmailNotValidError as error:
        raise InvalidInput(
            f"{field} '{value}' is not a valid e-mail address: {error}", field=field
        ) from None


def email_index(user: User) -> str:
    """Every e-mail address of the user, lower case, as `User.email_index` keeps them."""
    if user.email_entries is not None:
        found = [entry["value"] for entry in user.email_entries]
    else:
        found = [user.primary_email, user.secondary_email]
    return wrapped(dict.fromkeys(value.lower() for value in found if value))


def check_email(value: str) -> str:
    """An e-mail address as the service keeps it (normalised), or InvalidInput."""
    return _email(value, USER_SECONDARY_EMAIL.said_as("e-mail address"))


def checked_user(tenant: Tenant, new: NewUser) -> NewUser:
    for field, value in (
        (LOGIN, new.login_user_id),
        (FIRST_NAME, new.first_name),
        (LAST_NAME, new.last_name),
        (TEMPLATE, new.user_template_name),
    ):
        if not value.strip():
            raise InvalidInput(f"{field} must not be empty", field=field)
        if len(value) > (255 if field in (LOGIN, TEMPLATE) else MAX_NAME):
            raise InvalidInput(f"{field} is too long", field=field)
    if new.create_in_instance and not INSTANCE_USERNAME.fullmatch(new.login_user_id):
        raise InvalidInput(
            f"{LOGIN} must be 1 to 100 letters, digits or _ . @ - to be created in the instance",
            field=LOGIN,
        )
    primary = None
    if tenant.auth_mode == AuthMode.DIRECTORY:
        if not new.primary_email:
            raise InvalidInput(
                "primaryEmailAddr is required for directory-linked environments",
                field=PRIMARY_EMAIL,
            )
        primary = _email(new.primary_email, PRIMARY_EMAIL)
    secondary = _email(new.secondary_email, SECONDARY_EMAIL)
    return NewUser(
        new.login_user_id,
        new.first_name,
        new.last_name,
        new.user_template_name,
        primary,
        secondary,
        new.create_in_instance,
        new.external_id,
        new.active,
        new.email_entries,
        new.department,
    )


def find_user(tenant: Tenant, login_user_id: str) -> User | None:
    return db.session.scalar(
        select(User).filter_by(tenant_id=tenant.id, login_user_id=login_user_id)
    )


def get_user(tenant: Tenant, login_user_id: str) -> User:
    user = find_user(tenant, login_user_id)
    if user is None:
        raise UserNotFound(f"no user '{login_user_id}' in {tenant.label}")
    return user


def list_users(tenant: Tenant, limit: int | None = None, offset: int = 0) -> list[User]:
    """The tenant's users by loginUserId, a page at a time when `limit` is given."""
    query = select(User).filter_by(tenant_id=tenant.id).order_by(User.login_user_id)
    query = query.options(selectinload(User.template), selectinload(User.skill_queues))
    return list(db.session.scalars(query.limit(limit).offset(offset)))


def count_users(tenant: Tenant) -> int:
    return db.session.scalar(select(func.count(User.id)).filter_by(tenant_id=tenant.id)) or 0


def user_statuses(tenant: Tenant, users: list[User]) -> list[tuple[User, str]]:
    """Each user's instance status (EXISTS, NOT_FOUND, or why it is unknown), asking the
    instance once per user that has an id there, through one client."""
    statuses = []
    instance = None
    for user in users:
        if user.connect_user_id is None:
            statuses.append((user, "NOT_FOUND"))
            continue
        try:
            instance = instance or instance_for(tenant)
            found = instance.describe_user(user.connect_user_id)
        except ServiceError as error:
            statuses.append((user, f"unknown: {error.message}"))
            continue
        statuses.append((user, UserStatus(user, found and found.user_id).instance_status))
    return statuses


def user_fields(user: User) -> dict[str, Any]:
    """The user as the User API names its fields: what the trail and the events carry."""
    return {
        "loginUserId": user.login_user_id,
        "firstName": user.first_name,
        "lastName": user.last_name,
        "primaryEmailAddr": user.primary_email,
        "secondaryEmailAddr": user.secondary_email,
        "userTemplateName": user.template.name,
        "connectUserId": user.connect_user_id,
    }


def _change(tenant: Tenant, action: str, fields: dict[str, Any], added: bool) -> Change:
    """A user added or deleted, heard of as the event of the same name."""
    return Change(
        action=action,
        entity_kind="user",
        entity_id=fields["loginUserId"],
        tenant_id=tenant.id,
        before=None if added else fields,
        after=fields if added else None,
        event_type=action,
        event_data=fields,
        subject=f"user:{fields['loginUserId']}",
    )


def add_user(tenant: Tenant, new: NewUser, *, actor: Actor) -> User:
    """Add a user to the service and, when asked, to the tenant's instance; commits,
    with its audit record and its `user.added` event in the same transaction."""
    check_supported(tenant)
    new = checked_user(tenant, new)
    template = find_user_template(tenant, new.user_template_name)
    if template is None:
        raise InvalidInput(
            f"{TEMPLATE} '{new.user_template_name}' is not a user template of {tenant.label}",
            field=TEMPLATE,
        )
    if find_user(tenant, new.login_user_id):
        raise Conflict(
            f"user '{new.login_user_id}' already exists in {tenant.label}", field=USER_LOGIN_USER_ID
        )
    user = User(
        tenant=tenant,
        login_user_id=new.login_user_id,
        first_name=new.first_name,
        last_name=new.last_name,
        primary_email=new.primary_email,
        secondary_email=new.secondary_email,
        template=template,
        skill_queues=list(template.default_skill_queues),  # the desk's queues to start with
        external_id=new.external_id,
        active=new.active,
        email_entries=new.email_entries,
        department=new.department,
    )
    user.email_index = email_index(user)
    try:
        with db.session.begin_nested():
            db.session.add(user)
    except IntegrityError:  # added by a simultaneous request
        raise Conflict(
            f"user '{new.login_user_id}' already exists in {tenant.label}", field=USER_LOGIN_USER_ID
        ) from None
    if new.create_in_instance:
        instance = instance_for(tenant)
        user.connect_user_id = instance.create_user(
            InstanceUser(
                new.login_user_id,
                new.first_name,
                new.last_name,
                new.primary_email,
                new.secondary_email,
                template,
            )
        )
    connect_user_id = user.connect_user_id
    record(actor, _change(tenant, "user.added", user_fields(user), added=True))
    try:
        db.session.commit()
    except SQLAlchemyError:
        db.session.rollback()
        _undo_instance_user(tenant, new.login_user_id, connect_user_id)
        raise InstanceError("the user could not be saved; nothing was kept") from None
    return user


def _undo_instance_user(tenant: Tenant, login: str, connect_user_id: str | None) -> None:
    """Remove from the instance a user the service could not save; say so when that fails."""
    if connect_user_id is None:
        return
    try:
        instance_for(tenant).delete_user(connect_user_id)
    except InstanceError as error:
        current_app.logger.error(
            "User %s of %s is left in the instance as %s: %s",
            login, tenant.label, connect_user_id, error.message,
        )  # fmt: skip
        raise InstanceError(
            f"the user could not be saved, and removing it from the instance failed too; "
            f"connectUserId {connect_user_id} is left there"
        ) from None


def user_status(tenant: Tenant, login_user_id: str) -> UserStatus:
    """The user and its instance id when the instance still has it."""
    check_supported(tenant)
    user = get_user(tenant, login_user_id)
    if user.connect_user_id is None:
        return UserStatus(user, None)
    found = instance_for(tenant).describe_user(user.connect_user_id)
    return UserStatus(user, found.user_id if found else None)


def delete_user(tenant: Tenant, login_user_id: str, *, actor: Actor) -> None:
    """Delete the user from the service and, where it exists there, from the instance
    (in the caller's transaction, with its audit record and its `user.deleted` event)."""
    check_supported(tenant)
    user = get_user(tenant, login_user_id)
    # The agent's row first, as its desk requests take it: the two take turns, never each
    # holding what the other waits for.
    hold_agent(user)
    # A task the agent holds goes back to its queue now, not when the offer times out.
    now = utcnow()
    release_all(user, actor=actor, now=now, how=EndedHow.TAKEN_BACK)
    # Its callbacks are the queue's at once, not when their hold runs out.
    callbacks.hand_back(user, actor=actor, now=now, reason=callbacks.DELETED)
    # The agent's time so far stays in the reports; it ends with the agent.
    end_span(user, now)
    record(actor, _change(tenant, "user.deleted", user_fields(user), added=False))
    db.session.delete(user)
    db.session.flush()
    # The console role the user's role groups gave goes with it.
    console_roles.settle(tenant, console_roles.emails_of([user]), actor=actor)
    # The instance goes last: when it refuses, the service's delete is rolled back too.
    if user.connect_user_id is not None:
        instance_for(tenant).delete_user(user.connect_user_id)
