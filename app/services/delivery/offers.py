"""The next task for an agent: pick, reserve and record one, or say why there is none.

Order: tasks held for this agent first, then due reschedules (WORKED, oldest next earliest
time first, then any WORKED without a time), then NOTWORKED tasks oldest first. Within a
tier, campaigns sharing the agent's queues take turns: the campaign delivered from least
recently (`campaigns.last_delivered_at`, never first) goes first, so a large campaign never
starves a small one.

Two agents never receive the same task: on PostgreSQL candidates are read `FOR UPDATE SKIP
LOCKED` (a task another request is delivering is passed over, not waited on) and the agent's
own row is locked first (one agent's parallel requests take turns); on SQLite every writing
request starts with BEGIN IMMEDIATE, so deliveries are serialised by the write lock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, select

from app.extensions import db
from app.models import Campaign, Task, User
from app.models.agents import AgentState
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import rules
from app.services.delivery.rules import Seat
from app.services.delivery.sweeps import clear_preference
from app.services.errors import NotAvailable
from app.services.task_trail import trace_change
from app.services.task_wire import task_snapshot
from app.services.task_writes import touch

NO_TASKS = "no tasks in your queues"
ALL_HELD = "every task is held for other agents"


@dataclass
class Offer:
    """The task delivered (or delivered again), or why there is none and when one is due."""

    task: Task | None
    reason: str | None = None
    next_due: datetime | None = None


@dataclass(frozen=True)
class Tier:
    """One step of the order: which tasks, in what order.

    A tier `per_campaign` is asked campaign by campaign (its partial index finds each
    campaign's first task at once); another holds few tasks and is asked in one query.
    """

    name: str
    where: Callable[[Seat], ColumnElement[bool]]
    order: tuple
    per_campaign: bool = True


# Campaigns take turns: the one delivered from least recently (never first) goes first.
ROTATION = (Campaign.last_delivered_at.is_not(None), Campaign.last_delivered_at, Campaign.id)
TIERS = (
    Tier("held", rules.held_for_agent, (Task.id,), per_campaign=False),
    # A bounded range of the WORKED index: without the bound, `is_due`'s OR would read every
    # WORKED task of the campaign when none is due yet.
    Tier(
        "rescheduled",
        lambda seat: and_(rules.RESCHEDULED, Task.next_earliest_work_at <= seat.now),
        (Task.next_earliest_work_at, Task.id),
    ),
    # WORKED without a next earliest time (no door stores one, but a row may hold it): due
    # at once, after those that waited for their time.
    Tier(
        "worked",
        lambda _seat: and_(rules.RESCHEDULED, Task.next_earliest_work_at.is_(None)),
        (Task.id,),
    ),
    Tier("new", lambda _seat: rules.NOT_WORKED, (Task.id,)),
)


def check_available(agent: User, now: datetime) -> None:
    """NotAvailable unless the agent is AVAILABLE and has been heard from lately."""
    state = rules.effective_state(agent, now)
    if state != AgentState.AVAILABLE:
        raise NotAvailable(f"agent '{agent.login_user_id}' is {state}, not AVAILABLE")


def _lock_agent(agent: User) -> None:
    """One agent's simultaneous requests take turns (PostgreSQL; SQLite serialises anyway)."""
    db.session.execute(select(User.id).where(User.id == agent.id).with_for_update())


def reserved_task(agent: User) -> Task | None:
    """The open task this agent holds now, if any."""
    return db.session.scalar(
        select(Task)
        .where(Task.reserved_by_id == agent.id, rules.in_open_state())
        .order_by(Task.reserved_at.desc())
        .limit(1)
    )


def next_task(agent: User, *, actor: Actor, now: datetime | None = None) -> Offer:
    """The agent's current task again, else the next deliverable task reserved for them."""
    now = now or utcnow()
    check_available(agent, now)
    _lock_agent(agent)
    held = reserved_task(agent)
    if held is not None:
        held.reserved_at = now  # asking again is activity: the offer timeout restarts
        return Offer(held)
    seat = Seat.of(agent, now)
    if not seat.queue_ids:
        return Offer(None, NO_TASKS)
    task = _pick(seat, agent.tenant_id)
    if task is None:
        return _nothing(seat)
    deliver(task, agent, actor=actor, now=now)
    return Offer(task)


def _campaigns(tenant_id: int) -> list[int]:
    """The tenant's campaigns, least recently delivered from first."""
    return list(
        db.session.scalars(
            select(Campaign.id).where(Campaign.tenant_id == tenant_id).order_by(*ROTATION)
        )
    )


def _pick(seat: Seat, tenant_id: int) -> Task | None:
    """The first task of the first tier that has one, campaigns taking turns."""
    campaigns = None
    eligible = rules.deliverable(seat)
    for tier in TIERS:
        first = (
            select(Task)
            .where(tier.where(seat), eligible)
            .limit(1)
            .with_for_update(of=Task, skip_locked=True)
        )
        if tier.per_campaign:
            campaigns = _campaigns(tenant_id) if campaigns is None else campaigns
            queries = [first.where(Task.campaign_id == c).order_by(*tier.order) for c in campaigns]
        else:
            queries = [
                first.join(Campaign, Campaign.id == Task.campaign_id)
                .where(Campaign.tenant_id == tenant_id)
                .order_by(*ROTATION, *tier.order)
            ]
        for query in queries:
            if (task := db.session.scalar(query)) is not None:
                return task
    return None


def deliver(task: Task, agent: User, *, actor: Actor, now: datetime) -> None:
    """Reserve the task for the agent and record the attempt's start."""
    if task.preferred_agent and task.preferred_agent != agent.login_user_id:
        # Its hold ended before the clock cleared it: clear it now, as the clock would.
        clear_preference(task, now)
    before = task_snapshot(task)
    task.reserved_by_id, task.reserved_at = agent.id, now
    task.last_attempt_at, task.last_attempt_agent = now, agent.login_user_id
    touch(task, now)
    task.campaign.last_delivered_at = now
    trace_change(actor, "task.delivered", task, before, task_snapshot(task))


def _nothing(seat: Seat) -> Offer:
    """Why nothing was delivered: kept back by hours, window or list; held for others; due
    later; or nothing at all. Times are said in the agent's zone."""
    in_queues = and_(rules.in_open_state(), rules.in_agent_queues(seat))
    next_due = db.session.scalar(
        select(func.min(Task.next_earliest_work_at)).where(
            in_queues, Task.next_earliest_work_at > seat.now
        )
    )
    ready = rules.ready(seat)
    for blocker in rules.BLOCKERS:
        if (blocked := blocker(seat, ready)) is not None:
            return Offer(None, blocked.reason, blocked.until)
    held_elsewhere = db.session.scalar(
        select(Task.id)
        .where(in_queues, rules.is_due(seat), rules.is_unreserved(seat), ~rules.hold_allows(seat))
        .limit(1)
    )
    if held_elsewhere is not None:
        return Offer(None, ALL_HELD, next_due)
    if next_due is not None:
        return Offer(None, f"the next task is due at {seat.local(next_due)}", next_due)
    return Offer(None, NO_TASKS)


def in_work(now: datetime) -> ColumnElement[bool]:
    """Reserved by an agent and not lapsed (for the supervisors' counts)."""
    return and_(Task.reserved_by_id.is_not(None), ~rules.reservation_lapsed(now))
