"""What supervisors watch: a campaign's progress, the agents' board, and releasing a task.

Every count is built from the eligibility rules (`rules`) and `offers.in_work`, the same
conditions `next_task` delivers by, so the dashboard and the desk never disagree: a task
counted deliverable now is one an AVAILABLE agent of its queue would be given.

The open tasks (NOTWORKED, WORKED) fall into five buckets, each task in exactly one:
in work (reserved, not lapsed); else waiting for their time (next earliest time ahead);
else held for a preferred agent (its hold running); else deliverable now, when it meets
every rule of ELIGIBILITY that holds for any agent of its queue; else kept back (a closed
queue, the calling window, the do-not-call list: the rules that say when and whom).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, case, exists, func, or_, select
from sqlalchemy.orm import joinedload, selectinload

from app.extensions import db
from app.models import Attempt, EndedHow, SkillQueue, Task, Tenant, User, WorkedState
from app.models.agents import AgentState, agent_skill_queues
from app.models.campaigns import Campaign
from app.models.types import stamped, utcnow
from app.services.actors import Actor
from app.services.contactability.seat import Blocked, Seat
from app.services.delivery import rules
from app.services.delivery.closing import release
from app.services.delivery.kept_back import KeptBack, reasons, refused_by, refuses
from app.services.delivery.offers import in_work
from app.services.delivery.wrap_up import WrapUp
from app.services.errors import InvalidInput, StaleTask

# The rules that depend on who asks; the rest of ELIGIBILITY holds for any agent of the queue.
PER_AGENT = (rules.in_agent_queues, rules.hold_allows, rules.not_passed_over)
# The buckets of open tasks counted by their own condition (`buckets`); kept back is the rest.
BUCKETS = ("in_work", "waiting", "held", "deliverable")


@dataclass(frozen=True)
class Progress:
    """A campaign's tasks by worked state, and its open tasks by what delivery does with them."""

    by_state: dict[str, int]
    deliverable: int
    waiting: int
    held: int
    in_work: int
    now: datetime
    # Tasks delivered to an agent at least once, whatever their state now (`attempted`).
    attempted: int = 0
    # Why the kept-back tasks wait, and until when (the queue's next opening, the calling
    # window's next opening in the customer's zone), said in the campaign's zone.
    kept_back_why: tuple[Blocked, ...] = ()
    # How many kept-back tasks each rule of when and whom refuses now (a task refused by
    # two rules counts under both), every rule in the order delivery applies them.
    kept_back_by: tuple[KeptBack, ...] = ()
    # Counted at `now` and shown since (a large campaign's snapshot), not at this request.
    snapshot: bool = False

    @property
    def total(self) -> int:
        return sum(self.by_state.values())

    @property
    def penetration(self) -> float | None:
        """Tasks attempted per task (list penetration); None without tasks."""
        return self.attempted / self.total if self.total else None

    @property
    def open(self) -> int:
        return sum(self.by_state[state] for state in rules.OPEN_STATES)

    @property
    def kept_back(self) -> int:
        """Open, due, free and unheld, yet not deliverable now: a rule of when and whom
        (hours of operation, calling window, do-not-call) keeps them back."""
        return self.open - self.deliverable - self.waiting - self.held - self.in_work


def anyone(tenant_id: int, now: datetime) -> Seat:
    """Any agent of the tenant at `now`: no queues of its own (the rules then ask about
    every queue) and no login (no hold is for it)."""
    return Seat(agent_id=0, login="", queue_ids=(), now=now, tenant_id=tenant_id)


def buckets(
    tenant_id: int, now: datetime, seat: Seat | None = None
) -> dict[str, ColumnElement[bool]]:
    """The buckets of the tenant's open tasks at `now` (all but `kept_back`, the rest), as
    SQL conditions on `tasks`."""
    seat = seat or anyone(tenant_id, now)
    free = and_(rules.in_open_state(seat), rules.is_unreserved(seat))
    due = and_(free, rules.is_due(seat))
    for_any_agent = [rule(seat) for rule in rules.ELIGIBILITY if rule not in PER_AGENT]
    return {
        "in_work": and_(rules.in_open_state(seat), in_work(now)),
        "waiting": and_(free, ~rules.is_due(seat)),
        "held": and_(due, rules.hold_running(now)),
        "deliverable": and_(*for_any_agent, ~rules.hold_running(now)),
    }


def kept_back_condition(bucketed: dict[str, ColumnElement[bool]]) -> ColumnElement[bool]:
    """Open and in none of the other buckets: what `Progress.kept_back` counts."""
    return and_(rules.in_open_state(), *(refuses(c) for c in bucketed.values()))


def _count(condition: ColumnElement[bool]):
    return func.count(case((condition, 1)))


def campaign_progress(campaign: Campaign, now: datetime | None = None) -> Progress:
    """The campaign's counts at `now`, exact: one aggregate query over its tasks (`tally`,
    after the few look-ups the rules of when and whom make, whatever the number of tasks).
    The pages show `progress_snapshots.campaign_progress`: a large campaign's snapshot."""
    now = now or utcnow()
    queues = tally(campaign.tenant_id, [campaign.id], now).get(campaign.id, {})
    return counted(campaign, queues, now)


# A tally: each figure the Progress panel counts by name ("attempted", "state.<state>", a
# bucket's name, "kept_back.<reason>"), a figure counting no task left out.
Tally = dict[str, int]


def tally(tenant_id: int, campaign_ids: list[int], now: datetime) -> dict[int, dict[int, Tally]]:
    """The figures of these campaigns of the tenant at `now`, per campaign and skill queue
    (0: none), in one aggregate query grouped by both: the Progress panel's, the
    wallboard's campaigns' and queues' counts alike."""
    if not campaign_ids:
        return {}
    seat = anyone(tenant_id, now)
    conditions = buckets(tenant_id, now, seat)
    refusals = refused_by(seat, kept_back_condition(conditions), PER_AGENT)
    named = {"attempted": attempted()}
    named |= {f"state.{state.value}": Task.worked_state == state.value for state in WorkedState}
    named |= conditions
    named |= {f"kept_back.{r.key}": refused for r, refused in refusals if refused is not None}
    rows = db.session.execute(
        select(Task.campaign_id, Task.skill_queue_id, *(_count(c) for c in named.values()))
        .where(Task.campaign_id.in_(campaign_ids))
        .group_by(Task.campaign_id, Task.skill_queue_id)
    )
    found: dict[int, dict[int, Tally]] = {}
    for campaign_id, queue_id, *counts in rows:
        figures = {name: count for name, count in zip(named, counts, strict=True) if count}
        found.setdefault(campaign_id, {})[queue_id or 0] = figures
    return found


def summed(tallies: Iterable[Tally]) -> Tally:
    """The figures of several tallies added up."""
    total: Tally = {}
    for one in tallies:
        for name, count in one.items():
            total[name] = total.get(name, 0) + count
    return total


def progress_of(
    figures: Tally, now: datetime, why: tuple[Blocked, ...] = (), snapshot: bool = False
) -> Progress:
    """The Progress of a campaign (or a queue) whose tasks counted these figures at `now`."""
    return Progress(
        by_state={state.value: figures.get(f"state.{state.value}", 0) for state in WorkedState},
        now=now,
        attempted=figures.get("attempted", 0),
        kept_back_by=tuple(
            KeptBack(
                reason.key,
                reason.label,
                figures.get(f"kept_back.{reason.key}", 0),
                reason.rule if isinstance(reason.rule, str) else "",
            )
            for reason in reasons(PER_AGENT)
        ),
        kept_back_why=why,
        snapshot=snapshot,
        **{name: figures.get(name, 0) for name in BUCKETS},
    )


def counted(campaign: Campaign, queues: dict[int, Tally], now: datetime) -> Progress:
    """The campaign's Progress from its tallies per skill queue at `now` (`tally`), with why
    its kept-back tasks wait (a few look-ups, when any do)."""
    found = progress_of(summed(queues.values()), now)
    if found.kept_back:
        found = replace(found, kept_back_why=kept_back_why(campaign, now))
    return found


def attempted() -> ColumnElement[bool]:
    """Tasks delivered to an agent at least once (or worked before, by their count)."""
    return or_(Task.last_attempt_at.is_not(None), Task.work_attempts > 0)


def kept_back_why(campaign: Campaign, now: datetime) -> tuple[Blocked, ...]:
    """What keeps the campaign's ready tasks back now, each with when it ends: the same
    answers the desk gives an agent with nothing to do (rules.BLOCKERS), for any agent, with
    times in the campaign's zone."""
    seat = replace(anyone(campaign.tenant_id, now), zone=campaign.default_time_zone or "UTC")
    ready = and_(
        Task.campaign_id == campaign.id,
        rules.in_open_state(seat),
        rules.is_due(seat),
        rules.is_unreserved(seat),
        ~rules.hold_running(now),
    )
    return tuple(blocked for _blocker, blocked in rules.blocking(seat, ready))


# --- the agents' board -----------------------------------------------------------------


@dataclass(frozen=True)
class AgentRow:
    """One agent as supervisors see it: the state delivery sees, since when, the task held."""

    agent: User
    state: str
    since: datetime | None
    queues: list[str]
    task: Task | None
    now: datetime
    # AWAY's reason (None: none, or another state) and the wrap-up of the task held, if any.
    reason: str | None = None
    wrap_up: WrapUp | None = None

    @property
    def in_state(self) -> timedelta | None:
        return None if self.since is None else max(self.now - self.since, timedelta(0))


def is_agent():
    """A user who works at the desk: has a desk password or skill queues.

    The Desk API acts for any user of the tenant, but a user without queues is never given
    a task, and one without a password never signs in to the desk page.
    """
    works_a_queue = exists().where(agent_skill_queues.c.user_id == User.id)
    return or_(User.password_hash.is_not(None), works_a_queue)


def held_now(now: datetime) -> ColumnElement[bool]:
    """Tasks held now: open, reserved and not lapsed.

    Reserved tasks are few, found by the index on `reserved_by_id`; asked for by their ids,
    because SQLite's statistics count that column's many NULLs as one common value and would
    otherwise read every task.
    """
    reserved = select(Task.id).where(Task.reserved_by_id.is_not(None))
    return and_(Task.id.in_(reserved), rules.in_open_state(), in_work(now))


def _agents_query(tenant: Tenant, now: datetime):
    # Whoever holds a task is listed too (queues taken away since), so it can be released.
    holders = select(Task.reserved_by_id).where(held_now(now))
    return select(User).where(User.tenant_id == tenant.id, or_(is_agent(), User.id.in_(holders)))


def count_agents(tenant: Tenant, now: datetime | None = None) -> int:
    query = _agents_query(tenant, now or utcnow()).with_only_columns(func.count(User.id))
    return db.session.scalar(query) or 0


def state_since(agent: User, now: datetime) -> datetime | None:
    """Since when the agent is in the state delivery sees: a silent desk became OFFLINE
    when its silence passed AGENT_IDLE_SECONDS."""
    if rules.effective_state(agent, now) != agent.desk_state and agent.last_seen_at:
        return max(agent.last_seen_at + rules.seconds("AGENT_IDLE_SECONDS"), *_known(agent))
    return agent.desk_state_since


def _known(agent: User) -> list[datetime]:
    return [agent.desk_state_since] if agent.desk_state_since else []


def held_tasks(agent_ids: list[int], now: datetime) -> dict[int, Task]:
    """The open task each of these agents holds now (reserved, not lapsed), by agent id."""
    return _held(agent_ids, now)[0]


def _held(agent_ids: list[int], now: datetime) -> tuple[dict[int, Task], dict[int, WrapUp]]:
    """The task each agent holds now, and the wrap-up of those whose call has ended (the
    open attempt's call end, the task's queue's limit), in one query."""
    if not agent_ids:
        return {}, {}
    rows = db.session.execute(
        select(Task, Attempt.call_ended_at, SkillQueue.wrap_up_limit_seconds)
        .options(joinedload(Task.campaign))
        .outerjoin(Attempt, and_(Attempt.task_id == Task.id, Attempt.ended_how.is_(None)))
        .outerjoin(SkillQueue, SkillQueue.id == Task.skill_queue_id)
        .where(held_now(now), Task.reserved_by_id.in_(agent_ids))
        .order_by(Task.reserved_at)
    )
    tasks: dict[int, Task] = {}
    wrapping: dict[int, WrapUp] = {}
    for task, call_ended, limit in rows:  # the latest reservation wins
        tasks[task.reserved_by_id] = task
        wrapping.pop(task.reserved_by_id, None)
        if call_ended is not None:
            wrapping[task.reserved_by_id] = WrapUp(call_ended, limit, now)
    return tasks, wrapping


def agent_board(
    tenant: Tenant, now: datetime | None = None, limit: int | None = None, offset: int = 0
) -> list[AgentRow]:
    """The tenant's agents by loginUserId (a page when `limit` is given), in three queries:
    the agents, their queues, the tasks they hold."""
    now = now or utcnow()
    agents = list(
        db.session.scalars(
            _agents_query(tenant, now)
            .options(selectinload(User.skill_queues))
            .order_by(User.login_user_id)
            .limit(limit)
            .offset(offset)
        )
    )
    held, wrapping = _held([agent.id for agent in agents], now)
    rows = []
    for agent in agents:
        state = rules.effective_state(agent, now)
        rows.append(
            AgentRow(
                agent=agent,
                state=state,
                since=state_since(agent, now),
                queues=[queue.name for queue in agent.skill_queues],
                task=held.get(agent.id),
                now=now,
                reason=agent.desk_state_reason if state == AgentState.AWAY else None,
                wrap_up=wrapping.get(agent.id),
            )
        )
    return rows


# --- who holds a task, and releasing it --------------------------------------------------


@dataclass(frozen=True)
class Holding:
    """The agent holding a task now, and since when (the delivery of this attempt)."""

    agent: User
    since: datetime


def holder(task: Task, now: datetime | None = None) -> Holding | None:
    """Who holds the task now (reserved, not lapsed), or None."""
    now = now or utcnow()
    agent = db.session.scalar(
        select(User)
        .join(Task, Task.reserved_by_id == User.id)
        .where(Task.id == task.id, held_now(now))
    )
    if agent is None:
        return None
    delivered = task.last_attempt_at if task.last_attempt_agent == agent.login_user_id else None
    return Holding(agent, delivered or task.reserved_at)


@dataclass(frozen=True)
class PassedOver:
    """A supervisor took the task back from this agent: not offered to them until then."""

    agent: str
    until: datetime


def passed_over(task: Task, now: datetime | None = None) -> PassedOver | None:
    """Whom the task is kept from now, after a supervisor's release, and until when."""
    now = now or utcnow()
    if task.passed_over_agent and task.passed_over_until and task.passed_over_until > now:
        return PassedOver(task.passed_over_agent, task.passed_over_until)
    return None


def release_by_supervisor(
    task: Task, *, actor: Actor, now: datetime | None = None, expected_version: int | None = None
) -> User:
    """A supervisor takes a held task back (no attempt counted); the agent who held it.

    It means "not this agent now": a preferred agent's hold ends (the preference is
    cleared), and the task is not offered to that agent again for PREFERRED_AGENT_HOLD_SECONDS,
    so the next agent of its queue gets it. Refused when nobody holds it, or
    (`expected_version`) when it changed since the page was shown, e.g. closed and
    delivered again to someone else."""
    held = db.session.execute(
        select(Task, User)
        .join(User, User.id == Task.reserved_by_id)
        .where(Task.id == task.id, held_now(stamped(now)))
        .with_for_update(of=Task)
        .execution_options(populate_existing=True)
    ).first()
    if held is None:
        raise InvalidInput(f"nobody holds task '{task.client_id}': it is not reserved now")
    task, agent = held
    if expected_version is not None and task.version != expected_version:
        raise StaleTask(
            f"task '{task.client_id}' changed since the page was shown (version "
            f"{task.version}, the page showed {expected_version}); nothing was released"
        )
    now = stamped(now)  # once the task is locked: a wait for it is not the attempt's
    release(task, actor=actor, now=now, passed_over=agent.login_user_id, how=EndedHow.TAKEN_BACK)
    return agent
