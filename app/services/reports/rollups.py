"""The reports' rollups (app/models/report_rollups.py), kept in the attempt's transaction.

Whatever writes an attempt through the session (the ledger: a delivery, a call's start
and end, a close with its outcome and codes, a release, a lapse, the contact and success
rollups) moves the rollups in the same flush: the attempt's figures before the change are
taken away from their slot and its figures after are added to theirs, by an atomic
upsert (INSERT ... ON CONFLICT DO UPDATE adding the difference), so concurrent writers on
PostgreSQL each add theirs exactly once. The day rollups (one row per UTC day, the zones
summed) move by the same differences in the same flush; and the kept counts of tasks
attempted whose range holds an attempt written, moved or removed are deleted. A row of
attempts written by plain SQL (the demo's past, a bulk load) is counted by the reports'
`recount`, which recomputes the rollups of the campaigns named (or all) from the attempts,
set-based.

The app factory installs the two listeners on the app's session (`keep_rollups`);
`stop_keeping` takes them off again.
"""

from __future__ import annotations

import calendar
from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import delete, event, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, scoped_session

from app.extensions import db
from app.models import (
    Attempt,
    AttemptDayRollup,
    AttemptedTaskCount,
    AttemptRollup,
    Campaign,
    Task,
    WorkCodeDayRollup,
    WorkCodeRollup,
)
from app.models.attempts import EndedHow
from app.models.report_rollups import MEASURES, SLOT_SECONDS, SLOTS_A_DAY

# The attempt's columns a rollup reads.
COLUMNS = (
    "campaign_id",
    "skill_queue_id",
    "agent_login",
    "time_zone",
    "delivered_at",
    "call_started_at",
    "connected_at",
    "call_ended_at",
    "closed_at",
    "outcome",
    "work_codes",
    "contact",
    "success",
    "ended_how",
    "ended_at",
)
OUTCOMES = {"completed": "COMPLETE", "removed": "REMOVE", "rescheduled": "RESCHEDULE"}
# How an attempt ended, each counted in its own measure; an open attempt is `in_progress`.
ENDINGS = {
    "closed": EndedHow.CLOSED,
    "released": EndedHow.RELEASED,
    "lapsed": EndedHow.LAPSED,
    "taken_back": EndedHow.TAKEN_BACK,
    "changed_elsewhere": EndedHow.CHANGED_ELSEWHERE,
}
ROLLUP_KEY = ("campaign_id", "slot", "skill_queue_id", "agent_login", "time_zone")
CODE_KEY = ("campaign_id", "slot", "skill_queue_id", "agent_login", "code_key", "code_value")
DAY_KEY = ("campaign_id", "day", "skill_queue_id", "agent_login")
DAY_CODE_KEY = ("campaign_id", "day", "skill_queue_id", "agent_login", "code_key", "code_value")
# The attempt's columns a count of tasks attempted reads (the count cached for a past range).
COUNTED = ("campaign_id", "skill_queue_id", "agent_login", "delivered_at", "task_id")

Key = tuple
Figures = dict[str, int]


def _seconds(moment: datetime) -> int:
    """Whole epoch seconds of an instant, as the reports' SQL `epoch` counts them."""
    return calendar.timegm(moment.utctimetuple())


def _span(since: datetime | None, until: datetime | None) -> tuple[int, int]:
    if since is None or until is None:
        return 0, 0
    return _seconds(until) - _seconds(since), 1


def figures_of(row: Mapping[str, Any]) -> tuple[Key, list[int], list[Key]]:
    """An attempt's (a mapping of COLUMNS) rollup key, its figures in MEASURES' order, and
    the code keys it adds one to."""
    slot = _seconds(row["delivered_at"]) // SLOT_SECONDS
    queue = row["skill_queue_id"] or 0
    key = (row["campaign_id"], slot, queue, row["agent_login"], row["time_zone"] or "")
    how, outcome = row["ended_how"], row["outcome"]
    preview = _span(row["delivered_at"], row["call_started_at"] or row["ended_at"])
    talk = _span(row["connected_at"], row["call_ended_at"])
    wrap = _span(row["call_ended_at"], row["closed_at"])
    ended = row["ended_at"]
    held = (
        _seconds(ended) - _seconds(row["delivered_at"])
        if ended is not None and ended > row["delivered_at"]
        else 0
    )
    values = [
        1,
        int(bool(row["contact"])),
        int(bool(row["success"])),
        *(int(outcome == value) for value in OUTCOMES.values()),
        *(int(how == value.value) for value in ENDINGS.values()),
        int(how is None),
        *preview,
        *talk,
        *wrap,
        held,
    ]
    codes = []
    if how == EndedHow.CLOSED.value:
        for code in row["work_codes"] or []:
            if not isinstance(code, Mapping):
                continue
            name, value = code.get("key"), code.get("value")
            if name is not None and value is not None:
                codes.append((*key[:4], str(name), str(value)))
    return key, values, codes


def _day_of(key: Key) -> Key:
    """A slot's key (ROLLUP_KEY or CODE_KEY) as its UTC day's (DAY_KEY or DAY_CODE_KEY):
    the day's rows leave the customer zone out."""
    day = (key[0], key[1] // SLOTS_A_DAY, key[2], key[3])
    return day if len(key) == len(ROLLUP_KEY) else (*day, *key[4:])


class Changes:
    """Differences to add to the rollups (the 15-minute rows and the day rows), gathered
    then applied in one upsert per table; and the deliveries whose cached counts of tasks
    attempted no longer hold."""

    def __init__(self) -> None:
        self.rollups: dict[Key, list[int]] = defaultdict(lambda: [0] * len(MEASURES))
        self.codes: dict[Key, int] = defaultdict(int)
        self.days: dict[Key, list[int]] = defaultdict(lambda: [0] * len(MEASURES))
        self.day_codes: dict[Key, int] = defaultdict(int)
        self.delivered: dict[int, list[datetime]] = defaultdict(list)

    def add(self, row: Mapping[str, Any], sign: int) -> None:
        key, values, codes = figures_of(row)
        total, day = self.rollups[key], self.days[_day_of(key)]
        for index, value in enumerate(values):
            total[index] += sign * value
            day[index] += sign * value
        for code in codes:
            self.codes[code] += sign
            self.day_codes[_day_of(code)] += sign

    def recounted(self, row: Mapping[str, Any]) -> None:
        """An attempt delivered then (as `row` says) joins or leaves the tasks attempted."""
        if row["campaign_id"] is not None and row["delivered_at"] is not None:
            self.delivered[row["campaign_id"]].append(row["delivered_at"])

    def apply(self, connection) -> None:
        """Add the differences (sorted by key, so concurrent writers lock rows in one
        order), leaving out keys whose figures did not move."""
        rollups = [
            dict(zip(ROLLUP_KEY, key, strict=True), **dict(zip(MEASURES, values, strict=True)))
            for key, values in sorted(self.rollups.items())
            if any(values)
        ]
        codes = [
            dict(zip(CODE_KEY, key, strict=True), chosen=n)
            for key, n in sorted(self.codes.items())
            if n
        ]
        days = [
            dict(zip(DAY_KEY, key, strict=True), **dict(zip(MEASURES, values, strict=True)))
            for key, values in sorted(self.days.items())
            if any(values)
        ]
        day_codes = [
            dict(zip(DAY_CODE_KEY, key, strict=True), chosen=n)
            for key, n in sorted(self.day_codes.items())
            if n
        ]
        if rollups:
            connection.execute(_upsert(connection, AttemptRollup, ROLLUP_KEY, MEASURES), rollups)
        if days:
            connection.execute(_upsert(connection, AttemptDayRollup, DAY_KEY, MEASURES), days)
        if codes:
            connection.execute(_upsert(connection, WorkCodeRollup, CODE_KEY, ("chosen",)), codes)
        if day_codes:
            connection.execute(
                _upsert(connection, WorkCodeDayRollup, DAY_CODE_KEY, ("chosen",)), day_codes
            )
        for campaign_id, moments in sorted(self.delivered.items()):
            connection.execute(forget_counts(campaign_id, min(moments), max(moments)))


def forget_counts(campaign_id: int, earliest: datetime, latest: datetime):
    """The statement deleting the cached counts of tasks attempted (the campaign's, and its
    tenant's over every campaign) whose range holds a delivery between the two instants."""
    tenant = select(Campaign.tenant_id).where(Campaign.id == campaign_id).scalar_subquery()
    return delete(AttemptedTaskCount).where(
        AttemptedTaskCount.tenant_id == tenant,
        or_(AttemptedTaskCount.campaign_id == campaign_id, AttemptedTaskCount.campaign_id == 0),
        AttemptedTaskCount.range_end > earliest,
        AttemptedTaskCount.range_start <= latest,
    )


def _upsert(connection, model, keys: Iterable[str], measures: Iterable[str]):
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    table = model.__table__
    statement = dialect.insert(table)
    return statement.on_conflict_do_update(
        index_elements=list(keys),
        set_={name: table.c[name] + statement.excluded[name] for name in measures},
    )


def _before(state, names: Iterable[str] = COLUMNS) -> dict[str, Any]:
    """The attempt's columns as they were before the changes being flushed."""
    values = {}
    for name in names:
        history = state.attrs[name].history
        if history.deleted:
            values[name] = history.deleted[0]
        elif history.unchanged:
            values[name] = history.unchanged[0]
        elif history.added:
            values[name] = None
        else:
            values[name] = getattr(state.obj(), name)
    return values


def _now(attempt: Attempt, names: Iterable[str] = COLUMNS) -> dict[str, Any]:
    return {name: getattr(attempt, name) for name in names}


def _changed(state, names: Iterable[str] = COLUMNS) -> bool:
    return any(state.attrs[name].history.has_changes() for name in names)


def customer_zone(attempt: Attempt, session: Session) -> str | None:
    """The zone of the attempt's customer: its task's, else its campaign's default."""
    with session.no_autoflush:
        task = session.get(Task, attempt.task_id) if attempt.task_id is not None else None
        if task is not None:
            return task.time_zone
        campaign = session.get(Campaign, attempt.campaign_id)
        return campaign.default_time_zone if campaign is not None else None


def _zones(session: Session, _context, _instances) -> None:
    """A new attempt made without its customer's zone gets it before it is written."""
    for instance in session.new:
        if isinstance(instance, Attempt) and instance.time_zone is None:
            instance.time_zone = customer_zone(instance, session)


def _roll_up(session: Session, _context) -> None:
    """Move the rollups by the attempts this flush wrote (still the pre-flush history)."""
    changes = None
    for instance in session.new:
        if isinstance(instance, Attempt):
            changes = changes or Changes()
            changes.add(_now(instance), 1)
            changes.recounted(_now(instance, COUNTED))
    for instance in session.dirty:
        if isinstance(instance, Attempt):
            state = db.inspect(instance)
            if _changed(state):
                changes = changes or Changes()
                changes.add(_before(state), -1)
                changes.add(_now(instance), 1)
            if _changed(state, COUNTED):
                changes = changes or Changes()
                changes.recounted(_before(state, COUNTED))
                changes.recounted(_now(instance, COUNTED))
    for instance in session.deleted:
        if isinstance(instance, Attempt):
            changes = changes or Changes()
            changes.add(_before(db.inspect(instance)), -1)
            changes.recounted(_before(db.inspect(instance), COUNTED))
    if changes is not None:
        changes.apply(session.connection())


_LISTENERS = (("before_flush", _zones), ("after_flush", _roll_up))


def keep_rollups(session: scoped_session) -> None:
    """Move the rollups with every flush of `session` (the app's): installed once."""
    for name, listener in _LISTENERS:
        if not event.contains(session, name, listener):
            event.listen(session, name, listener)


def stop_keeping(session: scoped_session) -> None:
    """Flushes of `session` no longer move the rollups (a test of what the listeners do)."""
    for name, listener in _LISTENERS:
        if event.contains(session, name, listener):
            event.remove(session, name, listener)
