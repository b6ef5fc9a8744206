"""An agent's desk state (AVAILABLE, AWAY, OFFLINE), its heartbeat and its history.

Every change of state ends the agent's open span (`AgentStateSpan`) and opens one for the
new state, in the change's transaction: the agents report's time Available, Away and in
work. An agent with no span yet (a change before the history existed) gets one from the
change on; no earlier time is made up.

AWAY may carry a reason, one of the tenant's (`away_reasons`): a change of reason while
AWAY is a change too (a new span, an `agent.state_changed` event saying both reasons), and
any other state has none."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update

from app.extensions import db
from app.models import AgentStateSpan, User
from app.models.agents import AgentState
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit import trail as history
from app.services.delivery.away_reasons import REASON, checked_reason
from app.services.delivery.closing import release_all
from app.services.delivery.rules import effective_state
from app.services.errors import InvalidInput, NotFound
from app.services.fields import AGENT_STATE

STATES = tuple(state.value for state in AgentState)


def hold_agent(agent: User) -> None:
    """Take the agent's row for the rest of the transaction (PostgreSQL; SQLite serialises
    writes anyway): the agent's simultaneous requests, and its deletion, take turns. NotFound,
    as for an unknown agent, when it was deleted since it was read."""
    query = select(User.id).where(User.id == agent.id)
    if db.session.get_bind().dialect.name != "sqlite":
        query = query.with_for_update()
    if db.session.scalar(query) is None:
        raise NotFound(f"agent '{agent.login_user_id}' is not a user of this environment")


def heartbeat(agent: User, now: datetime | None = None) -> None:
    """The desk is still open: the agent is not silent."""
    agent.last_seen_at = now or utcnow()


def set_agent_state(
    agent: User,
    state: str,
    *,
    actor: Actor,
    reason: str | None = None,
    now: datetime | None = None,
) -> None:
    """Set the agent's state (AWAY with one of the tenant's reasons, or none); OFFLINE
    releases the task the agent holds. A reason with another state is refused."""
    if state not in STATES:
        raise InvalidInput(
            f"state '{state}' is not one of {', '.join(STATES)}", field=AGENT_STATE.said_as("state")
        )
    if reason is not None and reason.strip() and state != AgentState.AWAY:
        raise InvalidInput(f"reason is given only with AWAY, not {state}", field=REASON)
    reason = checked_reason(agent.tenant_id, reason) if state == AgentState.AWAY else None
    now = now or utcnow()
    before = effective_state(agent, now)
    before_reason = agent.desk_state_reason if before == AgentState.AWAY else None
    heartbeat(agent, now)
    if state == AgentState.OFFLINE:
        release_all(agent, actor=actor, now=now)
    if before == state and agent.desk_state == state and before_reason == reason:
        return
    agent.desk_state, agent.desk_state_since = state, now
    agent.desk_state_reason = reason
    record_state(agent, before, state, actor=actor, now=now, reasons=(before_reason, reason))


def record_state(
    agent: User,
    before: str,
    after: str,
    *,
    actor: Actor,
    now: datetime,
    reasons: tuple[str | None, str | None] = (None, None),
) -> None:
    """The span, the audit record and the `agent.state_changed` event of a state change
    (`reasons`: AWAY's reason before and after, None for none)."""
    end_span(agent, now)
    db.session.add(
        AgentStateSpan(
            tenant_id=agent.tenant_id,
            agent_id=agent.id,
            agent_login=agent.login_user_id,
            state=after,
            reason=reasons[1],
            started_at=now,
        )
    )
    history.record(
        actor,
        history.Change(
            "agent.state_changed",
            "agent",
            agent.login_user_id,
            agent.tenant_id,
            {"state": before, "reason": reasons[0]},
            {"state": after, "reason": reasons[1]},
            event_type="agent.state_changed",
            event_data={
                "agent": agent.login_user_id,
                "from": before,
                "to": after,
                "fromReason": reasons[0],
                "reason": reasons[1],
            },
            subject=agent.login_user_id,
        ),
        now,
    )
    db.session.flush()


def end_span(agent: User, now: datetime) -> None:
    """End the agent's open span at `now` (a change of state, the agent's deletion)."""
    db.session.execute(
        update(AgentStateSpan)
        .where(AgentStateSpan.agent_id == agent.id, AgentStateSpan.ended_at.is_(None))
        .values(ended_at=now)
        .execution_options(synchronize_session="fetch")
    )


def open_span(agent: User) -> AgentStateSpan | None:
    """The agent's current span; None before the agent's first recorded change."""
    return db.session.scalar(
        select(AgentStateSpan)
        .where(AgentStateSpan.agent_id == agent.id, AgentStateSpan.ended_at.is_(None))
        .order_by(AgentStateSpan.id.desc())
        .limit(1)
    )
