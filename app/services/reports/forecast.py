"""A dry run of a campaign: at the start of each interval ahead, how many of its open tasks
the contact rules let be called, and how many each rule holds back, ignoring agents and
the calls still to come.

Every verdict is the contact rules' own SQL (`contact_rules.engine`), asked at each
interval's start, so the forecast at a moment and a task's explanation at that moment never
disagree. It is asked cleverly, not of every task at every interval:

- One pass over the campaign's open tasks at `from` sorts them into groups: the task's
  *profile* (what the rules of the clock read of it: campaign, queue, zone, zones,
  regions), the interval from which it is due, and which rules of whom (the do-not-call
  list, consent, wrong numbers, contact limits, the attempt limit) hold it back.
- The rules of the clock (a paused campaign, queue hours, the calling window, regional
  calling rules) read nothing else of a task than its profile: they are asked at each
  interval of one task of each profile (a few dozen rows, not a million).
- Without calls to come, nothing changes the rules of whom but contact limits, whose
  windows slide past calls already made: the tasks they hold back at `from` are asked
  again at the start of each interval in which a call they count leaves its window, until
  none is held.

A task held back by several rules counts under each; STATE never holds an open task back.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from math import ceil

from sqlalchemy import ColumnElement, and_, case, func, literal, or_, select, true

from app.extensions import db
from app.models import Campaign, ContactMark, Task, TaskItem, Tenant
from app.services.contact_limits import counts
from app.services.contact_rules import engine
from app.services.contactability.seat import Seat
from app.services.errors import InvalidInput
from app.services.fields import REPORT_END, REPORT_INTERVAL, REPORT_START
from app.services.reports.sql import epoch, id_list
from app.services.tasks import lookups

INTERVAL_MINUTES = (60, 1440)
# At most 31 days of hours (or 744 days) in one forecast.
MAX_INTERVALS = 31 * 24
INTERVAL = REPORT_INTERVAL.said_as("intervalMinutes")
START = REPORT_START.said_as("from")
END = REPORT_END.said_as("to")

# The rules that read only a task's profile and the moment.
CLOCK_RULES = (
    engine.CAMPAIGN_PAUSED,
    engine.QUEUE_CLOSED,
    engine.CALLING_WINDOW,
    engine.REGION_HOURS,
    engine.REGION_DAY,
    engine.REGION_HOLIDAY,
)
# The rules that read the task's numbers and the ledgers (constant without calls to come,
# but for contact limits).
LEDGER_RULES = (
    engine.DO_NOT_CALL,
    engine.NO_CONSENT,
    engine.INVALID_NUMBER,
    engine.CONTACT_LIMIT,
    engine.ATTEMPT_LIMIT,
)
PROFILE = (Task.campaign_id, Task.skill_queue_id, Task.time_zone, Task.zones, Task.regions)
# How many tasks held by contact limits one query asks of again.
CHUNK = 5000


@dataclass(frozen=True)
class Interval:
    start: datetime  # UTC
    callable: int
    held_back: tuple[tuple[str, int], ...]  # (rule, count), in the engine's order


@dataclass(frozen=True)
class Forecast:
    campaign: Campaign
    start: datetime
    end: datetime
    minutes: int
    tasks: int
    intervals: list[Interval]


@dataclass(frozen=True)
class _Group:
    profile: tuple
    due_from: int  # the first interval at whose start the tasks are due
    held: frozenset[str]  # the rules of whom holding them back
    count: int
    example: int  # one task's id
    # The ids of its tasks when contact limits hold them back (asked again later).
    ids: tuple[int, ...] = ()


def interval_starts(start: datetime, end: datetime, minutes: int) -> list[datetime]:
    """The starts of the intervals from `start` (to the second) covering [start, end)."""
    if minutes not in INTERVAL_MINUTES:
        raise InvalidInput(f"{INTERVAL} must be 60 or 1440", field=INTERVAL)
    start = start.replace(microsecond=0)
    if end <= start:
        raise InvalidInput(f"{END} must be after {START}", field=END)
    step = timedelta(minutes=minutes)
    count = ceil((end - start) / step)
    if count > MAX_INTERVALS:
        raise InvalidInput(
            f"{END} is {count} intervals after {START}: at most {MAX_INTERVALS}", field=END
        )
    return [start + i * step for i in range(count)]


def campaign_forecast(
    tenant: Tenant, campaign_name: str, start: datetime, end: datetime, minutes: int
) -> Forecast:
    """The campaign's open tasks, interval by interval from `start` to `end`."""
    campaign = lookups.campaign_named(tenant.id, campaign_name)
    starts = interval_starts(start, end, minutes)
    seat = Seat(0, "", (), starts[0], tenant.id)
    open_tasks = and_(Task.campaign_id == campaign.id, engine.in_open_state())
    groups = _grouped(seat, open_tasks, starts[0], minutes * 60)
    settled = [g for g in groups if engine.CONTACT_LIMIT not in g.held]
    moving = [g for g in groups if engine.CONTACT_LIMIT in g.held]
    limited = sorted(i for group in moving for i in group.ids)
    releases = _releases(seat, minutes * 60) if moving else set()
    intervals = []
    for index, moment in enumerate(starts):
        at = replace(seat, now=moment)  # the same memo: what the rules read once
        if index in releases and moving:
            moving = _regroup(at, limited, starts[0], minutes * 60)
        current = settled + moving
        clock = _clock_verdicts(at, current)
        intervals.append(_interval(moment, index, current, clock))
        if moving and not any(engine.CONTACT_LIMIT in g.held for g in moving):
            settled, moving = current, []
    total = sum(g.count for g in groups)
    return Forecast(campaign, starts[0], end, minutes, total, intervals)


def _due_from(first: datetime, step_seconds: int) -> ColumnElement[int]:
    """SQL: the first interval at whose start the task is due (0: due at the first)."""
    due = Task.next_earliest_work_at
    waited = epoch(due) - int(first.timestamp()) + step_seconds - 1
    return case((or_(due.is_(None), due <= first), 0), else_=waited // step_seconds)


def _numbers_mask(holds: list[tuple[str, ColumnElement[bool]]]) -> ColumnElement[int]:
    """SQL per task: bit 0 set when one of its phone items no number rule holds back, bit
    k + 1 when the k-th of `holds` holds one back; NULL without phone items.

    Each rule's condition is asked once per item (OFFSET 0 keeps the items' row of bits
    from being folded into the aggregate, which would ask each condition once per use)."""
    bits = sum((case((c, 1 << k), else_=0) for k, (_name, c) in enumerate(holds)), start=literal(0))
    item = (
        select(bits.label("bits"))
        .select_from(TaskItem)
        .where(engine.phone_items())
        .correlate(Task)  # the task of the outer query, two subqueries up
        .offset(0)
        .subquery("item_bits")
    )
    mask = func.max(case((item.c.bits == 0, 1), else_=0))
    for k in range(len(holds)):
        mask = mask + func.max(case((item.c.bits.bitwise_and(1 << k) != 0, 2 << k), else_=0))
    return select(mask).select_from(item).scalar_subquery()


def _task_flags(seat: Seat) -> list[ColumnElement[int]]:
    """SQL per task: 1 when each rule of whom's task rule (LEDGER_RULES' order) refuses it."""
    rules = {rule.name: rule for rule in engine.TASK_RULES}
    flags = []
    for name in LEDGER_RULES:
        condition = rules[name].condition(seat) if name in rules else true()
        flags.append(literal(0) if condition.compare(true()) else case((condition, 0), else_=1))
    return flags


def _grouped(seat: Seat, where: ColumnElement[bool], first: datetime, step: int) -> list[_Group]:
    """The tasks of `where` in groups: profile, due interval, the rules of whom holding them
    back at the seat's moment (a task none of whose numbers may be called is held back by
    each number rule holding one of them, as `engine.holding_back` says); the ids of those
    contact limits hold back, which later intervals ask again."""
    holds = engine.number_holds(seat)
    flags = _task_flags(seat)
    numbers = _numbers_mask(holds) if holds else literal(None)
    each = (
        select(
            *PROFILE,
            _due_from(first, step).label("due_from"),
            *(flag.label(f"task_{n}") for n, flag in enumerate(flags)),
            numbers.label("numbers"),
            Task.id,
        )
        .where(where)
        .offset(0)  # each task's verdicts asked once, not once per use below
        .subquery("task_verdicts")
    )
    keys = [c for c in each.c if c.name != "id"]
    query = select(*keys, func.count(), func.min(each.c.id), _limited_ids(each, holds))
    query = query.group_by(*keys)
    found = []
    width = len(PROFILE)
    for row in db.session.execute(query):
        marks = row[width + 1 : width + 1 + len(LEDGER_RULES)]
        held = {name for name, mark in zip(LEDGER_RULES, marks, strict=True) if mark}
        mask = row[width + 1 + len(LEDGER_RULES)]
        if mask is not None and not mask & 1:  # phone items, none callable
            held |= {name for k, (name, _c) in enumerate(holds) if mask & (2 << k)}
        ids = tuple(int(i) for i in row[-1].split(",")) if row[-1] else ()
        profile, due = tuple(row[:width]), int(row[width])
        group = _Group(profile, due, frozenset(held), row[-3], row[-2], ids)
        found.append(group)
    return found


def _limited_ids(each, holds: list[tuple[str, ColumnElement[bool]]]) -> ColumnElement[str]:
    """SQL aggregate: the group's tasks contact limits hold back, as one text of ids (the
    task rule, or no callable number and a limit per number holding one)."""
    contact = LEDGER_RULES.index(engine.CONTACT_LIMIT)
    held = [each.c[f"task_{contact}"] == 1]
    mask = each.c.numbers
    for k, (name, _c) in enumerate(holds):
        if name == engine.CONTACT_LIMIT:
            number_held = and_(mask.bitwise_and(1) == 0, mask.bitwise_and(2 << k) != 0)
            held.append(and_(mask.is_not(None), number_held))
    return id_list(case((or_(*held), each.c.id)))


def _releases(seat: Seat, step: int) -> set[int]:
    """The intervals from whose start a contact limit may let a held call go: those where
    a call it counts leaves its window (nothing else moves a limit without calls to come)."""
    first = int(seat.now.timestamp())
    found: set[int] = set()
    for limit in counts.tenant_limits(seat.tenant_id):
        leaves = epoch(ContactMark.at) + limit.within_minutes * 60
        index = (leaves - first + step - 1) // step
        query = counts.counted_marks(seat.tenant_id, limit, seat.now, index).distinct()
        found.update(db.session.scalars(query))
    return found


def _regroup(seat: Seat, ids: list[int], first: datetime, step: int) -> list[_Group]:
    """The groups of the tasks contact limits held back at the first interval, asked again
    at the seat's moment (a chunk of ids at a time)."""
    merged: dict[tuple, _Group] = {}
    for at in range(0, len(ids), CHUNK):
        chunk = ids[at : at + CHUNK]
        for group in _grouped(seat, Task.id.in_(chunk), first, step):
            key = (group.profile, group.due_from, group.held)
            if key in merged:
                old = merged[key]
                group = replace(group, count=old.count + group.count, example=old.example)
            merged[key] = group
    return list(merged.values())


def _clock_verdicts(seat: Seat, groups: list[_Group]) -> dict[tuple, frozenset[str]]:
    """Each profile's rules of the clock holding it back at the seat's moment, asked of one
    task of that profile."""
    examples: dict[tuple, int] = {}
    for group in groups:
        examples.setdefault(group.profile, group.example)
    rules = [rule for rule in engine.TASK_RULES if rule.name in CLOCK_RULES]
    held = [case((rule.condition(seat), 0), else_=1) for rule in rules]
    verdicts: dict[int, frozenset[str]] = {}
    ids = list(examples.values())
    for at in range(0, len(ids), CHUNK):
        query = select(Task.id, *held).where(Task.id.in_(ids[at : at + CHUNK]))
        for task_id, *marks in db.session.execute(query):
            names = (rule.name for rule, mark in zip(rules, marks, strict=True) if mark)
            verdicts[task_id] = frozenset(names)
    return {profile: verdicts[task_id] for profile, task_id in examples.items()}


def _interval(
    moment: datetime, index: int, groups: list[_Group], clock: dict[tuple, frozenset[str]]
) -> Interval:
    callable_ = 0
    held: Counter[str] = Counter()
    for group in groups:
        rules = set(group.held) | clock[group.profile]
        if group.due_from > index:
            rules.add(engine.NEXT_EARLIEST_TIME)
        if rules:
            held.update(dict.fromkeys(rules, group.count))
        else:
            callable_ += group.count
    said = tuple((name, held[name]) for name in engine.NAMES if held[name])
    return Interval(moment, callable_, said)
