"""An open desk keeps its agent present, and warns before the agent's task lapses.

Two clocks can take a task from an agent (`sweeps`): silence past AGENT_IDLE_SECONDS
(the agent counts as offline) and a reservation left without activity for
OFFER_TIMEOUT_SECONDS. The desk's heartbeat answers the first: while the page is open the
agent is present. Activity answers the second: the agent doing something with the task
(`active`), or one click on "Keep it" when the desk warns that the task is about to return
to the queue (`keep_task`). `Presence` tells the desk when each clock runs out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.models import Task, User
from app.models.types import utcnow
from app.services.delivery import rules
from app.services.delivery.agent_state import heartbeat
from app.services.delivery.offers import reserved_task
from app.services.delivery.ownership import held_task


@dataclass(frozen=True)
class Presence:
    """The agent's state and task as delivery sees them, and when each lapse would come."""

    state: str
    task: Task | None
    # Silent past this moment, the agent counts as offline (and loses the task).
    idle_lapses_at: datetime
    # Without activity past this moment, the task returns to its queue (None: no task).
    offer_lapses_at: datetime | None
    # How long before a lapse the desk warns.
    warn_seconds: int


def warn_seconds() -> int:
    """DESK_WARN_SECONDS, but never more than half the offer timeout (a warning from the
    moment of delivery would be no warning). The idle lapse is warned of with the same
    lead, when the desk cannot reach the server."""
    half_offer = rules.setting("OFFER_TIMEOUT_SECONDS") / 2
    return max(1, int(min(rules.setting("DESK_WARN_SECONDS"), half_offer)))


def presence(agent: User, now: datetime) -> Presence:
    """Where the agent stands now: state, task held, and when each lapse would come."""
    task = reserved_task(agent)
    offer_lapses_at = None
    if task is not None and task.reserved_at is not None:
        offer_lapses_at = task.reserved_at + rules.seconds("OFFER_TIMEOUT_SECONDS")
    seen = agent.last_seen_at or now
    return Presence(
        rules.effective_state(agent, now),
        task,
        seen + rules.seconds("AGENT_IDLE_SECONDS"),
        offer_lapses_at,
        warn_seconds(),
    )


def desk_heartbeat(agent: User, *, active: bool = False, now: datetime | None = None) -> Presence:
    """The desk is open (the agent is present); `active`: the agent worked the task since
    the last heartbeat, which restarts its offer timeout as any other action does."""
    now = now or utcnow()
    heartbeat(agent, now)
    if active and (task := reserved_task(agent)) is not None:
        task.reserved_at = now
    return presence(agent, now)


def keep_task(agent: User, record_id: str, *, now: datetime | None = None) -> Presence:
    """ "Still there? Keep it": the agent's task is theirs for another offer timeout."""
    now = now or utcnow()
    task = held_task(agent, record_id)
    task.reserved_at = now
    heartbeat(agent, now)
    return presence(agent, now)
