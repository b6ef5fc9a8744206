"""The console roles a tenant's identity provider gives through SCIM role groups.

A group name the tenant maps to a role (`scim map-group … --role R`, the Sign-in page) gives
each member, as a user of the tenant, that role in the tenant's console: the console
account with the user's primary e-mail address (made, without a password, when there is
none: the person signs in through the console's identity provider, which links it by that
verified address, or an operator sets a password). The highest role of the person's groups
wins; leaving the groups, the user's deactivation or deletion, a new address, or the
mapping's removal takes the role away at once.

Such a role is the provider's own (`GivenBy.SCIM`): it never changes a role an operator,
an administrator or the console's provider gave (that one stays, and the People page says
who gave it), nor an account of every tenant. Each change is in the audit trail.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import func, select

from app.extensions import db
from app.models import (
    DirectoryGroup,
    GivenBy,
    GroupMapping,
    Role,
    Supervisor,
    Tenant,
    User,
)
from app.models.directory import directory_group_members
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.people import supervisors


def address_of(user: User) -> str | None:
    """The user's primary e-mail address: the entry the provider marked primary (else its
    first), or the primaryEmailAddr the User Provisioning API gave; lower case."""
    entries = user.email_entries or []
    primary = next((e for e in entries if e.get("primary")), entries[0] if entries else None)
    address = primary["value"] if primary else user.primary_email
    return address.strip().lower() if address else None


def emails_of(users: Iterable[User]) -> set[str]:
    """The console addresses these users stand for (a user without an address, none)."""
    return emails_of_addresses(address_of(u) for u in users)


def emails_of_addresses(addresses: Iterable[str | None]) -> set[str]:
    return {address.strip().lower() for address in addresses if address}


def role_given(tenant: Tenant, email: str) -> Role | None:
    """The highest role the tenant's role groups give an active user with this address."""
    given = db.session.execute(
        select(GroupMapping.role, User)
        .join(
            DirectoryGroup,
            (DirectoryGroup.tenant_id == GroupMapping.tenant_id)
            & (func.lower(DirectoryGroup.display_name) == func.lower(GroupMapping.group_name)),
        )
        .join(directory_group_members, directory_group_members.c.group_id == DirectoryGroup.id)
        .join(User, User.id == directory_group_members.c.user_id)
        .where(
            GroupMapping.tenant_id == tenant.id,
            GroupMapping.role.is_not(None),
            User.active,
        )
    ).all()
    roles = [Role(role) for role, user in given if address_of(user) == email]
    return max(roles, key=lambda r: r.rank, default=None)


def settle(tenant: Tenant, emails: Iterable[str], *, actor: Actor) -> None:
    """Bring the console role of each address in the tenant to what its groups give now."""
    db.session.flush()
    for email in sorted(set(emails)):
        _settle_one(tenant, email, role_given(tenant, email), actor)


def _settle_one(tenant: Tenant, email: str, wanted: Role | None, actor: Actor) -> None:
    account = db.session.scalar(select(Supervisor).filter_by(email=email))
    if account is None and wanted is None:
        return
    if account is None:
        if not supervisors.EMAIL.fullmatch(email) or len(email) > 255:
            return
        account = Supervisor(email=email, password_hash="", all_tenants=False, roles=[])
        db.session.add(account)
        before = None
    elif account.all_tenants:
        return
    else:
        before = supervisors.access(account)
    row = next((g for g in account.roles if g.tenant_id == tenant.id), None)
    if row is not None and row.given_by != GivenBy.SCIM:
        return  # a person's or the console provider's grant: theirs to change
    if row is None and wanted is None:
        return
    if row is not None and wanted is not None and Role(row.role) == wanted:
        return
    supervisors.set_role(account, tenant, wanted, GivenBy.SCIM)
    action = "supervisor.added" if before is None else "supervisor.access_changed"
    change = Change(
        action, "supervisor", email, tenant.id, before=before, after=supervisors.access(account)
    )
    record(actor, change)
