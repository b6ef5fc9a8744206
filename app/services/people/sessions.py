"""Signed-in sessions kept on the server, so that signing out really ends one.

The browser's (signed) cookie carries a random token; the server keeps only its SHA-256
with its owner, when the session began and when it was last seen. A session is live
while its row exists, it was seen within the idle limit and began within the lifetime.
Signing out deletes the row; a new password deletes every row of that owner.

Two kinds of owner keep sessions, each in a table of its own so that one kind's token can
never open the other's pages: supervisors (`SUPERVISORS`, the default) and agents at the
desk (`AGENTS`).

A live stream asks every second whether its viewer may still watch (`why_watching_ends`):
one read of the session's row, with its owner's and the tenant's.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, exists, or_, select, update
from sqlalchemy.exc import DBAPIError

from app.db.full_disk import storage_full
from app.db.side_transactions import may_write_aside, own_transaction
from app.extensions import db
from app.models import AgentSession, LoginSession, Supervisor, Tenant, User
from app.models.supervisors import supervisor_tenants
from app.models.types import utcnow

# Why a live stream's viewer may no longer watch: their session ended (signed out, timed
# out, every session of theirs ended) or its owner is gone; they no longer see the tenant;
# the tenant is gone.
SIGNED_OUT = "signedOut"
NO_ACCESS = "noAccess"
GONE = "gone"

# last_seen_at is written at most this often: a write per page would serialise every
# request of a busy SQLite file for a stamp that only needs minute precision.
TOUCH_EVERY = timedelta(minutes=1)


@dataclass(frozen=True)
class SessionKind:
    """Where one kind of owner's sessions are kept: the model and its owner-id column."""

    model: type
    owner_column: str

    @property
    def owner(self):
        return getattr(self.model, self.owner_column)


SUPERVISORS = SessionKind(LoginSession, "supervisor_id")
AGENTS = SessionKind(AgentSession, "user_id")


@dataclass(frozen=True)
class SessionLimits:
    """How long a session lives: `idle` without a request, `lifetime` at most."""

    idle: timedelta
    lifetime: timedelta

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> SessionLimits:
        """From the settings SESSION_IDLE_MINUTES and SESSION_MAX_HOURS."""
        return cls(
            idle=timedelta(minutes=settings["SESSION_IDLE_MINUTES"]),
            lifetime=timedelta(hours=settings["SESSION_MAX_HOURS"]),
        )


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start_session(owner, limits: SessionLimits, kind: SessionKind = SUPERVISORS) -> str:
    """A new session for the owner (a supervisor, or an agent with `AGENTS`), in the
    caller's transaction; the token to hand to the browser. Sessions already past their
    limits are swept out on the way."""
    token = secrets.token_urlsafe(32)
    now = utcnow()
    model = kind.model
    db.session.execute(
        delete(model).where(
            or_(model.last_seen_at <= now - limits.idle, model.created_at <= now - limits.lifetime)
        )
    )
    db.session.add(
        model(id=_digest(token), created_at=now, last_seen_at=now, **{kind.owner_column: owner.id})
    )
    return token


def end_session(token: str | None, kind: SessionKind = SUPERVISORS) -> None:
    """End the session with this token, if it is one (in the caller's transaction)."""
    if token:
        db.session.execute(delete(kind.model).where(kind.model.id == _digest(token)))


def end_sessions(owner, kind: SessionKind = SUPERVISORS) -> None:
    """End every session of the owner (in the caller's transaction)."""
    db.session.execute(delete(kind.model).where(kind.owner == owner.id))


def live_session(token: str, limits: SessionLimits, kind: SessionKind = SUPERVISORS) -> int | None:
    """The owner id of the live session with this token, or None.

    Read and stamped on a connection of its own, so the stamp is kept whatever becomes of
    the request's transaction; a session found past its limits is deleted.
    """
    key, now = _digest(token), utcnow()
    table = kind.model.__table__
    owner = table.c[kind.owner_column]
    with own_transaction(write=False) as connection:
        row = connection.execute(
            select(owner, table.c.created_at, table.c.last_seen_at).where(table.c.id == key)
        ).one_or_none()
    if row is None:
        return None
    live = _is_live(row.created_at, row.last_seen_at, limits, now)
    if (not live or now - row.last_seen_at >= TOUCH_EVERY) and may_write_aside():
        try:
            with own_transaction() as connection:
                if live:
                    stamp = update(table).where(table.c.id == key).values(last_seen_at=now)
                    connection.execute(stamp)
                else:
                    connection.execute(delete(table).where(table.c.id == key))
        except DBAPIError as error:
            if not storage_full(error):
                raise
            # A full disk must not stop reading: the stamp waits until there is room.
    return row[0] if live else None


def _is_live(created: datetime, seen: datetime, limits: SessionLimits, now: datetime) -> bool:
    return now - seen < limits.idle and now - created < limits.lifetime


def still_live(token: str, limits: SessionLimits, kind: SessionKind = SUPERVISORS) -> bool:
    """Whether the session with this token is live, read only (never stamped nor swept):
    what a live stream asks twice a second of the session it serves."""
    model = kind.model
    row = db.session.execute(
        select(model.created_at, model.last_seen_at).where(model.id == _digest(token))
    ).one_or_none()
    return row is not None and _is_live(row.created_at, row.last_seen_at, limits, utcnow())


def session_key(token: str) -> str:
    """What names a session in memory (its stored id): never the token itself."""
    return _digest(token)


def _watching(kind: SessionKind):
    """The one read of `why_watching_ends`, built once: the session's times, whether its
    owner may see the tenant, whether the tenant is there."""
    tenant_id, session_id = bindparam("tenant_id"), bindparam("session_id")
    if kind is AGENTS:
        owner = AgentSession.user_id == User.id
        may_see = User.tenant_id == tenant_id
        query = select(AgentSession.created_at, AgentSession.last_seen_at).join(User, owner)
    else:
        listed = exists().where(
            supervisor_tenants.c.supervisor_id == Supervisor.id,
            supervisor_tenants.c.tenant_id == tenant_id,
        )
        may_see = Supervisor.all_tenants | listed
        owner = LoginSession.supervisor_id == Supervisor.id
        query = select(LoginSession.created_at, LoginSession.last_seen_at).join(Supervisor, owner)
    there = exists().where(Tenant.id == tenant_id)
    return query.add_columns(may_see, there).where(kind.model.id == session_id)


_WATCHING = {SUPERVISORS: _watching(SUPERVISORS), AGENTS: _watching(AGENTS)}


def why_watching_ends(
    token: str, limits: SessionLimits, tenant_id: int, kind: SessionKind = SUPERVISORS
) -> str | None:
    """Why the viewer of a live stream of `tenant_id` with this session may no longer watch
    (SIGNED_OUT, NO_ACCESS, GONE), or None while they may: read only, one indexed read of
    the session's row with its owner's (a supervisor who still sees the tenant, or an agent
    of it) and the tenant's, a statement compiled once (each stream asks it every second)."""
    params = {"tenant_id": tenant_id, "session_id": _digest(token)}
    row = db.session.connection().execute(_WATCHING[kind], params).one_or_none()
    if row is None or not _is_live(row[0], row[1], limits, utcnow()):
        return SIGNED_OUT
    if not row[3]:
        return GONE
    return None if row[2] else NO_ACCESS
