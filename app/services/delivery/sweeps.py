"""What time ends on its own: preferred-agent holds, idle reservations, silent desks.

The worker's clock calls these every tick (app/jobs/clock.py). Delivery never waits for
them: `next_task` already treats an ended hold as no hold and a lapsed reservation as none;
the clock makes the stored data say so too (search shows no preferredAgent, the agent's
state reads OFFLINE, the task reads unreserved), each change with its audit record and event.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_, select

from app.extensions import db
from app.models import EndedHow, Task, User
from app.models.agents import AgentState
from app.services.actors import Actor
from app.services.campaigns.life_cycle import stopped_ids
from app.services.delivery import rules
from app.services.delivery.agent_state import record_state
from app.services.delivery.closing import release
from app.services.tasks.snapshots import task_snapshot
from app.services.tasks.tracing import trace_change
from app.services.tasks.writes import touch

HOLD_ENDED = Actor.system("preferred-agent-hold")
RESERVATION_TIMEOUT = Actor.system("reservation-timeout")
AGENT_IDLE = Actor.system("agent-idle")


def clear_preference(task: Task, now: datetime) -> None:
    """The hold ended undelivered: the task loses its preferred agent, for any agent."""
    before = task_snapshot(task)
    task.preferred_agent, task.hold_until = None, None
    touch(task, now)
    trace_change(HOLD_ENDED, "task.preferred_agent_cleared", task, before, task_snapshot(task))


def expire_holds(now: datetime) -> int:
    """Clear the preference of every open, unreserved task whose hold has ended; a hold of
    a campaign that delivers nothing (paused, archived) waits (resuming restarts it)."""
    tasks = db.session.scalars(
        select(Task)
        .where(
            Task.preferred_agent.is_not(None),
            Task.hold_until <= now,
            rules.in_open_state(),
            Task.reserved_by_id.is_(None),
            Task.campaign_id.not_in(stopped_ids()),
        )
        .with_for_update(of=Task, skip_locked=True)
    ).all()
    for task in tasks:
        clear_preference(task, now)
    return len(tasks)


def expire_silent_agents(now: datetime) -> int:
    """Agents not OFFLINE but silent past AGENT_IDLE_SECONDS become OFFLINE."""
    idle = now - rules.seconds("AGENT_IDLE_SECONDS")
    agents = db.session.scalars(
        select(User).where(
            User.desk_state != AgentState.OFFLINE.value,
            or_(User.last_seen_at.is_(None), User.last_seen_at <= idle),
        )
    ).all()
    for agent in agents:
        before, reason = agent.desk_state, agent.desk_state_reason
        agent.desk_state, agent.desk_state_since = AgentState.OFFLINE.value, now
        agent.desk_state_reason = None
        record_state(
            agent, before, AgentState.OFFLINE.value, actor=AGENT_IDLE, now=now,
            reasons=(reason, None),
        )  # fmt: skip
    return len(agents)


def expire_reservations(now: datetime) -> int:
    """Release reservations idle past OFFER_TIMEOUT_SECONDS, or held by an agent who is
    offline, silent or gone (a deleted user)."""
    expire_silent_agents(now)
    live = select(User.id).where(User.desk_state != AgentState.OFFLINE.value)
    tasks = db.session.scalars(
        select(Task)
        .where(
            Task.reserved_by_id.is_not(None),
            or_(rules.reservation_lapsed(now), Task.reserved_by_id.not_in(live)),
        )
        .with_for_update(of=Task, skip_locked=True)
    ).all()
    for task in tasks:
        release(
            task,
            actor=RESERVATION_TIMEOUT,
            now=now,
            reason="task.reservation_lapsed",
            how=EndedHow.LAPSED,
        )
    return len(tasks)
