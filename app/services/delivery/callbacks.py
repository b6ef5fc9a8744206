"""Callbacks: the open tasks kept for one agent while their hold runs (a personal callback
the agent scheduled, or a preferred agent sent with the task), listed for that agent and for
the supervisors, handed to another agent, and handed back to the queue at once when their
agent can no longer work them (deleted, or no longer in the task's queue)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.extensions import db
from app.models import Campaign, SkillQueue, Task, Tenant, User
from app.services.actors import Actor
from app.services.delivery import rules
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import TASK_PREFERRED_AGENT
from app.services.schedules import calling_windows
from app.services.tasks.display import NAME_KEY
from app.services.tasks.snapshots import task_snapshot
from app.services.tasks.tracing import trace_change
from app.services.tasks.writes import touch

HANDED_OVER = "task.callback_handed_over"
HANDED_BACK = "task.preferred_agent_cleared"
# Why a callback went back to its queue before its hold ran out.
DELETED, OFF_QUEUE = "agent deleted", "agent no longer in the task's queue"
# How many callbacks one list shows at most (the soonest first).
SHOWN = 500
AGENT = TASK_PREFERRED_AGENT.said_as("agent")


@dataclass(frozen=True)
class Callback:
    """One task kept for an agent: when it is due (None: now), until when it is kept."""

    task: Task
    agent: str
    due: datetime | None
    kept_until: datetime
    name: str | None
    zones: tuple[str, ...]


def _kept(tenant_id: int):
    """The tenant's open tasks with a preferred agent."""
    return (
        select(Task)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(
            Campaign.tenant_id == tenant_id,
            rules.in_open_state(),
            Task.preferred_agent.is_not(None),
        )
    )


def _held(tenant_id: int, now: datetime):
    """Those whose hold runs at `now`."""
    return _kept(tenant_id).where(rules.hold_running(now))


def _callback(task: Task) -> Callback:
    name = next((i.value for i in task.items if i.key == NAME_KEY), None)
    zones = tuple(calling_windows.zones_of(task))
    return Callback(
        task, task.preferred_agent or "", task.next_earliest_work_at, task.hold_until, name, zones
    )


def callbacks(tenant: Tenant, now: datetime, agent: str | None = None) -> list[Callback]:
    """The tenant's tasks kept for an agent now (for `agent` alone when named), the
    soonest due first."""
    query = _held(tenant.id, now).options(selectinload(Task.items), selectinload(Task.campaign))
    if agent is not None:
        query = query.where(Task.preferred_agent == agent)
    query = query.order_by(Task.next_earliest_work_at, Task.id).limit(SHOWN)
    return [_callback(task) for task in db.session.scalars(query)]


def hand_over(
    tenant: Tenant, record_id: str, to_login: str, *, actor: Actor, now: datetime
) -> Task:
    """Keep the callback for another agent of its queue (the same time, the same hold)."""
    task = db.session.scalar(
        _held(tenant.id, now).where(Task.record_id == record_id).with_for_update(of=Task)
    )
    if task is None:
        raise NotFound(f"task {record_id} is not kept for an agent now")
    agent = db.session.scalar(
        select(User).where(User.tenant_id == tenant.id, User.login_user_id == to_login)
    )
    if agent is None:
        raise InvalidInput(f"{AGENT} '{to_login}' does not exist", field=AGENT)
    if not agent.active:
        raise InvalidInput(f"{AGENT} '{to_login}' is deactivated", field=AGENT)
    if task.skill_queue_id not in {queue.id for queue in agent.skill_queues}:
        queue = db.session.get(SkillQueue, task.skill_queue_id)
        raise InvalidInput(
            f"{AGENT} '{to_login}' does not work the task's queue {queue.name}", field=AGENT
        )
    if task.reserved_by_id is not None and task.reserved_at > now - rules.seconds(
        "OFFER_TIMEOUT_SECONDS"
    ):  # reserved, not lapsed (rules.reservation_lapsed)
        raise Conflict(f"task {record_id} is with an agent now: hand it over once closed")
    before, from_login = task_snapshot(task), task.preferred_agent
    if from_login == to_login:
        return task
    task.preferred_agent = to_login
    touch(task, now)
    trace_change(
        actor,
        HANDED_OVER,
        task,
        before,
        task_snapshot(task),
        **{"from": from_login, "to": to_login},
    )
    return task


def hand_back(agent: User, *, actor: Actor, now: datetime, reason: str) -> int:
    """End the holds kept for `agent` on the tasks it can no longer work: those outside its
    queues when it is OFF_QUEUE, else every one (DELETED, deactivated); each task is any
    agent's of its queue at once. How many."""
    query = _kept(agent.tenant_id).where(Task.preferred_agent == agent.login_user_id)
    if reason == OFF_QUEUE:
        query = query.where(Task.skill_queue_id.not_in([q.id for q in agent.skill_queues]))
    tasks = db.session.scalars(query.with_for_update(of=Task)).all()
    for task in tasks:
        before = task_snapshot(task)
        task.preferred_agent, task.hold_until = None, None
        touch(task, now)
        trace_change(actor, HANDED_BACK, task, before, task_snapshot(task), reason=reason)
    return len(tasks)
