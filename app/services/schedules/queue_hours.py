"""Hours of operation in delivery: the eligibility rule that keeps a closed queue's tasks
back, and the blocker that tells the agent which queue is closed and until when.

Kept fast for `next_task` on campaigns of a million tasks: which of the agent's queues are
open is worked out in Python from one query, and SQL gets no condition (every queue open),
an IN list of the open queues, or `false` (all closed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, and_, false, select, true

from app.extensions import db
from app.models import Schedule, ScheduleException, ScheduleHours, SkillQueue, Task
from app.services.contactability.seat import Blocked, OtherRules, Seat
from app.services.schedules.calendar import Calendar
from app.services.schedules.opening_hours import Range


@dataclass
class _Rows:
    """One schedule as the delivery query reads it: settings, weekly and exception ranges."""

    zone: str
    country: str | None
    subdivision: str | None
    week: list[set[Range]] = field(default_factory=lambda: [set() for _ in range(7)])
    exceptions: dict[date, set[Range]] = field(default_factory=dict)

    def except_on(self, day: date, opens: int | None, closes: int | None) -> None:
        ranges = self.exceptions.setdefault(day, set())
        if opens is not None:  # a row without times closes the day
            ranges.add(Range(opens, closes))

    def calendar(self) -> Calendar:
        return Calendar(
            ZoneInfo(self.zone),
            tuple(tuple(sorted(day)) for day in self.week),
            {day: tuple(sorted(ranges)) for day, ranges in self.exceptions.items()},
            self.country,
            self.subdivision,
        )


def _scheduled_queues(seat: Seat, first: date, last: date) -> tuple[list, dict[int, _Rows]]:
    """The seat's queues that follow a schedule as (queue id, name, schedule id), and their
    schedules with the exception dates from `first` to `last`: one query. For a seat of no
    agent (the supervisors' counts), every queue of its tenant (tenant 0: of all tenants)."""
    query = (
        select(
            SkillQueue.id,
            SkillQueue.name,
            Schedule.id,
            Schedule.time_zone,
            Schedule.holiday_country,
            Schedule.holiday_subdivision,
            ScheduleHours.weekday,
            ScheduleHours.opens_at,
            ScheduleHours.closes_at,
            ScheduleException.day,
            ScheduleException.opens_at,
            ScheduleException.closes_at,
        )
        .join(Schedule, Schedule.id == SkillQueue.schedule_id)
        .outerjoin(ScheduleHours, ScheduleHours.schedule_id == Schedule.id)
        .outerjoin(
            ScheduleException,
            and_(
                ScheduleException.schedule_id == Schedule.id,
                ScheduleException.day.between(first, last),
            ),
        )
    )
    if seat.queue_ids:
        query = query.where(SkillQueue.id.in_(seat.queue_ids))
    elif seat.tenant_id:
        query = query.where(SkillQueue.tenant_id == seat.tenant_id)
    queues: dict[int, tuple[int, str, int]] = {}
    schedules: dict[int, _Rows] = {}
    for row in db.session.execute(query):
        qid, name, sid, zone, country, subdivision, weekday, opens, closes, day, *times = row
        queues[qid] = (qid, name, sid)
        found = schedules.setdefault(sid, _Rows(zone, country, subdivision))
        if weekday is not None:
            found.week[weekday].add(Range(opens, closes))
        if day is not None:
            found.except_on(day, *times)
    return list(queues.values()), schedules


def _exceptions_ahead(schedules: dict[int, _Rows], first: date) -> None:
    """Every exception date from `first` on, for when the next opening is asked."""
    for row in db.session.execute(
        select(
            ScheduleException.schedule_id,
            ScheduleException.day,
            ScheduleException.opens_at,
            ScheduleException.closes_at,
        ).where(ScheduleException.schedule_id.in_(schedules), ScheduleException.day >= first)
    ):
        schedules[row.schedule_id].except_on(row.day, row.opens_at, row.closes_at)


def _closed_now(seat: Seat, *, ahead: bool = False) -> tuple[list[tuple[int, str]], dict]:
    """The seat's queues closed at seat.now as (id, name), and the calendars by queue id
    (with every exception date ahead when `ahead`, else only those that matter now)."""
    # Two days either side of the UTC date hold every local date a zone can have now.
    first, last = seat.now.date() - timedelta(days=2), seat.now.date() + timedelta(days=2)
    scheduled, schedules = _scheduled_queues(seat, first, last)
    if not scheduled:
        return [], {}
    if ahead:
        _exceptions_ahead(schedules, first)
    calendars = {sid: rows.calendar() for sid, rows in schedules.items()}
    by_queue = {qid: calendars[sid] for qid, _, sid in scheduled}
    closed = [(qid, name) for qid, name, _ in scheduled if not by_queue[qid].is_open(seat.now)]
    return closed, by_queue


def queue_is_open(seat: Seat) -> ColumnElement[bool]:
    """Eligibility: the task's skill queue is open now (a queue without a schedule is).

    Which queues are open is worked out here from a few small queries; SQL gets an IN list
    of the agent's open queues, or no condition at all when every one of them is open.
    """
    closed, _ = _closed_now(seat)
    if not closed:
        return true()
    shut = {qid for qid, _ in closed}
    if not seat.queue_ids:  # the supervisors' counts: any agent of any queue
        return Task.skill_queue_id.not_in(shut)
    open_ids = [qid for qid in seat.queue_ids if qid not in shut]
    return Task.skill_queue_id.in_(open_ids) if open_ids else false()


def closed_queues(seat: Seat, ready: ColumnElement[bool], others: OtherRules) -> Blocked | None:
    """When ready tasks wait only for their queues to open: which, and until when (the
    earliest opening), said in the agent's zone."""
    closed, calendars = _closed_now(seat, ahead=True)
    if not closed:
        return None
    waiting = [(qid, name) for qid, name in closed if _any(ready, Task.skill_queue_id == qid)]
    if not waiting or _ready_elsewhere(seat, ready, {qid for qid, _ in closed}, others):
        return None
    openings = sorted(
        ((calendars[qid].next_change(seat.now), name) for qid, name in waiting),
        key=lambda pair: (pair[0] is None, pair[0] or seat.now, pair[1]),
    )
    return Blocked(_closed_reason(seat, openings), openings[0][0])


def _ready_elsewhere(
    seat: Seat, ready: ColumnElement[bool], closed: set[int], others: OtherRules
) -> bool:
    """Ready tasks of open queues exist, kept back by another rule (calling window, list)?

    Asked only when another work rule holds anything back: with none, nothing was
    delivered because no task of an open queue is ready, and the question, which no index
    answers, would read every task of the agent's queues for nothing.
    """
    open_ids = [qid for qid in seat.queue_ids if qid not in closed]
    if not open_ids or all(other.compare(true()) for other in others()):
        return False
    return _any(ready, Task.skill_queue_id.in_(open_ids))


def _any(*conditions: ColumnElement[bool]) -> bool:
    return db.session.scalar(select(Task.id).where(*conditions).limit(1)) is not None


def _closed_reason(seat: Seat, openings: list[tuple[datetime | None, str]]) -> str:
    """`the Sales queue is closed until 2026-11-23 08:00 Europe/London`, and for several,
    each with its own opening: `…, the Support queue until …`."""
    parts = []
    for n, (opens, name) in enumerate(openings):
        until = f" until {seat.local(opens)}" if opens else " with no opening ahead"
        parts.append(f"the {name} queue is closed{until}" if n == 0 else f"the {name} queue{until}")
    return ", ".join(parts)
