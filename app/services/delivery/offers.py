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

from sqlalchemy import ColumnElement, and_, func, select, update

from app.extensions import db
from app.models import Campaign, Task, User
from app.models.agents import AgentState
from app.models.types import stamped
from app.services.actors import Actor
from app.services.calls.ledger import open_attempt
from app.services.campaigns import life_cycle as campaign_status
from app.services.delivery import rules
from app.services.delivery.agent_state import hold_agent
from app.services.delivery.rules import Seat
from app.services.delivery.sweeps import clear_preference
from app.services.errors import NotAvailable
from app.services.schedules import calling_windows
from app.services.tasks.data import TaskData
from app.services.tasks.snapshots import snapshot, task_data
from app.services.tasks.tracing import trace_change
from app.services.tasks.writes import touch

NO_TASKS = "no tasks in your queues"
ALL_HELD = "every task is held for other agents"


@dataclass
class Offer:
    """The task delivered (or delivered again), or why there is none and when one is due."""

    task: Task | None
    reason: str | None = None
    next_due: datetime | None = None
    # The delivered task's items and work codes, read once by the delivery (none when the
    # task was delivered before: a reader reads them itself).
    data: TaskData | None = None


@dataclass(frozen=True)
class Tier:
    """One step of the order: which tasks, in what order.

    A tier `per_campaign` is asked campaign by campaign (its partial index, `index`, finds
    each campaign's first task at once); another holds few tasks and is asked in one query.
    SQLite is told the index (INDEXED BY): from its statistics it may take the campaign's
    index by state instead, which holds every WORKED task of the campaign, and walk it all
    when none has the tier's time (80 ms at a million tasks instead of 0.05).
    """

    name: str
    where: Callable[[Seat], ColumnElement[bool]]
    order: tuple
    per_campaign: bool = True
    index: str | None = None


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
        index="ix_tasks_delivery_due",
    ),
    # WORKED without a next earliest time (no door stores one, but a row may hold it): due
    # at once, after those that waited for their time.
    Tier(
        "worked",
        lambda _seat: and_(rules.RESCHEDULED, Task.next_earliest_work_at.is_(None)),
        (Task.id,),
        index="ix_tasks_delivery_untimed",
    ),
    Tier("new", lambda _seat: rules.NOT_WORKED, (Task.id,), index="ix_tasks_delivery_new"),
)


def check_available(agent: User, now: datetime) -> None:
    """NotAvailable unless the agent is AVAILABLE and has been heard from lately."""
    state = rules.effective_state(agent, now)
    if state != AgentState.AVAILABLE:
        raise NotAvailable(f"agent '{agent.login_user_id}' is {state}, not AVAILABLE")


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
    check_available(agent, stamped(now))
    hold_agent(agent)  # the agent's requests take turns
    held = reserved_task(agent)
    if held is not None:
        held.reserved_at = stamped(now)  # asking again is activity: the offer timeout restarts
        return Offer(held)
    seat = Seat.of(agent, stamped(now))  # read after the agent's lock, so is what follows
    if not seat.queue_ids:
        return Offer(None, NO_TASKS)
    task = _pick(seat)
    if task is None:
        return _nothing(seat)
    # Stamped once the task is locked: after the end of any attempt it waited for.
    return Offer(task, data=deliver(task, agent, actor=actor, now=stamped(now)))


def _campaigns(seat: Seat) -> list[int]:
    """The tenant's delivering campaigns that may hold a task for the seat, least recently
    delivered from first. A campaign none of whose tasks is inside its calling window now is
    left out: its first task inside would otherwise be looked for past every task outside."""
    closed = calling_windows.closed_campaigns(seat)
    query = (
        select(Campaign.id)
        .where(Campaign.tenant_id == seat.tenant_id, campaign_status.delivering())
        .order_by(*ROTATION)
    )
    return [campaign for campaign in db.session.scalars(query) if campaign not in closed]


def _pick(seat: Seat) -> Task | None:
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
            campaigns = _campaigns(seat) if campaigns is None else campaigns
            # Ordered by the campaign first (one value here): only the tier's index gives
            # that order, so PostgreSQL never walks the primary key hoping to meet the
            # campaign's first task early.
            by_campaign = first.order_by(Task.campaign_id, *tier.order)
            if tier.index:
                by_campaign = by_campaign.with_hint(Task, f"INDEXED BY {tier.index}", "sqlite")
            queries = [by_campaign.where(Task.campaign_id == c) for c in campaigns]
        else:
            queries = [
                first.join(Campaign, Campaign.id == Task.campaign_id)
                .where(Campaign.tenant_id == seat.tenant_id)
                .order_by(*ROTATION, *tier.order)
            ]
        for query in queries:
            if (task := db.session.scalar(query)) is not None:
                return task
    return None


def deliver(task: Task, agent: User, *, actor: Actor, now: datetime) -> TaskData:
    """Reserve the task for the agent and record the attempt's start; its data."""
    if task.preferred_agent and task.preferred_agent != agent.login_user_id:
        # Its hold ended before the clock cleared it: clear it now, as the clock would.
        clear_preference(task, now)
    data = task_data(task)  # a delivery changes the task's columns only, never its data
    before = snapshot(data)
    # Taken back from another agent by a supervisor: that is over once someone has it.
    task.passed_over_agent, task.passed_over_until = None, None
    open_attempt(task, agent, now)
    task.reserved_by_id, task.reserved_at = agent.id, now
    task.last_attempt_at, task.last_attempt_agent = now, agent.login_user_id
    touch(task, now)
    _took_turn(task.campaign_id, now)
    trace_change(actor, "task.delivered", task, before, snapshot(data))
    return data


def _took_turn(campaign_id: int, now: datetime) -> None:
    """The campaign was delivered from now: it goes to the back of the rotation.

    On PostgreSQL a campaign row another delivery has just stamped is left as it is (SKIP
    LOCKED): its stamp is as recent, and agents pulling at once never queue on that row.
    """
    locked = select(Campaign.id).where(Campaign.id == campaign_id).with_for_update(skip_locked=True)
    db.session.execute(
        update(Campaign)
        .where(Campaign.id.in_(locked))
        .values(last_delivered_at=now)
        .execution_options(synchronize_session=False)
    )


def _nothing(seat: Seat) -> Offer:
    """Why nothing was delivered: kept back by a paused campaign, hours, window or list; held
    for others; due later; or nothing at all. Times are said in the agent's zone. Tasks of
    campaigns that deliver nothing are never "held" or "due" (a paused one says so)."""
    in_queues = and_(
        rules.in_open_state(), rules.in_agent_queues(seat), campaign_status.campaign_delivers(seat)
    )
    next_due = db.session.scalar(
        select(func.min(Task.next_earliest_work_at)).where(
            in_queues, Task.next_earliest_work_at > seat.now
        )
    )
    ready = rules.ready(seat)
    for blocker, blocked in rules.blocking(seat, ready):
        if blocker is campaign_status.stopped_campaigns and next_due is not None:
            # Paused until someone resumes it; a delivering campaign's task falls due sooner.
            said = f"{blocked.reason}; the next task is due at {seat.local(next_due)}"
            return Offer(None, said, next_due)
        return Offer(None, blocked.reason, blocked.until)
    held_elsewhere = db.session.scalar(
        select(Task.id)
        .where(in_queues, rules.is_due(seat), rules.is_unreserved(seat), ~rules.hold_allows(seat))
        .limit(1)
    )
    if held_elsewhere is not None:
        return Offer(None, ALL_HELD, next_due)
    taken_back_until = db.session.scalar(
        select(func.min(Task.passed_over_until)).where(
            in_queues,
            rules.is_due(seat),
            rules.is_unreserved(seat),
            rules.hold_allows(seat),
            ~rules.not_passed_over(seat),
        )
    )
    if taken_back_until is not None:
        return Offer(None, taken_back(seat, taken_back_until), taken_back_until)
    if next_due is not None:
        return Offer(None, f"the next task is due at {seat.local(next_due)}", next_due)
    # Nothing else at all, but a paused campaign's tasks (e.g. not due yet): it is paused.
    waiting = and_(rules.in_open_state(), rules.in_agent_queues(seat))
    if (paused := campaign_status.stopped_campaigns(seat, waiting)) is not None:
        return Offer(None, paused.reason)
    return Offer(None, NO_TASKS)


def taken_back(seat: Seat, until: datetime) -> str:
    return (
        "a supervisor took the remaining tasks back from you: other agents get them "
        f"until {seat.local(until)}"
    )


def in_work(now: datetime) -> ColumnElement[bool]:
    """Reserved by an agent and not lapsed (for the supervisors' counts)."""
    return and_(Task.reserved_by_id.is_not(None), ~rules.reservation_lapsed(now))
