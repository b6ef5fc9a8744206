"""Which supervisor a browser session belongs to: the cookie's token must name a live
session kept on the server (see app.services.people.sessions).

Flask-Login keeps the token where it would keep a user id: in the signed session cookie,
and in its remember-me cookie, which this service never sets. Whichever cookie brings a
token back, it opens pages only while its session lives on the server.
"""

from __future__ import annotations

from flask import current_app, session
from flask_login import login_user

from app.extensions import db, login_manager
from app.models import Supervisor
from app.services.people import sessions

# Flask-Login's session key for the id its user loader receives.
TOKEN_KEY = "_user_id"  # noqa: S105 - a key name, not a secret


def session_limits() -> sessions.SessionLimits:
    return sessions.SessionLimits.of(current_app.config)


@login_manager.user_loader
def _load(token: str) -> Supervisor | None:
    supervisor_id = sessions.live_session(token, session_limits())
    return db.session.get(Supervisor, supervisor_id) if supervisor_id is not None else None


def current_token() -> str | None:
    return session.get(TOKEN_KEY)


def sign_in(supervisor: Supervisor) -> None:
    """Start a server-side session for this browser (the caller commits): the cookie
    carries its token in place of the supervisor's id."""
    token = sessions.start_session(supervisor, session_limits())
    login_user(supervisor, remember=False)
    session[TOKEN_KEY] = token
