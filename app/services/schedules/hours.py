"""Hours of operation: a tenant's named schedules (a time zone, weekly hours, exception dates,
optionally a country's public holidays) and the skill queues that follow them.

A queue without a schedule is always open. Whether a schedule is open and when it next
changes is `calendar`'s arithmetic; the specs people type are `opening_hours`'s.
Every change takes its actor and leaves an audit record (entity `schedule`, or `skill_queue`
for what a queue follows). The delivery rule that keeps a closed queue's tasks back, and its
blocker, are `queue_hours`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import select

from app.extensions import db
from app.models import Schedule, ScheduleException, ScheduleHours, SkillQueue, Tenant
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import (
    EXCEPTION_DAY,
    EXCEPTION_HOURS,
    SCHEDULE_NAME,
    SCHEDULE_QUEUES,
    SCHEDULE_TIME_ZONE,
)
from app.services.schedules.calendar import Calendar
from app.services.schedules.opening_hours import (
    CLOSED,
    Day,
    Range,
    Weekly,
    day_text,
    format_weekly,
    holidays_text,
    parse_holidays,
    parse_ranges,
    parse_weekly,
)
from app.services.tenants.setup import get_skill_queue
from app.services.values import require_time_zone

NAME_LENGTH = 30  # the vendor's limit: letters, digits, hyphens and spaces
# Exception dates and weeks shown lie within these (holiday calendars and date arithmetic
# near year 9999 are not worth their trouble).
FIRST_DATE, LAST_DATE = date(1970, 1, 1), date(2199, 12, 31)


def check_date(day: date) -> date:
    if not FIRST_DATE <= day <= LAST_DATE:
        raise InvalidInput(
            f"date {day.isoformat()} must be between {FIRST_DATE} and {LAST_DATE}",
            field=EXCEPTION_DAY.said_as("date"),
        )
    return day


# --- reading ---------------------------------------------------------------------------------


def weekly_of(schedule: Schedule) -> Weekly:
    days: list[list[Range]] = [[] for _ in range(7)]
    for row in schedule.hours:
        days[row.weekday].append(Range(row.opens_at, row.closes_at))
    return tuple(tuple(sorted(day)) for day in days)


def _exceptions(rows: Iterable[ScheduleException]) -> dict[date, Day]:
    found: dict[date, list[Range]] = {}
    for row in rows:
        ranges = found.setdefault(row.day, [])
        if row.opens_at is not None:
            ranges.append(Range(row.opens_at, row.closes_at))
    return {day: tuple(sorted(ranges)) for day, ranges in found.items()}


def calendar(schedule: Schedule) -> Calendar:
    """The schedule as the clock reads it (every exception date included)."""
    return Calendar(
        ZoneInfo(schedule.time_zone),
        weekly_of(schedule),
        _exceptions(schedule.exceptions),
        schedule.holiday_country,
        schedule.holiday_subdivision,
    )


def is_open(schedule: Schedule, at: datetime) -> bool:
    """Open at this moment (see schedules/calendar.py for midnight, holidays and DST)."""
    return calendar(schedule).is_open(at)


def next_change(schedule: Schedule, after: datetime) -> datetime | None:
    """When it next opens (closed at `after`) or closes (open); None: not within a year."""
    return calendar(schedule).next_change(after)


def fields(schedule: Schedule) -> dict:
    """What the trail keeps of a schedule."""
    return {
        "name": schedule.name,
        "timeZone": schedule.time_zone,
        "weeklyHours": format_weekly(weekly_of(schedule)),
        "holidays": holidays_text(schedule.holiday_country, schedule.holiday_subdivision),
    }


def list_schedules(tenant: Tenant) -> list[Schedule]:
    return list(
        db.session.scalars(select(Schedule).filter_by(tenant_id=tenant.id).order_by(Schedule.name))
    )


def _named(tenant_id: int, name: str) -> Schedule | None:
    return db.session.scalar(select(Schedule).filter_by(tenant_id=tenant_id, name=name))


def find_schedule(tenant: Tenant, name: str) -> Schedule | None:
    return _named(tenant.id, name)


def get_schedule(tenant: Tenant, name: str) -> Schedule:
    schedule = find_schedule(tenant, name)
    if schedule is None:
        raise NotFound(f"schedule '{name}' is not a schedule of this environment")
    return schedule


def queues_of(schedule: Schedule) -> list[SkillQueue]:
    return list(
        db.session.scalars(
            select(SkillQueue).filter_by(schedule_id=schedule.id).order_by(SkillQueue.name)
        )
    )


def exceptions_from(schedule: Schedule, first: date) -> list[tuple[date, Day]]:
    """The schedule's exception dates from `first` on, in date order."""
    return sorted((d, r) for d, r in _exceptions(schedule.exceptions).items() if d >= first)


# --- changing --------------------------------------------------------------------------------


def _record(actor: Actor, schedule: Schedule, action: str, before=None, after=None) -> None:
    record(
        actor,
        Change(
            action, "schedule", str(schedule.id), schedule.tenant_id, before=before, after=after
        ),
    )


def check_name(name: str) -> str:
    name = (name or "").strip()
    if not 1 <= len(name) <= NAME_LENGTH or not all(c.isalnum() or c in " -" for c in name):
        raise InvalidInput(
            f"schedule name must be 1 to {NAME_LENGTH} letters, digits, hyphens or spaces",
            field=SCHEDULE_NAME.said_as("schedule name"),
        )
    return name


def _settle(
    schedule: Schedule, name: str, time_zone: str, weekly: Iterable[str], holidays: str | None
) -> None:
    """Check every setting, then give them to the schedule (nothing is set on a refusal)."""
    name = check_name(name)
    require_time_zone((time_zone or "").strip(), SCHEDULE_TIME_ZONE.said_as("time zone"))
    hours = parse_weekly(weekly)
    country, subdivision = parse_holidays(holidays) or (None, None)
    if name != schedule.name and _named(schedule.tenant_id, name) is not None:
        raise Conflict(f"schedule '{name}' already exists", field=SCHEDULE_NAME)
    schedule.name, schedule.time_zone = name, time_zone.strip()
    schedule.holiday_country, schedule.holiday_subdivision = country, subdivision
    schedule.hours = [
        ScheduleHours(weekday=n, opens_at=r.opens, closes_at=r.closes)
        for n, day in enumerate(hours)
        for r in day
    ]


def create_schedule(
    tenant: Tenant,
    name: str,
    time_zone: str,
    weekly: Iterable[str],
    *,
    holidays: str | None = None,
    actor: Actor,
) -> Schedule:
    """A new schedule: weekly hours from specs (`mon-fri 08:00-18:00`), `holidays` as `US` or
    `US-CA` (none: no public holidays)."""
    schedule = Schedule(tenant_id=tenant.id, name=None)
    _settle(schedule, name, time_zone, weekly, holidays)
    db.session.add(schedule)
    db.session.flush()  # its id keys the trail
    _record(actor, schedule, "schedule.added", after=fields(schedule))
    return schedule


def update_schedule(
    schedule: Schedule,
    name: str,
    time_zone: str,
    weekly: Iterable[str],
    holidays: str | None,
    *,
    actor: Actor,
) -> Schedule:
    """Give the schedule these settings (all of them: its weekly hours are replaced)."""
    before = fields(schedule)
    _settle(schedule, name, time_zone, weekly, holidays)
    db.session.flush()
    after = fields(schedule)
    if after != before:
        _record(actor, schedule, "schedule.updated", before, after)
    return schedule


def delete_schedule(schedule: Schedule, *, actor: Actor) -> list[str]:
    """Delete the schedule; the queues that followed it (their names returned) are then
    always open."""
    queues = queues_of(schedule)
    for queue in queues:
        set_queue_schedule(queue, None, actor=actor)
    _record(actor, schedule, "schedule.deleted", before=fields(schedule))
    db.session.delete(schedule)
    db.session.flush()
    return [queue.name for queue in queues]


def _exception_fields(day: date, ranges: Day | None) -> dict | None:
    return None if ranges is None else {"date": day.isoformat(), "hours": day_text(ranges)}


def set_exception(schedule: Schedule, day: date, hours: str | None, *, actor: Actor) -> Day:
    """Give this date its own hours (`09:00-13:00`, several comma-separated) or, with None or
    `closed`, close it all day; an earlier exception of the date is replaced."""
    check_date(day)
    ranges = parse_ranges(
        CLOSED if hours is None else hours, f"hours of {day.isoformat()}", EXCEPTION_HOURS
    )
    before = _exceptions(schedule.exceptions).get(day)
    rows = [e for e in schedule.exceptions if e.day != day]
    rows += [ScheduleException(day=day, opens_at=r.opens, closes_at=r.closes) for r in ranges]
    if not ranges:
        rows.append(ScheduleException(day=day, opens_at=None, closes_at=None))
    schedule.exceptions = rows
    db.session.flush()
    _record(
        actor,
        schedule,
        "schedule.exception_set",
        _exception_fields(day, before),
        _exception_fields(day, ranges),
    )
    return ranges


def remove_exception(schedule: Schedule, day: date, *, actor: Actor) -> None:
    """The date follows its weekday (or holiday) again."""
    before = _exceptions(schedule.exceptions).get(day)
    if before is None:
        raise NotFound(f"schedule '{schedule.name}' has no exception on {day.isoformat()}")
    schedule.exceptions = [e for e in schedule.exceptions if e.day != day]
    db.session.flush()
    _record(actor, schedule, "schedule.exception_removed", _exception_fields(day, before))


def set_queue_schedule(queue: SkillQueue, schedule: Schedule | None, *, actor: Actor) -> None:
    """The queue follows this schedule; None: no schedule, always open."""
    if schedule is not None and schedule.tenant_id != queue.tenant_id:
        raise InvalidInput(f"schedule '{schedule.name}' is not a schedule of this environment")
    before = queue.schedule.name if queue.schedule is not None else None
    queue.schedule = schedule
    after = schedule.name if schedule is not None else None
    if before != after:
        record(
            actor,
            Change(
                "skill_queue.schedule_set",
                "skill_queue",
                str(queue.id),
                queue.tenant_id,
                before={"name": queue.name, "schedule": before},
                after={"name": queue.name, "schedule": after},
            ),
        )


def set_schedule_queues(schedule: Schedule, names: Iterable[str], *, actor: Actor) -> list[str]:
    """Exactly these queues of the tenant follow the schedule (one that followed another
    moves here; one no longer named follows none). The names, sorted."""
    tenant = db.session.get(Tenant, schedule.tenant_id)
    wanted = sorted(set(names))
    queues = [get_skill_queue(tenant, name, SCHEDULE_QUEUES) for name in wanted]
    for queue in queues_of(schedule):
        if queue.name not in wanted:
            set_queue_schedule(queue, None, actor=actor)
    for queue in queues:
        set_queue_schedule(queue, schedule, actor=actor)
    db.session.flush()
    return wanted
