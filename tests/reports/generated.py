"""A seeded random set of tasks, attempts and agent state spans, and the reports' figures
counted from it the straightforward way: in Python, row by row."""

from __future__ import annotations

import random
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from app.extensions import db
from app.models import AgentStateSpan, Attempt, Campaign, SkillQueue, Task, Tenant

START = datetime(2026, 3, 27, 0, 0, tzinfo=UTC)  # spans Europe's DST change of 29 March
DAYS = 4
AGENTS = ("ann", "bob", "cy")
ZONES = ("America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe")
CODES = (("Reason", "Sold"), ("Reason", "Busy"), ("Mood", "Happy"))
OUTCOMES = ("COMPLETE", "RESCHEDULE", "REMOVE")
HOW = ("CLOSED", "CLOSED", "CLOSED", "RELEASED", "LAPSED", "TAKEN_BACK", "CHANGED_ELSEWHERE", None)


@dataclass
class Data:
    tasks: list[Task]
    attempts: list[Attempt]
    spans: list[AgentStateSpan]


def _second(rng: random.Random, since: datetime, seconds: int) -> datetime:
    return since + timedelta(seconds=rng.randrange(seconds))


def generate(tenant: Tenant, seed: int = 7, count: int = 400) -> Data:
    """Tasks of the tenant's campaigns (some deleted later: their attempts keep no task),
    attempts delivered over DAYS days from START, and state spans of the agents."""
    rng = random.Random(seed)
    campaigns = list(db.session.scalars(select(Campaign).filter_by(tenant_id=tenant.id)))
    queues = list(db.session.scalars(select(SkillQueue).filter_by(tenant_id=tenant.id)))
    tasks = []
    for number in range(count // 4):
        tasks.append(
            Task(
                record_id=str(uuid.UUID(int=rng.getrandbits(128))),
                campaign_id=rng.choice(campaigns).id,
                client_id=f"c{number}",
                skill_queue_id=rng.choice(queues).id,
                time_zone=rng.choice(ZONES),
            )
        )
    db.session.add_all(tasks)
    db.session.flush()
    attempts = []
    for _ in range(count):
        task = rng.choice(tasks)
        delivered = _second(rng, START - timedelta(hours=6), (DAYS * 24 + 12) * 3600)
        how = rng.choice(HOW)
        row = Attempt(
            task_id=task.id,
            campaign_id=task.campaign_id,
            skill_queue_id=rng.choice([task.skill_queue_id, None]),
            agent_id=0,
            agent_login=rng.choice(AGENTS),
            delivered_at=delivered,
            time_zone=task.time_zone,
            work_codes=[],
            contact=rng.random() < 0.4,
            success=rng.random() < 0.2,
            ended_how=how,
        )
        if rng.random() < 0.7:
            row.call_started_at = _second(rng, delivered, 60)
            if rng.random() < 0.6:
                row.connected_at = _second(rng, row.call_started_at, 30)
            row.call_ended_at = _second(rng, row.connected_at or row.call_started_at, 300)
        if how is not None:
            row.ended_at = _second(rng, row.call_ended_at or delivered, 200)
        if how == "CLOSED":
            row.closed_at = row.ended_at
            row.outcome = rng.choice(OUTCOMES)
            row.work_codes = [
                {"key": k, "value": v} for k, v in rng.sample(CODES, rng.randrange(3))
            ]
        attempts.append(row)
    db.session.add_all(attempts)
    db.session.flush()
    for task in tasks[: len(tasks) // 10]:  # deleted tasks: their attempts stay, task-less
        for row in attempts:
            if row.task_id == task.id:
                row.task_id, row.deleted_task_id = None, task.id
        db.session.delete(task)
    db.session.flush()
    tasks = tasks[len(tasks) // 10 :]
    spans = []
    for login in AGENTS:
        moment = START - timedelta(hours=5)
        while moment < START + timedelta(days=DAYS + 1):
            length = timedelta(seconds=rng.randrange(600, 4 * 3600))
            spans.append(
                AgentStateSpan(
                    tenant_id=tenant.id,
                    agent_id=0,
                    agent_login=login,
                    state=rng.choice(("AVAILABLE", "AWAY", "OFFLINE")),
                    started_at=moment,
                    ended_at=moment + length,
                )
            )
            moment += length
        spans[-1].ended_at = None
    db.session.add_all(spans)
    db.session.commit()
    return Data(tasks, attempts, spans)


def in_scope(data: Data, scope) -> list[Attempt]:
    campaign_ids = {c.id for c in db.session.scalars(select(Campaign))}
    return [
        row
        for row in data.attempts
        if scope.start <= row.delivered_at < scope.end
        and (scope.campaign is None or row.campaign_id == scope.campaign.id)
        and row.campaign_id in campaign_ids
        and (scope.queue is None or row.skill_queue_id == scope.queue.id)
        and (scope.agent is None or row.agent_login == scope.agent)
    ]


def reference_summary(data: Data, scope) -> dict:
    rows = in_scope(data, scope)
    codes = Counter(
        (code["key"], code["value"])
        for row in rows
        if row.ended_how == "CLOSED"
        for code in row.work_codes
    )
    outcomes = Counter(row.outcome for row in rows if row.outcome)
    return {
        "tasks": sum(
            1
            for t in data.tasks
            if (scope.campaign is None or t.campaign_id == scope.campaign.id)
            and (scope.queue is None or t.skill_queue_id == scope.queue.id)
        ),
        "attempted_tasks": len({row.task_id or row.deleted_task_id for row in rows}),
        "attempts": len(rows),
        "contacts": sum(row.contact for row in rows),
        "successes": sum(row.success for row in rows),
        "completed": outcomes["COMPLETE"],
        "removed": outcomes["REMOVE"],
        "rescheduled": outcomes["RESCHEDULE"],
        "released": sum(row.ended_how == "RELEASED" for row in rows),
        "lapsed": sum(row.ended_how == "LAPSED" for row in rows),
        "taken_back": sum(row.ended_how == "TAKEN_BACK" for row in rows),
        "changed_elsewhere": sum(row.ended_how == "CHANGED_ELSEWHERE" for row in rows),
        "in_progress": sum(row.ended_how is None for row in rows),
        "outcomes": dict(outcomes),
        "work_codes": {(k, v): n for (k, v), n in codes.items()},
    }


def reference_intervals(data: Data, scope, minutes: int) -> dict[datetime, tuple]:
    """Attempts, contacts, successes by the start of the local-clock interval holding
    each delivery, the start found by walking back minute by minute in real time."""
    zone = ZoneInfo(scope.zone)
    cells: dict[datetime, list[int]] = defaultdict(lambda: [0, 0, 0])
    for row in in_scope(data, scope):
        moment = row.delivered_at.replace(second=0, microsecond=0)
        while (lambda t: (t.hour * 60 + t.minute) % minutes)(moment.astimezone(zone)):
            moment -= timedelta(minutes=1)
        cell = cells[moment]
        cell[0] += 1
        cell[1] += row.contact
        cell[2] += row.success
    return {start: tuple(cell) for start, cell in cells.items()}


def reference_hours(data: Data, scope) -> dict[tuple[int, int], tuple[int, int]]:
    """By the customer's local clock when the attempt was made: the task's zone at delivery
    (a task deleted since keeps it)."""
    cells: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for row in in_scope(data, scope):
        local = row.delivered_at.astimezone(ZoneInfo(row.time_zone))
        cell = cells[(local.weekday(), local.hour)]
        cell[0] += 1
        cell[1] += row.contact
    return {key: tuple(cell) for key, cell in cells.items()}


def reference_agents(data: Data, scope, now: datetime) -> dict[str, dict]:
    until = min(now, scope.end)
    result: dict[str, dict] = {}
    rows = in_scope(data, scope)
    logins = {row.agent_login for row in rows}
    spans: dict[str, Counter] = defaultdict(Counter)
    for span in data.spans:
        if scope.agent is not None and span.agent_login != scope.agent:
            continue
        begin = max(span.started_at, scope.start)
        finish = min(span.ended_at or until, scope.end)
        if finish > begin:
            spans[span.agent_login][span.state] += (finish - begin).total_seconds()
    if scope.campaign is None and scope.queue is None:
        logins |= {a for a, s in spans.items() if s["AVAILABLE"] + s["AWAY"] > 0}

    def average(pairs):
        known = [(b - a).total_seconds() for a, b in pairs if a is not None and b is not None]
        return round(sum(known) / len(known), 1) if known else None

    for login in logins:
        mine = [row for row in rows if row.agent_login == login]
        closed = sum(row.ended_how == "CLOSED" for row in mine)
        signed_in = int(spans[login]["AVAILABLE"]) + int(spans[login]["AWAY"])
        held = 0
        for row in mine:
            finish = min(row.ended_at or until, scope.end)
            if finish > row.delivered_at:
                held += int((finish - row.delivered_at).total_seconds())
        result[login] = {
            "attempts": len(mine),
            "contacts": sum(row.contact for row in mine),
            "successes": sum(row.success for row in mine),
            "closed": closed,
            "closed_per_hour": round(closed * 3600 / signed_in, 2) if signed_in else None,
            "avg_preview_seconds": average(
                (row.delivered_at, row.call_started_at or row.ended_at) for row in mine
            ),
            "avg_talk_seconds": average((row.connected_at, row.call_ended_at) for row in mine),
            "avg_wrap_up_seconds": average((row.call_ended_at, row.closed_at) for row in mine),
            "available_seconds": int(spans[login]["AVAILABLE"]),
            "away_seconds": int(spans[login]["AWAY"]),
            "in_work_seconds": held,
        }
    return result
