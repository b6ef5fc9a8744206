"""Which of a set of tasks agents hold right now, and who: what a supervisor is told
before a change that takes tasks from agents' hands (a bulk job, a delete, a move).

A set is a select of tasks (a search's matches, one task); the answer counts every held
task of it and names the first few, oldest reservation first, so a review stays readable
however many agents are at work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Select, func, select

from app.extensions import db
from app.models import Task, User
from app.models.types import utcnow
from app.services.delivery.progress import held_now

NAMED = 10  # how many held tasks a review names; the rest are counted


@dataclass(frozen=True)
class HeldTask:
    """One task in an agent's hands: the task, the agent, and since when."""

    record_id: str
    client_id: str
    agent_name: str  # "First Last", or the e-mail or loginUserId when no name is known
    login_user_id: str
    since: datetime


@dataclass(frozen=True)
class HeldTasks:
    """How many tasks of a set agents hold now, and the first of them by name."""

    count: int = 0
    named: list[HeldTask] = field(default_factory=list)

    @property
    def more(self) -> int:
        """How many held tasks are counted but not named."""
        return self.count - len(self.named)


def agent_name(agent: User) -> str:
    """What a supervisor calls the agent: the name, else the e-mail, else the login."""
    name = f"{agent.first_name or ''} {agent.last_name or ''}".strip()
    return name or agent.primary_email or agent.login_user_id


def held_among(tasks: Select, *, now: datetime | None = None, named: int = NAMED) -> HeldTasks:
    """The tasks of `tasks` (a select of Task) that agents hold now: counted, the first
    `named` of them named with their agent and since when."""
    now = now or utcnow()
    held = tasks.where(held_now(now))
    count = db.session.scalar(held.with_only_columns(func.count(Task.id)).order_by(None)) or 0
    if not count:
        return HeldTasks()
    rows = db.session.execute(
        held.with_only_columns(
            Task.record_id,
            Task.client_id,
            Task.reserved_at,
            Task.last_attempt_at,
            Task.last_attempt_agent,
            User,
        )
        .join(User, User.id == Task.reserved_by_id)
        .order_by(Task.last_attempt_at, Task.id)
        .limit(named)
    )
    return HeldTasks(
        count,
        [
            HeldTask(
                record_id,
                client_id,
                agent_name(agent),
                agent.login_user_id,
                # the delivery of this attempt; the reservation's last activity otherwise
                delivered if delivered and by == agent.login_user_id else reserved,
            )
            for record_id, client_id, reserved, delivered, by, agent in rows
        ],
    )


def held_task(task: Task, *, now: datetime | None = None) -> HeldTasks:
    """Whether an agent holds this one task now, and who."""
    return held_among(select(Task).where(Task.id == task.id), now=now)
