"""The demo's past: a few days of the demo agents' work and their state spans, so the reports
and the wallboard show something on a fresh install, told as it could have happened.

Each working day (Monday to Saturday) every history campaign loads a batch of tasks before
the first shift, and each agent works a shift (with a lunch break Away) calling them while
their customers are in hours (8:00 to 20:00 in the campaign's zone, within the queue's
hours and the campaign's calling window). The agents take tasks as delivery gives them: a
reschedule due first, then the oldest new task; never a task another agent holds, one
already COMPLETED or REMOVED, one not due yet. A close with COMPLETE or REMOVE ends the
task, a RESCHEDULE makes it due again after the codes' delay (or a time the agent names),
Win-back's attempt limit completes it, a "Do not call" close lists its number from that
moment; a skip or a lapse changes nothing but the time. The tasks the past left unfinished
are left out with their attempts: the desk starts from the seed's own work (app/services/
demo.py). The rescheduled tasks due soon after seeding get the call that rescheduled them,
in their agent's latest shift.

Each task written says what its attempts say (state, workAttempts, last attempt, work
codes) and was loaded before its first attempt. The days end before the moment of seeding;
the agents are left OFFLINE, as they are. Deterministic (a seeded random); written once,
when the demo tenant has no attempt yet. The attempts are written in bulk, then the
reports' rollups recounted from them; each task's past gets one audit record.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import insert, select, update

from app.demo import calls as demo_calls
from app.demo.calls import Called
from app.extensions import db
from app.models import (
    AgentStateSpan,
    Attempt,
    Campaign,
    ContactLimit,
    DncNumber,
    Task,
    Tenant,
    User,
    WorkCode,
    WorkCodeChoice,
    WorkCodeGroup,
    WorkedState,
)
from app.models.agents import AgentState
from app.models.attempts import CallResult, EndedHow
from app.services.actors import Actor
from app.services.calls import ledger
from app.services.contact_limits import contacts as contact_marks
from app.services.contact_limits import counts as contact_counts
from app.services.dnc import numbers as dnc
from app.services.reports.recount import recount
from app.services.schedules import calling_windows, hours
from app.services.tasks.snapshots import task_snapshot
from app.services.tasks.tracing import trace_change

DAYS = 5  # today and the four days before it
MAX_PER_DAY = 140  # at most this many attempts per agent and day
LOCAL_HOURS = (8, 20)  # customers are called from 8:00 to 20:00 in the campaign's zone
LOADED_AT = time(8, 0)  # each day's batch is loaded at 08:00 UTC, before the first shift
BATCH = 20  # tasks each history campaign loads a day
# The history's tasks are numbered from these (their phone numbers too, none shared).
NUMBERS = {"Spring Renewals": 1000, "Win-back": 2000, "Upgrade Calls": 3000}
FINAL = {"COMPLETE": WorkedState.COMPLETED, "REMOVE": WorkedState.REMOVED}
# Why an agent calls a task: its call back, the unanswered customer's next call.
CALLED_BACK, UNANSWERED = "called back", "unanswered"
UNANSWERED_GAP = timedelta(hours=1)  # the unanswered customer's calls are this far apart


@dataclass(frozen=True)
class Shift:
    """An agent's working day in UTC and the campaigns it calls."""

    login: str
    start: time
    hours: int
    campaigns: tuple[str, ...]


SHIFTS = (
    Shift("jane@democo.example", time(14, 0), 8, ("Spring Renewals", "Upgrade Calls")),
    Shift("raj@democo.example", time(9, 0), 8, ("Win-back", "Spring Renewals")),
)

# Makes the demo task `number` of a campaign (its data as the seed's); None if it exists.
MakeTask = Callable[[Campaign, int], Task | None]


@dataclass
class _Past:
    """A task as the history works it, in memory until it is written."""

    campaign: Campaign
    number: int
    loaded: datetime
    task: Task | None = None  # a seeded task: its one call, by its agent alone
    attempts: list[Called] = field(default_factory=list)
    state: str = WorkedState.NOTWORKED
    closes: int = 0
    next_work: datetime | None = None
    busy_until: datetime | None = None
    close_reason: str | None = None

    @property
    def wire(self) -> dict:
        queue = self.campaign.default_skill_queue
        return {
            "skill_queue_id": queue.id,
            "groups": [group.name for group in queue.work_code_groups],
            "phone": f"+1415555{self.number:04d}",
        }

    def free(self, at: datetime) -> bool:
        return (
            self.task is None
            and self.state in (WorkedState.NOTWORKED, WorkedState.WORKED)
            and self.loaded <= at
            and (self.busy_until is None or self.busy_until <= at)
            and (self.next_work is None or self.next_work <= at)
        )


class _Hours:
    """When a campaign's customers may be called: their day, the queue's hours, the window."""

    def __init__(self, campaign: Campaign) -> None:
        self.zone = ZoneInfo(campaign.default_time_zone)
        schedule = campaign.default_skill_queue.schedule
        self.calendar = hours.calendar(schedule) if schedule is not None else None
        self.window = calling_windows.window_of(campaign)

    def open(self, at: datetime) -> bool:
        local = at.astimezone(self.zone)
        if local.weekday() == 6 or not LOCAL_HOURS[0] <= local.hour < LOCAL_HOURS[1]:
            return False
        if self.window is not None and local.hour * 60 + local.minute not in self.window:
            return False
        return self.calendar is None or self.calendar.is_open(at)


@dataclass(frozen=True)
class _Limit:
    """A contact limit of the tenant as the history obeys it: each history customer has
    one number and one task, so a limit per number, person or task counts the same calls."""

    max: int
    within: timedelta
    contacts: bool

    @classmethod
    def of(cls, limit: ContactLimit) -> _Limit:
        return cls(limit.max_count, timedelta(minutes=limit.within_minutes),
                   limit.counting == "contacts")  # fmt: skip

    def allows(self, past: _Past, at: datetime) -> bool:
        """Whether a call starting after `at` is within the limit."""
        since = at - self.within
        if self.contacts:
            counted = [c.row["closed_at"] for c in past.attempts if c.row["contact"]]
        else:
            counted = [c.row.get("call_started_at") for c in past.attempts]
        return sum(1 for moment in counted if moment is not None and moment > since) < self.max


@dataclass
class _Unanswered:
    """A seeded task whose customer never answers: called as soon as its campaign's hours
    and the contact limits allow (an hour apart at least) until the limits hold it back."""

    past: _Past
    due: datetime


@dataclass
class _World:
    """The history's tasks and clocks, shared by the agents working them."""

    pasts: dict[int, list[_Past]]
    hours: dict[int, _Hours]
    choices: dict[tuple[str, str], WorkCodeChoice]
    rng: random.Random
    limits: dict[int, list[_Limit]] = field(default_factory=dict)  # by campaign id
    unanswered: _Unanswered | None = None

    def allows(self, past: _Past, at: datetime) -> bool:
        """No contact limit of the task's campaign holds a call to it back at `at`."""
        return all(limit.allows(past, at) for limit in self.limits.get(past.campaign.id, ()))

    def next_for(self, campaign: Campaign, at: datetime) -> _Past | None:
        """The task delivery would give at `at`: the reschedule due longest, else the oldest
        new task; None if the campaign's customers are out of hours or it has none."""
        if not self.hours[campaign.id].open(at):
            return None
        free = [
            past
            for past in self.pasts.get(campaign.id, ())
            if past.free(at) and self.allows(past, at)
        ]
        due = [past for past in free if past.state == WorkedState.WORKED]
        if due:
            return min(due, key=lambda past: (past.next_work, past.number))
        return min(free, key=lambda past: past.number, default=None)

    def apply(self, past: _Past, called: Called) -> None:
        """What the attempt's end does to its task, as the closing rules do it."""
        row = called.row
        past.attempts.append(called)
        past.busy_until = row["ended_at"]
        if row["ended_how"] != EndedHow.CLOSED.value:
            return
        past.closes += 1
        limit = past.campaign.max_attempts
        if row["outcome"] == "RESCHEDULE" and limit and past.closes >= limit:
            row["outcome"] = "COMPLETE"
            past.close_reason = f"attempt limit reached ({past.closes} attempts)"
        past.state = FINAL.get(row["outcome"], WorkedState.WORKED)
        if past.state != WorkedState.WORKED:
            past.next_work = None
        elif past.task is not None and past.task.next_earliest_work_at is not None:
            past.next_work = past.task.next_earliest_work_at  # the time the customer asked
        elif past.task is not None:
            past.next_work = row["closed_at"] + timedelta(minutes=called.delay_minutes or 60)
        else:
            minutes = called.delay_minutes or self.rng.randint(60, 24 * 60)
            past.next_work = row["closed_at"] + timedelta(minutes=minutes)


@dataclass
class _Day:
    begin: datetime
    end: datetime
    lunch: datetime


def _span(agent: User, state: str, start: datetime) -> dict:
    return {
        "tenant_id": agent.tenant_id,
        "agent_id": agent.id,
        "agent_login": agent.login_user_id,
        "state": state,
        "started_at": start,
        "ended_at": None,
    }


@dataclass
class _Agent:
    """One agent's shifts, worked one move at a time (the agents' moves interleave)."""

    agent: User
    days: list[_Day]
    campaigns: list[Campaign]
    rng: random.Random
    call_back: tuple[_Past, datetime] | None = None
    day: int = 0
    at: datetime = field(init=False)
    lunched: bool = False
    worked_today: int = 0
    spans: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._start_day()

    def _start_day(self) -> None:
        begin = self.days[self.day].begin
        self.spans.append(_span(self.agent, AgentState.AVAILABLE.value, begin))
        self.at = begin + timedelta(seconds=self.rng.randint(30, 300))
        self.lunched, self.worked_today = False, 0

    def step(self, world: _World) -> bool:
        """The agent's next move; False once its last shift has ended."""
        today = self.days[self.day]
        if self.at >= today.end or self.worked_today >= MAX_PER_DAY:
            off = min(self.at, today.end)
            self.spans.append(_span(self.agent, AgentState.OFFLINE.value, off))
            self.day += 1
            if self.day == len(self.days):
                return False
            self._start_day()
            return True
        if not self.lunched and self.at >= today.lunch:
            self.spans.append(_span(self.agent, AgentState.AWAY.value, self.at))
            self.at += timedelta(minutes=self.rng.randint(30, 50))
            if self.at < today.end:
                self.spans.append(_span(self.agent, AgentState.AVAILABLE.value, self.at))
            self.lunched = True
            return True
        past, why = self._pick(world)
        if past is None:
            self.at += timedelta(minutes=self.rng.randint(5, 12))  # Available, nothing due
            return True
        forced = CallResult.NO_ANSWER if why == UNANSWERED else None
        called = demo_calls.attempt(
            self.agent, past.campaign, past.wire, self.at, world.choices, self.rng,
            call_back=why == CALLED_BACK, result=forced,
        )  # fmt: skip
        if called.row["ended_at"] >= today.end:
            self.at = today.end  # the shift ends first
            return True
        world.apply(past, called)
        if why == CALLED_BACK:
            self.call_back = None
        if why == UNANSWERED and world.unanswered is not None:
            world.unanswered.due = called.row["ended_at"] + UNANSWERED_GAP
        self.worked_today += 1
        self.at = called.row["ended_at"] + timedelta(seconds=self.rng.randint(20, 240))
        return True

    def _pick(self, world: _World) -> tuple[_Past | None, str | None]:
        """The task the agent calls next and why: its call back, the unanswered customer's
        next call, or delivery's choice (None)."""
        if self.call_back is not None:
            past, due = self.call_back
            if self.at >= due and world.hours[past.campaign.id].open(self.at):
                return past, CALLED_BACK
        plan = world.unanswered
        if plan is not None and self._may_call(world, plan.past, plan.due):
            return plan.past, UNANSWERED
        offered = [
            past for campaign in self.campaigns if (past := world.next_for(campaign, self.at))
        ]
        return (self.rng.choice(offered) if offered else None), None

    def _may_call(self, world: _World, past: _Past, due: datetime) -> bool:
        return (
            self.at >= due
            and past.campaign in self.campaigns
            and (past.busy_until is None or past.busy_until <= self.at)
            and world.hours[past.campaign.id].open(self.at)
            and world.allows(past, self.at)
        )


def seed_history(
    tenant: Tenant,
    now: datetime,
    rng: random.Random,
    *,
    make_task: MakeTask,
    call_backs: dict[str, tuple[str, str]],
    unanswered: tuple[str, str] | None = None,
    actor: Actor,
) -> int:
    """Write the demo's past unless the tenant has attempts already; how many attempts.
    `call_backs`: each agent's rescheduled task (campaign, clientId) due after seeding;
    `unanswered`: a seeded task (campaign, clientId) whose customer never answers, called
    until the contact limits hold it back. The past obeys the tenant's contact limits."""
    campaigns = {
        c.name: c for c in db.session.scalars(select(Campaign).filter_by(tenant_id=tenant.id))
    }
    ids = [c.id for c in campaigns.values()]
    if db.session.scalar(select(Attempt.id).where(Attempt.campaign_id.in_(ids)).limit(1)):
        return 0
    if db.session.scalar(select(AgentStateSpan.id).filter_by(tenant_id=tenant.id).limit(1)):
        return 0  # the agents' own history has begun: none is made up beside it
    worked = [campaigns[name] for name in NUMBERS if name in campaigns]
    world = _World(_batches(worked, now), {c.id: _Hours(c) for c in worked}, _choices(tenant), rng)
    world.limits = {
        c.id: [_Limit.of(limit) for limit in contact_counts.limits_for(tenant.id, c.id)]
        for c in worked
    }
    if unanswered is not None:
        world.unanswered = _unanswered(campaigns, unanswered, now, world)
    runs = _agents(tenant, campaigns, world, call_backs, now)
    queue = [(run.at, order) for order, run in enumerate(runs)]
    heapq.heapify(queue)
    while queue:
        _, order = heapq.heappop(queue)
        if runs[order].step(world):
            heapq.heappush(queue, (runs[order].at, order))
    attempts = _write_tasks(world, make_task, actor)
    spans = [span for run in runs for span in run.spans]
    _close_spans(spans)
    if attempts:
        db.session.execute(insert(Attempt), attempts)
        recount(ids)  # written as plain rows: the reports' rollups are counted from them
        ledger.calls_from_attempts(ids)  # each attempt's call, as the calls' ledger keeps it
        contact_marks.mark_written(tenant, ids)  # and the counts of the contact limits
        _last_deliveries(attempts)
    if spans:
        db.session.execute(insert(AgentStateSpan), spans)
    return len(attempts)


def _history_days(now: datetime) -> list[datetime]:
    """The working days of the history (UTC midnights, oldest first), today included."""
    days = [
        datetime.combine((now - timedelta(days=back)).date(), time(0), UTC)
        for back in range(DAYS - 1, -1, -1)
    ]
    return [day for day in days if day.weekday() != 6]


def _batches(campaigns: list[Campaign], now: datetime) -> dict[int, list[_Past]]:
    pasts: dict[int, list[_Past]] = {}
    for campaign in campaigns:
        number = NUMBERS[campaign.name]
        for day in _history_days(now):
            loaded = datetime.combine(day.date(), LOADED_AT, UTC)
            if loaded >= now:
                continue
            for _ in range(BATCH):
                number += 1
                pasts.setdefault(campaign.id, []).append(_Past(campaign, number, loaded))
    return pasts


def _agents(
    tenant: Tenant,
    campaigns: dict[str, Campaign],
    world: _World,
    call_backs: dict[str, tuple[str, str]],
    now: datetime,
) -> list[_Agent]:
    runs = []
    for shift in SHIFTS:
        agent = db.session.scalar(
            select(User).filter_by(tenant_id=tenant.id, login_user_id=shift.login)
        )
        days = _shift_days(shift, now, world.rng)
        if agent is None or not days:
            continue
        ours = [campaigns[name] for name in shift.campaigns if name in campaigns]
        run = _Agent(agent, days, ours, world.rng)
        if shift.login in call_backs:
            run.call_back = _call_back(campaigns, call_backs[shift.login], days, world)
        runs.append(run)
    return runs


def _shift_days(shift: Shift, now: datetime, rng: random.Random) -> list[_Day]:
    days = []
    for day in _history_days(now):
        begin = datetime.combine(day.date(), shift.start, UTC)
        end = min(begin + timedelta(hours=shift.hours), now - timedelta(minutes=10))
        if end > begin + timedelta(hours=1):
            lunch = begin + timedelta(hours=shift.hours // 2, minutes=rng.randint(-20, 20))
            days.append(_Day(begin, end, lunch))
    return days


def _call_back(
    campaigns: dict[str, Campaign], wanted: tuple[str, str], days: list[_Day], world: _World
) -> tuple[_Past, datetime] | None:
    """The seeded task the agent rescheduled and when, late in their latest shift that
    could reach its customer (away from lunch); None when no shift could."""
    task = _seeded(campaigns, wanted)
    if task is None:
        return None
    campaign, client_id = task.campaign, task.client_id
    for day in reversed(days):
        at = day.end - timedelta(minutes=40)
        while at > day.begin + timedelta(minutes=15):
            near_lunch = day.lunch - timedelta(minutes=10) <= at <= day.lunch + timedelta(hours=1)
            if not near_lunch and world.hours[campaign.id].open(at):
                loaded = datetime.combine(day.begin.date(), LOADED_AT, UTC)
                past = _Past(campaign, int(client_id[-4:]), min(loaded, at), task=task)
                world.pasts[campaign.id].append(past)
                return past, at
            at -= timedelta(minutes=15)
    return None


def _seeded(campaigns: dict[str, Campaign], wanted: tuple[str, str]) -> Task | None:
    """The seeded task (campaign, clientId), if it was never worked."""
    name, client_id = wanted
    campaign = campaigns.get(name)
    task = campaign and db.session.scalar(
        select(Task).filter_by(campaign_id=campaign.id, client_id=client_id)
    )
    return task if task is not None and task.worked_state == WorkedState.NOTWORKED else None


def _unanswered(
    campaigns: dict[str, Campaign], wanted: tuple[str, str], now: datetime, world: _World
) -> _Unanswered | None:
    """The unanswered customer's task, loaded with the history's first batch."""
    task = _seeded(campaigns, wanted)
    days = _history_days(now)
    if task is None or not days or task.campaign_id not in world.hours:
        return None
    loaded = datetime.combine(days[0].date(), LOADED_AT, UTC)
    past = _Past(task.campaign, int(task.client_id[-4:]), loaded, task=task)
    world.pasts.setdefault(task.campaign_id, []).append(past)
    return _Unanswered(past, loaded)


def _choices(tenant: Tenant) -> dict[tuple[str, str], WorkCodeChoice]:
    rows = db.session.scalars(
        select(WorkCodeChoice).join(WorkCodeGroup).where(WorkCodeGroup.tenant_id == tenant.id)
    )
    return {(choice.group.name, choice.name): choice for choice in rows}


def _write_tasks(world: _World, make_task: MakeTask, actor: Actor) -> list[dict]:
    """Make each task the past finished (and the seeded ones it called) as its attempts
    leave it; their attempts' rows. Unfinished tasks are left out, attempts and all."""
    rows: list[dict] = []
    for pasts in world.pasts.values():
        for past in sorted(pasts, key=lambda past: past.number):
            if not past.attempts or (past.task is None and past.state == WorkedState.WORKED):
                continue
            if past.task is None and past.state == WorkedState.NOTWORKED:
                continue  # only skipped or lapsed: never worked, as if never loaded
            task = past.task or make_task(past.campaign, past.number)
            if task is None:
                continue
            _as_worked(task, past, actor)
            rows += [
                {**called.row, "task_id": task.id, "time_zone": task.time_zone}
                for called in past.attempts
            ]
    return rows


def _as_worked(task: Task, past: _Past, actor: Actor) -> None:
    """The task as its attempts leave it; the trail says the seed set its past."""
    before = task_snapshot(task)
    last = past.attempts[-1].row
    closed = [called.row for called in past.attempts if called.row["closed_at"] is not None]
    task.worked_state, task.work_attempts = past.state, past.closes
    task.last_attempt_agent, task.last_attempt_at = last["agent_login"], last["delivered_at"]
    task.next_earliest_work_at, task.close_reason = past.next_work, past.close_reason
    task.created_at, task.updated_at = past.loaded, last["ended_at"]
    task.work_codes.clear()
    db.session.flush()
    for position, code in enumerate(closed[-1]["work_codes"] if closed else []):
        task.work_codes.append(WorkCode(key=code["key"], value=code["value"], position=position))
    if past.state == WorkedState.REMOVED and past.attempts[-1].lists_number:
        numbers = dnc.add_task_numbers(task, actor=actor)
        db.session.execute(
            update(DncNumber)
            .where(DncNumber.tenant_id == task.campaign.tenant_id, DncNumber.number.in_(numbers))
            .values(created_at=last["closed_at"])
        )
    trace_change(actor, "task.updated", task, before, task_snapshot(task))


def _last_deliveries(rows: list[dict]) -> None:
    """Each campaign's last delivery, as delivery records it (the campaigns' turns)."""
    latest: dict[int, datetime] = {}
    for row in rows:
        latest[row["campaign_id"]] = max(latest.get(row["campaign_id"], row["delivered_at"]),
                                         row["delivered_at"])  # fmt: skip
    for campaign_id, at in latest.items():
        db.session.execute(
            update(Campaign).where(Campaign.id == campaign_id).values(last_delivered_at=at)
        )


def _close_spans(spans: list[dict]) -> None:
    """Each span ends where the agent's next begins; the last stays open (OFFLINE)."""
    by_agent: dict[int, list[dict]] = {}
    for span in spans:
        by_agent.setdefault(span["agent_id"], []).append(span)
    for own in by_agent.values():
        for span, following in zip(own, own[1:], strict=False):
            span["ended_at"] = following["started_at"]
