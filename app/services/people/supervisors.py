"""Supervisor accounts: e-mail, a password hash (app/services/people/passwords.py) and the
tenants they may see."""

from __future__ import annotations

import re

from sqlalchemy import select

from app.extensions import db
from app.models import IdentityProvider, Supervisor, Tenant
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.people import sessions
from app.services.people.passwords import check_password, hash_password, password_matches

EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _record(actor: Actor, action: str, email: str, after: dict | None = None) -> None:
    """Supervisors belong to no tenant: their trail has none (never the password)."""
    record(actor, Change(action, "supervisor", email, None, after=after))


def create_supervisor(
    email: str, password: str, tenants: list[Tenant] | None = None, *, actor: Actor
) -> Supervisor:
    """Create a supervisor who sees every tenant, or only `tenants` when given."""
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
        tenants=list(tenants or []),
    )
    db.session.add(supervisor)
    sees = sorted(f"{t.company_code}/{t.environment}" for t in tenants or [])
    _record(actor, "supervisor.added", email, {"email": email, "tenants": sees or "all"})
    return supervisor


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
