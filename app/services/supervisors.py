"""Supervisor accounts: e-mail, a werkzeug password hash and the tenants they may see."""

from __future__ import annotations

import re

from sqlalchemy import select
from werkzeug.security import check_password_hash, generate_password_hash

from app.extensions import db
from app.models import Supervisor, Tenant
from app.services.errors import Conflict, InvalidInput

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
MIN_PASSWORD = 8
# Checked when the e-mail is unknown, so a wrong address costs as long as a wrong password.
_UNKNOWN = generate_password_hash("not a password of anyone")


def create_supervisor(email: str, password: str, tenants: list[Tenant] | None = None) -> Supervisor:
    """Create a supervisor who sees every tenant, or only `tenants` when given."""
    email = email.strip().lower()
    if not _EMAIL.fullmatch(email) or len(email) > 255:
        raise InvalidInput(f"'{email}' is not an e-mail address")
    if len(password) < MIN_PASSWORD:
        raise InvalidInput(f"the password must be at least {MIN_PASSWORD} characters")
    if db.session.scalar(select(Supervisor).filter_by(email=email)):
        raise Conflict(f"supervisor {email} already exists")
    supervisor = Supervisor(
        email=email,
        password_hash=generate_password_hash(password),
        all_tenants=not tenants,
        tenants=list(tenants or []),
    )
    db.session.add(supervisor)
    return supervisor


def authenticate(email: str, password: str) -> Supervisor | None:
    """The supervisor with these credentials, or None; the same work either way."""
    supervisor = db.session.scalar(select(Supervisor).filter_by(email=email.strip().lower()))
    valid = check_password_hash(supervisor.password_hash if supervisor else _UNKNOWN, password)
    return supervisor if supervisor and valid else None


def visible_tenants(supervisor: Supervisor) -> list[Tenant]:
    """The tenants the supervisor may see, by company and environment."""
    if supervisor.all_tenants:
        return list(
            db.session.scalars(select(Tenant).order_by(Tenant.company_code, Tenant.environment))
        )
    return sorted(supervisor.tenants, key=lambda t: (t.company_code, t.environment))
