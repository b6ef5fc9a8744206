"""Attempts per interval of 15, 30 or 60 minutes, on a grid read in the scope's zone."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import case, func, literal, select

from app.extensions import db
from app.models import Attempt, AttemptRollup
from app.services.errors import InvalidInput
from app.services.fields import REPORT_INTERVAL
from app.services.reports.scope import ReportScope
from app.services.reports.slots import rollup_filters, split
from app.services.reports.sql import BUCKET_SECONDS, bucket

# How this module's refusals name their fields.
INTERVAL = REPORT_INTERVAL.said_as("intervalMinutes")

INTERVAL_MINUTES = (15, 30, 60)
STEP = timedelta(seconds=BUCKET_SECONDS)


@dataclass(frozen=True)
class Interval:
    start: datetime  # UTC
    attempts: int
    contacts: int
    successes: int


def interval_grid(scope: ReportScope, minutes: int) -> list[datetime]:
    """The UTC starts of the intervals covering [start, end): each begins where the zone's
    wall clock reads a multiple of `minutes`, so across a DST change an interval stays
    `minutes` long in real time and the repeated (or skipped) wall-clock hour shows as
    such. The first interval may begin before the range, the last end after it."""
    zone = ZoneInfo(scope.zone)

    def on_grid(moment: datetime) -> bool:
        local = moment.astimezone(zone)
        return (local.hour * 60 + local.minute) % minutes == 0

    seconds = int(scope.start.timestamp()) // BUCKET_SECONDS * BUCKET_SECONDS
    moment = datetime.fromtimestamp(seconds, UTC)
    while not on_grid(moment):
        moment -= STEP
    starts = [moment]
    moment += STEP
    while moment < scope.end:
        if on_grid(moment):
            starts.append(moment)
        moment += STEP
    return starts


def _stretches(starts: list[datetime], end: datetime, zone: ZoneInfo) -> list[tuple[int, int]]:
    """The first slot and the zone's UTC offset (in slots) of each stretch of the range
    over which the offset holds, oldest first."""

    def offset(moment: datetime) -> int:
        return int(moment.astimezone(zone).utcoffset().total_seconds()) // BUCKET_SECONDS

    def slot(moment: datetime) -> int:
        return int(moment.timestamp()) // BUCKET_SECONDS

    stretches = [(slot(starts[0]), offset(starts[0]))]
    for begin, following in zip(starts, [*starts[1:], end], strict=True):
        if offset(following) == stretches[-1][1]:
            continue
        moment = begin  # the change lies between two starts: find its slot
        while offset(moment) == stretches[-1][1]:
            moment += STEP
        stretches.append((slot(moment), offset(moment)))
    return stretches


def _whole_slot_rows(
    scope: ReportScope, whole: tuple[int, int], minutes: int, starts: list[datetime]
) -> list:
    """The rollups' counts of the whole slots summed by the database per local interval:
    per stretch of one UTC offset and wall-clock multiple of `minutes` (the slots of one
    such group lie within one interval of the grid); each group's first slot and counts."""
    per_slot = (
        select(
            AttemptRollup.slot.label("slot"),
            func.sum(AttemptRollup.attempts).label("attempts"),
            func.sum(AttemptRollup.contacts).label("contacts"),
            func.sum(AttemptRollup.successes).label("successes"),
        )
        .where(*rollup_filters(scope, AttemptRollup, whole))
        .group_by(AttemptRollup.slot)
        .subquery()
    )  # read in the rollups' order; only its rows are grouped again
    stretches = _stretches(starts, scope.end, ZoneInfo(scope.zone))
    groups = []
    offset = literal(stretches[0][1])
    if len(stretches) > 1:
        later_first = list(enumerate(stretches))[:0:-1]
        groups.append(case(*((per_slot.c.slot >= first, n) for n, (first, _) in later_first)))
        offset = case(
            *((per_slot.c.slot >= first, shift) for _, (first, shift) in later_first),
            else_=offset,
        )
    wall = (per_slot.c.slot + offset) // (minutes * 60 // BUCKET_SECONDS)
    return db.session.execute(
        select(
            func.min(per_slot.c.slot),
            func.sum(per_slot.c.attempts),
            func.sum(per_slot.c.contacts),
            func.sum(per_slot.c.successes),
        ).group_by(*groups, wall)
    ).all()


def attempts_by_interval(scope: ReportScope, minutes: int) -> list[Interval]:
    """Attempts, contacts and successes per interval, empty intervals as zeros: the whole
    15-minute UTC slots from the rollups (summed per interval by the database), the range's
    edges from the attempts."""
    if minutes not in INTERVAL_MINUTES:
        raise InvalidInput(f"{INTERVAL} must be 15, 30 or 60", field=INTERVAL)
    starts = interval_grid(scope, minutes)
    parts = split(scope)
    rows = []
    if parts.whole is not None:
        rows += _whole_slot_rows(scope, parts.whole, minutes, starts)
    key = bucket(Attempt.delivered_at).label("bucket")
    for edge in parts.edges:
        rows += db.session.execute(
            select(
                key,
                func.count(),
                func.sum(case((Attempt.contact, 1), else_=0)),
                func.sum(case((Attempt.success, 1), else_=0)),
            )
            .where(*edge.attempt_filters())
            .group_by(key)
        ).all()
    totals = [[0, 0, 0] for _ in starts]
    for number, attempts, contacts, successes in rows:
        moment = datetime.fromtimestamp(int(number) * BUCKET_SECONDS, UTC)
        index = bisect_right(starts, moment) - 1
        cell = totals[max(index, 0)]
        cell[0] += int(attempts or 0)
        cell[1] += int(contacts or 0)
        cell[2] += int(successes or 0)
    return [Interval(start, *cell) for start, cell in zip(starts, totals, strict=True)]
