"""Agents at the desk: their skill queues, their invitations and their passwords.

An agent is a provisioned user of the tenant. A supervisor (or an operator) invites the
agent: a one-time link whose token is kept only as its SHA-256, valid for INVITE_VALID.
Following it, the agent chooses a password under the supervisors' rules, and the invitation
is spent. Signing in then takes the tenant, the loginUserId and that password.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import select

from app.extensions import db
from app.models import Tenant, User
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.delivery import callbacks
from app.services.errors import InvalidInput
from app.services.fields import USER_QUEUES, USER_TIME_ZONE
from app.services.people import sessions
from app.services.people.passwords import check_password, hash_password, password_matches
from app.services.tenants.setup import get_skill_queue
from app.services.values import require_time_zone

INVITE_VALID = timedelta(hours=72)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _record(actor: Actor, agent: User, action: str, before=None, after=None) -> None:
    record(
        actor,
        Change(action, "user", agent.login_user_id, agent.tenant_id, before=before, after=after),
    )


def queue_names(agent: User) -> list[str]:
    return [queue.name for queue in agent.skill_queues]


def set_agent_queues(agent: User, names: Iterable[str], *, actor: Actor) -> list[str]:
    """Give the agent exactly these skill queues of its tenant (an unknown name is refused,
    by name); the names it now has, sorted."""
    wanted = sorted(set(names))
    queues = [get_skill_queue(agent.tenant, name, USER_QUEUES) for name in wanted]
    before = queue_names(agent)
    agent.skill_queues = queues
    db.session.flush()
    _record(actor, agent, "agent.queues_set", {"skillQueues": before}, {"skillQueues": wanted})
    # The callbacks of a queue it no longer works are that queue's at once.
    callbacks.hand_back(agent, actor=actor, now=utcnow(), reason=callbacks.OFF_QUEUE)
    return wanted


def set_agent_zone(agent: User, zone: str | None, *, actor: Actor) -> str | None:
    """The agent's own time zone (an IANA name), in which the desk says times; None: UTC."""
    zone = zone or None
    if zone is not None:
        require_time_zone(zone, USER_TIME_ZONE)
    before = agent.time_zone
    agent.time_zone = zone
    _record(actor, agent, "agent.zone_set", {"timeZone": before}, {"timeZone": zone})
    return zone


def invite(agent: User, *, actor: Actor, now: datetime | None = None) -> str:
    """A new one-time invitation for the agent (any earlier one is void); the token to put
    in the link. Only its SHA-256 is kept."""
    token = secrets.token_urlsafe(32)
    expires = (now or utcnow()) + INVITE_VALID
    agent.invite_hash = _digest(token)
    agent.invite_expires_at = expires
    _record(actor, agent, "agent.invited", after={"expiresAt": expires.isoformat()})
    return token


def invite_link(base_url: str, token: str) -> str:
    return f"{base_url.rstrip('/')}/desk/invite/{token}"


def invited(token: str, now: datetime | None = None) -> User | None:
    """The agent this unspent, unexpired invitation is for, or None."""
    if not token or len(token) > 128:
        return None
    agent = db.session.scalar(select(User).filter_by(invite_hash=_digest(token)))
    if agent is None or agent.invite_expires_at is None or not agent.active:
        return None
    return agent if (now or utcnow()) < agent.invite_expires_at else None


def accept_invite(token: str, password: str, *, now: datetime | None = None) -> User:
    """Set the invited agent's password and spend the invitation; every desk session the
    agent had ends (the caller starts a new one)."""
    agent = invited(token, now)
    if agent is None:
        raise InvalidInput("this invitation is not valid: it was used, replaced or expired")
    set_desk_password(agent, password, actor=Actor.agent(agent.login_user_id))
    return agent


def set_desk_password(agent: User, password: str, *, actor: Actor) -> None:
    """Give the agent this desk password (the supervisors' rules); any open invitation is
    void and every desk session the agent had ends."""
    check_password(password)
    agent.password_hash = hash_password(password)
    agent.invite_hash = None
    agent.invite_expires_at = None
    sessions.end_sessions(agent, sessions.AGENTS)
    _record(actor, agent, "agent.password_set", after={"set": True})


def authenticate(tenant: Tenant | None, login_user_id: str, password: str) -> User | None:
    """The agent with these credentials, or None; the same work whichever part is wrong.
    A tenant whose agents' own passwords are switched off signs nobody in this way."""
    agent = None
    if tenant is not None and tenant.local_agent_passwords:
        agent = db.session.scalar(
            select(User).filter_by(tenant_id=tenant.id, login_user_id=login_user_id)
        )
    valid = password_matches(agent.password_hash if agent is not None else None, password)
    return agent if valid and agent.active else None
