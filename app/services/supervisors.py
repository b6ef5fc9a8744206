"""Supervisor accounts: e-mail and a werkzeug password hash."""

from __future__ import annotations

import re

from sqlalchemy import select
from werkzeug.security import generate_password_hash

from app.extensions import db
from app.models import Supervisor
from app.services.errors import Conflict, InvalidInput

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
MIN_PASSWORD = 8


def create_supervisor(email: str, password: str) -> Supervisor:
    """Create a supervisor; e-mail addresses are unique regardless of case."""
    email = email.strip().lower()
    if not _EMAIL.fullmatch(email) or len(email) > 255:
        raise InvalidInput(f"'{email}' is not an e-mail address")
    if len(password) < MIN_PASSWORD:
        raise InvalidInput(f"the password must be at least {MIN_PASSWORD} characters")
    if db.session.scalar(select(Supervisor).filter_by(email=email)):
        raise Conflict(f"supervisor {email} already exists")
    supervisor = Supervisor(email=email, password_hash=generate_password_hash(password))
    db.session.add(supervisor)
    return supervisor
