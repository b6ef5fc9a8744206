"""An agent's desk state (AVAILABLE, AWAY, OFFLINE) and heartbeat."""

from __future__ import annotations

from datetime import datetime

from app.extensions import db
from app.models import User
from app.models.agents import AgentState
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit import trail as history
from app.services.delivery.closing import release_all
from app.services.delivery.rules import effective_state
from app.services.errors import InvalidInput

STATES = tuple(state.value for state in AgentState)


def heartbeat(agent: User, now: datetime | None = None) -> None:
    """The desk is still open: the agent is not silent."""
    agent.last_seen_at = now or utcnow()


def set_agent_state(agent: User, state: str, *, actor: Actor, now: datetime | None = None) -> None:
    """Set the agent's state; OFFLINE releases the task the agent holds."""
    if state not in STATES:
        raise InvalidInput(f"state '{state}' is not one of {', '.join(STATES)}")
    now = now or utcnow()
    before = effective_state(agent, now)
    heartbeat(agent, now)
    if state == AgentState.OFFLINE:
        release_all(agent, actor=actor, now=now)
    if before == state and agent.desk_state == state:
        return
    agent.desk_state, agent.desk_state_since = state, now
    record_state(agent, before, state, actor=actor, now=now)


def record_state(agent: User, before: str, after: str, *, actor: Actor, now: datetime) -> None:
    """The audit record and the `agent.state_changed` event of a state change."""
    history.record(
        actor,
        history.Change(
            "agent.state_changed",
            "agent",
            agent.login_user_id,
            agent.tenant_id,
            {"state": before},
            {"state": after},
            event_type="agent.state_changed",
            event_data={"agent": agent.login_user_id, "from": before, "to": after},
            subject=agent.login_user_id,
        ),
        now,
    )
    db.session.flush()
