"""The demo's past: a few days of attempts by the demo agents and their state spans, so the
reports and the wallboard show something on a fresh install.

Each agent works a shift a day (with a lunch break Away), calling the tasks of the demo
campaigns whose customers are in working hours (8:00 to 20:00 in the campaign's zone):
a preview, a call that rings and may be answered, talk, wrap-up and the close with a work
code, now and then a skip or a lapse. Contact and success follow the chosen codes' flags
as the ledger sets them. The days end before the moment of seeding; the agents are left
OFFLINE, as they are. Deterministic (a seeded random); written once, when the demo tenant
has no attempt yet. These rows are the demo's made-up history, written in bulk without an
audit record each (the seeding's own records say what was made).
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import insert, select

from app.extensions import db
from app.models import (
    AgentStateSpan,
    Attempt,
    Campaign,
    Task,
    Tenant,
    User,
    WorkCodeChoice,
    WorkCodeGroup,
)
from app.models.agents import AgentState
from app.models.attempts import CallResult, EndedHow
from app.services.reports.recount import recount

DAYS = 5  # today and the four days before it
MAX_PER_DAY = 140  # at most this many attempts per agent and day
LOCAL_HOURS = (8, 20)  # customers are called from 8:00 to 20:00 in the campaign's zone

# Call results and their weights.
RESULTS = (
    (CallResult.ANSWERED, 42),
    (CallResult.NO_ANSWER, 28),
    (CallResult.BUSY, 10),
    (CallResult.VOICEMAIL, 15),
    (CallResult.INVALID_NUMBER, 5),
)
# The codes an agent chooses after each result, by the group the queue offers, with
# weights; a queue with no group closes with a free label (its key and value).
CODES: dict[str, dict[str, tuple[tuple[str, int], ...]]] = {
    "Outcome": {
        CallResult.ANSWERED: (
            ("Renewed", 30),
            ("Call back", 25),
            ("Not interested", 35),
            ("Do not call", 10),
        ),
        CallResult.NO_ANSWER: (("No answer", 1),),
        CallResult.BUSY: (("Call back", 1), ("No answer", 2)),
        CallResult.VOICEMAIL: (("No answer", 1),),
        CallResult.INVALID_NUMBER: (("Wrong number", 1),),
    },
    "Call result": {
        CallResult.ANSWERED: (("Sale", 30), ("Not interested", 70)),
        CallResult.NO_ANSWER: (("No answer", 1),),
        CallResult.BUSY: (("Busy", 1),),
        CallResult.VOICEMAIL: (("Left voicemail", 1),),
        CallResult.INVALID_NUMBER: (("Wrong number", 1),),
    },
}
FREE_LABELS = {
    CallResult.ANSWERED: (("Renewed", "COMPLETE", 35), ("Call back", "RESCHEDULE", 65)),
    CallResult.INVALID_NUMBER: (("Wrong number", "REMOVE", 1),),
}
TOPICS = ("Price", "Coverage", "Competitor offer")


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


@dataclass
class _Day:
    """What one agent's day writes."""

    attempts: list[dict] = field(default_factory=list)
    spans: list[dict] = field(default_factory=list)


def seed_history(tenant: Tenant, now: datetime, rng: random.Random) -> int:
    """Write the demo's past unless the tenant has attempts already; how many attempts."""
    campaigns = {
        c.name: c for c in db.session.scalars(select(Campaign).filter_by(tenant_id=tenant.id))
    }
    ids = [c.id for c in campaigns.values()]
    if db.session.scalar(select(Attempt.id).where(Attempt.campaign_id.in_(ids)).limit(1)):
        return 0
    if db.session.scalar(select(AgentStateSpan.id).filter_by(tenant_id=tenant.id).limit(1)):
        return 0  # the agents' own history has begun: none is made up beside it
    tasks = {name: _tasks(campaign) for name, campaign in campaigns.items()}
    choices = _choices(tenant)
    attempts: list[dict] = []
    spans: list[dict] = []
    for shift in SHIFTS:
        agent = db.session.scalar(
            select(User).filter_by(tenant_id=tenant.id, login_user_id=shift.login)
        )
        if agent is None:
            continue
        ours = [campaigns[name] for name in shift.campaigns if tasks.get(name)]
        for back in range(DAYS - 1, -1, -1):
            day = (now - timedelta(days=back)).date()
            begin = datetime.combine(day, shift.start, UTC)
            if begin >= now:
                continue
            worked = _work_day(agent, begin, shift, ours, tasks, choices, now, rng)
            attempts += worked.attempts
            spans += worked.spans
    _close_spans(spans)
    if attempts:
        db.session.execute(insert(Attempt), attempts)
        recount(ids)  # written as plain rows: the reports' rollups are counted from them
    if spans:
        db.session.execute(insert(AgentStateSpan), spans)
    return len(attempts)


def _tasks(campaign: Campaign) -> list[Task]:
    """The campaign's plain tasks: the work waiting for an agent (held for one, or due soon
    after an agent's reschedule) keeps the story the desk tells of it."""
    return list(
        db.session.scalars(
            select(Task)
            .where(
                Task.campaign_id == campaign.id,
                Task.preferred_agent.is_(None),
                Task.next_earliest_work_at.is_(None),
            )
            .order_by(Task.id)
        )
    )


def _choices(tenant: Tenant) -> dict[tuple[str, str], WorkCodeChoice]:
    rows = db.session.scalars(
        select(WorkCodeChoice).join(WorkCodeGroup).where(WorkCodeGroup.tenant_id == tenant.id)
    )
    return {(choice.group.name, choice.name): choice for choice in rows}


def _span(agent: User, state: str, start: datetime) -> dict:
    return {
        "tenant_id": agent.tenant_id,
        "agent_id": agent.id,
        "agent_login": agent.login_user_id,
        "state": state,
        "started_at": start,
        "ended_at": None,
    }


def _close_spans(spans: list[dict]) -> None:
    """Each span ends where the agent's next begins; the last stays open (OFFLINE)."""
    by_agent: dict[int, list[dict]] = {}
    for span in spans:
        by_agent.setdefault(span["agent_id"], []).append(span)
    for own in by_agent.values():
        for span, following in zip(own, own[1:], strict=False):
            span["ended_at"] = following["started_at"]


def _in_hours(campaign: Campaign, moment: datetime) -> bool:
    local = moment.astimezone(ZoneInfo(campaign.default_time_zone))
    return LOCAL_HOURS[0] <= local.hour < LOCAL_HOURS[1] and local.weekday() < 6


def _work_day(
    agent: User,
    begin: datetime,
    shift: Shift,
    campaigns: list[Campaign],
    tasks: dict[str, list[Task]],
    choices: dict,
    now: datetime,
    rng: random.Random,
) -> _Day:
    end = min(begin + timedelta(hours=shift.hours), now - timedelta(minutes=10))
    if end <= begin:
        return _Day()
    lunch = begin + timedelta(hours=shift.hours // 2, minutes=rng.randint(-20, 20))
    day = _Day(spans=[_span(agent, AgentState.AVAILABLE.value, begin)])
    at = begin + timedelta(seconds=rng.randint(30, 300))
    on_lunch = False
    while at < end and len(day.attempts) < MAX_PER_DAY:
        if not on_lunch and at >= lunch:
            day.spans.append(_span(agent, AgentState.AWAY.value, at))
            at += timedelta(minutes=rng.randint(30, 50))
            if at >= end:
                break
            day.spans.append(_span(agent, AgentState.AVAILABLE.value, at))
            on_lunch = True
        open_now = [c for c in campaigns if _in_hours(c, at)]
        if not open_now:
            at += timedelta(minutes=15)
            continue
        campaign = rng.choice(open_now)
        row = _attempt(agent, campaign, rng.choice(tasks[campaign.name]), at, choices, rng)
        if row["ended_at"] >= end:
            break
        day.attempts.append(row)
        at = row["ended_at"] + timedelta(seconds=rng.randint(20, 240))
    day.spans.append(_span(agent, AgentState.OFFLINE.value, end))
    return day


def _attempt(
    agent: User,
    campaign: Campaign,
    task: Task,
    delivered: datetime,
    choices: dict,
    rng: random.Random,
) -> dict:
    row: dict = {
        "task_id": task.id,
        "campaign_id": campaign.id,
        "skill_queue_id": task.skill_queue_id,
        "agent_id": agent.id,
        "agent_login": agent.login_user_id,
        "delivered_at": delivered,
        "work_codes": [],
        "contact": False,
        "success": False,
        "outcome": None,
        "closed_at": None,
    }
    luck = rng.random()
    if luck < 0.06:  # skipped at the preview, or left until the offer lapsed
        how = EndedHow.RELEASED if luck < 0.045 else EndedHow.LAPSED
        wait = rng.randint(5, 40) if how == EndedHow.RELEASED else 300
        return {**row, "ended_how": how.value, "ended_at": delivered + timedelta(seconds=wait)}
    result = rng.choices([r for r, _ in RESULTS], [w for _, w in RESULTS])[0]
    started = delivered + timedelta(seconds=rng.randint(4, 45))
    rang = timedelta(seconds=rng.randint(4, 25))
    connected = started + rang if result == CallResult.ANSWERED else None
    talk = timedelta(seconds=int(rng.lognormvariate(4.8, 0.7))) if connected else timedelta()
    call_ended = (connected or started + rang) + talk
    closed = call_ended + timedelta(seconds=rng.randint(5, 90))
    placement = campaign.call_placement or "desk"
    row.update(
        call_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        call_started_at=started,
        connected_at=connected,
        call_ended_at=call_ended,
        call_result=result.value,
        phone_key="Mobile Phone",
        phone_number=f"+1415555{task.client_id[-4:]}",
        placed_by=placement,
        ended_how=EndedHow.CLOSED.value,
        ended_at=closed,
        closed_at=closed,
    )
    row.update(_codes(task, result, choices, rng))
    return row


def _codes(task: Task, result: CallResult, choices: dict, rng: random.Random) -> dict:
    """The codes closing the attempt, its outcome and its rollups, as the ledger makes them."""
    groups = [group.name for group in task.skill_queue.work_code_groups]
    chosen: list[WorkCodeChoice] = []
    for group in groups:
        offered = CODES.get(group, {}).get(result)
        if offered:
            name = rng.choices([n for n, _ in offered], [w for _, w in offered])[0]
            chosen.append(choices.get((group, name)))
    if "Topics" in groups and result == CallResult.ANSWERED and rng.random() < 0.4:
        chosen.append(choices.get(("Topics", rng.choice(TOPICS))))
    chosen = [c for c in chosen if c is not None]  # a code a supervisor renamed is left out
    answered = result == CallResult.ANSWERED
    if chosen:
        outcome = next((c.outcome for c in chosen if c.outcome), "RESCHEDULE")
        return {
            "work_codes": [{"key": c.group.name, "value": c.name} for c in chosen],
            "outcome": outcome,
            "contact": answered or any(c.contact for c in chosen),
            "success": any(c.success for c in chosen),
        }
    labels = FREE_LABELS.get(result, (("No answer", "RESCHEDULE", 1),))
    value, outcome, _ = rng.choices(labels, [w for *_, w in labels])[0]
    return {
        "work_codes": [{"key": "Outcome", "value": value}],
        "outcome": outcome,
        "contact": answered,
        "success": False,
    }
