"""Supervisor accounts: e-mail, a password hash (app/services/people/passwords.py) and their
role in each tenant they may see (app.models.supervisors.Role): an operator's grant (the
CLI), an administrator's on the tenant's People page, or the console identity provider's
groups at each sign-in."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.extensions import db
from app.models import GivenBy, IdentityProvider, Role, Supervisor, Tenant, TenantRole
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import SUPERVISOR_EMAIL
from app.services.people import sessions
from app.services.people.passwords import check_password, hash_password, password_matches

EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _record(actor: Actor, action: str, email: str, after: dict | None = None) -> None:
    """Supervisors belong to no tenant: their trail has none (never the password)."""
    record(actor, Change(action, "supervisor", email, None, after=after))


def create_supervisor(
    email: str,
    password: str,
    tenants: list[Tenant] | None = None,
    *,
    role: Role = Role.SUPERVISOR,
    actor: Actor,
) -> Supervisor:
    """Create an administrator of every tenant, or one with `role` in each of `tenants`
    when given."""
    email = email.strip().lower()
    if not EMAIL.fullmatch(email) or len(email) > 255:
        raise InvalidInput(f"'{email}' is not an e-mail address")
    check_password(password)
    if db.session.scalar(select(Supervisor).filter_by(email=email)):
        raise Conflict(f"supervisor {email} already exists")
    supervisor = Supervisor(
        email=email,
        password_hash=hash_password(password),
        all_tenants=not tenants,
        roles=[TenantRole(tenant_id=t.id, tenant=t, role=role) for t in tenants or []],
    )
    db.session.add(supervisor)
    _record(actor, "supervisor.added", email, access(supervisor))
    return supervisor


def access(supervisor: Supervisor) -> dict:
    """What the trail says of an account's reach: every tenant, or each tenant's role."""
    if supervisor.all_tenants:
        return {"email": supervisor.email, "tenants": "all"}
    roles = {grant.tenant.label: Role(grant.role).value for grant in supervisor.roles}
    return {"email": supervisor.email, "tenants": dict(sorted(roles.items()))}


def set_roles(
    supervisor: Supervisor, roles: dict[Tenant, Role], given_by: GivenBy = GivenBy.GRANT
) -> None:
    """Give the account exactly these tenants, each with its role, besides the tenants its
    tenant's SCIM role groups give (app/services/people/console_roles.py), which stay."""
    supervisor.all_tenants = False
    kept = {grant.tenant_id: grant for grant in supervisor.roles}
    scim = {t: g for t, g in kept.items() if g.given_by == GivenBy.SCIM}
    grants = list(scim.values())
    for tenant, role in roles.items():
        if tenant.id in scim:
            continue
        grant = kept.get(tenant.id) or TenantRole(tenant_id=tenant.id, tenant=tenant)
        grant.role, grant.given_by = role, given_by
        grants.append(grant)
    supervisor.roles = grants


def set_role(supervisor: Supervisor, tenant: Tenant, role: Role | None, given_by: GivenBy) -> None:
    """Give the account `role` in the tenant, or take the tenant away (None), leaving its
    other tenants as they are."""
    current = next((g for g in supervisor.roles if g.tenant_id == tenant.id), None)
    if role is None:
        if current is not None:
            supervisor.roles.remove(current)
    elif current is None:
        supervisor.roles.append(
            TenantRole(tenant_id=tenant.id, tenant=tenant, role=role, given_by=given_by)
        )
    else:
        current.role, current.given_by = role, given_by


def kept_by(
    supervisor: Supervisor, tenant: Tenant, *, console_provider: bool | None = None
) -> str | None:
    """Who, other than an operator's or an administrator's grant, keeps the account's role
    in the tenant (then only they change it), or None. `console_provider`: whether the
    console has an identity provider, when the caller knows it already."""
    grant = next((g for g in supervisor.roles if g.tenant_id == tenant.id), None)
    if supervisor.all_tenants:
        return "an operator: the account administers every tenant"
    if grant is not None and grant.given_by == GivenBy.SCIM:
        return f"{tenant.label}'s identity provider, through a SCIM role group"
    linked = supervisor.sso_subject and not supervisor.break_glass
    if linked and (_console_has_provider() if console_provider is None else console_provider):
        return "the console's identity provider, through its groups"
    return None


def grant_role(supervisor: Supervisor, tenant: Tenant, role: Role | None, *, actor: Actor) -> bool:
    """Give the account `role` in the tenant, or take the tenant away (None): an operator's
    or an administrator's decision, in the trail with the reach before and after. False
    when nothing changes. Refused when another keeps the role (`kept_by`): an account of
    every tenant keeps every tenant, and a provider's role is the provider's to change."""
    keeper = kept_by(supervisor, tenant)
    if keeper is not None:
        raise Conflict(f"{supervisor.email}'s role here is kept by {keeper}: change it there")
    current = next((g for g in supervisor.roles if g.tenant_id == tenant.id), None)
    if (Role(current.role) if current else None) == role:
        return False
    before = access(supervisor)
    set_role(supervisor, tenant, role, GivenBy.GRANT)
    record(
        actor,
        Change(
            "supervisor.access_changed",
            "supervisor",
            supervisor.email,
            tenant.id,
            before=before,
            after=access(supervisor),
        ),
    )
    return True


NO_ACCOUNT = (
    "no console account for {email}: an operator makes it (supervisor create), or the "
    "console's identity provider makes it at the person's first sign-in"
)


def grant_role_to(tenant: Tenant, email: str, role: Role | None, *, actor: Actor) -> bool:
    """An administrator's grant on the tenant's People page: `grant_role` for the account
    with that address, never to themselves (an administrator cannot lock themselves out
    or raise their own role)."""
    email = email.strip().lower()
    supervisor = db.session.scalar(select(Supervisor).filter_by(email=email))
    if supervisor is None:
        raise InvalidInput(NO_ACCOUNT.format(email=email), field=SUPERVISOR_EMAIL)
    if actor.id == supervisor.email:
        raise InvalidInput(
            "your own role is another administrator's to change", field=SUPERVISOR_EMAIL
        )
    return grant_role(supervisor, tenant, role, actor=actor)


@dataclass(frozen=True)
class Person:
    """Someone who may open a tenant's console: their account, their role, and who keeps
    it when not a grant (`kept_by`)."""

    account: Supervisor
    role: Role
    kept_by: str | None


def people_of(tenant: Tenant) -> list[Person]:
    """Everyone who may see the tenant with their role there, administrators first."""
    listed = select(Supervisor).where(
        Supervisor.all_tenants | Supervisor.roles.any(TenantRole.tenant_id == tenant.id)
    )
    provider = _console_has_provider()
    people = [
        Person(
            account, account.role_in(tenant.id), kept_by(account, tenant, console_provider=provider)
        )
        for account in db.session.scalars(listed.options(selectinload(Supervisor.roles)))
    ]
    return sorted(people, key=lambda p: (-p.role.rank, p.account.email))


def find_supervisor(email: str) -> Supervisor:
    supervisor = db.session.scalar(select(Supervisor).filter_by(email=email.strip().lower()))
    if supervisor is None:
        raise NotFound(f"no supervisor {email.strip().lower()}")
    return supervisor


def set_password(supervisor: Supervisor, password: str, *, actor: Actor) -> None:
    """Give the supervisor a new password and end every session they have; the trail says
    that it changed and by whom, nothing of the password."""
    check_password(password)
    supervisor.password_hash = hash_password(password)
    sessions.end_sessions(supervisor)
    _record(actor, "supervisor.password_changed", supervisor.email, {"sessionsEnded": True})


def change_password(supervisor: Supervisor, current: str, new: str, *, actor: Actor) -> None:
    """A supervisor's own change: the current password first, then the rules of
    `set_password` (every session ends; the caller starts a new one for this browser)."""
    if not password_matches(supervisor.password_hash, current):
        raise InvalidInput("the current password is not right")
    if new == current:
        raise InvalidInput("the new password must differ from the current one")
    set_password(supervisor, new, actor=actor)


def authenticate(email: str, password: str) -> Supervisor | None:
    """The supervisor with these credentials, or None; the same work either way. Once the
    console has an identity provider, only break-glass accounts sign in with a password."""
    supervisor = db.session.scalar(select(Supervisor).filter_by(email=email.strip().lower()))
    valid = password_matches(supervisor.password_hash if supervisor else None, password)
    if supervisor is not None and not supervisor.break_glass and _console_has_provider():
        return None
    return supervisor if supervisor and valid else None


def _console_has_provider() -> bool:
    return (
        db.session.scalar(select(IdentityProvider.id).where(IdentityProvider.tenant_id.is_(None)))
        is not None
    )


def set_break_glass(supervisor: Supervisor, on: bool, *, actor: Actor) -> None:
    """Let (or stop) the supervisor sign in with a password while the console has an
    identity provider: an account for when the provider is down."""
    if on and not supervisor.password_hash:
        raise InvalidInput(f"supervisor {supervisor.email} has no password: set one first")
    supervisor.break_glass = on
    _record(actor, "supervisor.break_glass", supervisor.email, {"breakGlass": on})


def visible_tenants(supervisor: Supervisor) -> list[Tenant]:
    """The tenants the supervisor may see, by company and environment."""
    if supervisor.all_tenants:
        return list(
            db.session.scalars(select(Tenant).order_by(Tenant.company_code, Tenant.environment))
        )
    return sorted(supervisor.tenants, key=lambda t: (t.company_code, t.environment))
