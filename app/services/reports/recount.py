"""Recounting the reports' rollups from the attempts: after attempts were written by plain
SQL (the demo's past, a bulk load), or by an operator (`flask --app wsgi reports
rebuild-rollups`). The ledger keeps them current otherwise (app/services/reports/rollups.py)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import case, delete, func, insert, literal_column, select, update

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
from app.models.report_rollups import MEASURES, SLOTS_A_DAY
from app.services.reports.rollups import (
    CODE_KEY,
    DAY_CODE_KEY,
    DAY_KEY,
    ENDINGS,
    OUTCOMES,
    ROLLUP_KEY,
)
from app.services.reports.sql import bucket, epoch


def _count_if(condition):
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _seconds_if(since, until):
    known = since.is_not(None) & until.is_not(None)
    return (
        func.coalesce(func.sum(case((known, epoch(until) - epoch(since)), else_=0)), 0),
        _count_if(known),
    )


def code_elements():
    """The elements of each attempt's code list as a table (json_each on SQLite,
    json_array_elements on PostgreSQL): their key and value."""
    if db.session.get_bind().dialect.name == "postgresql":
        codes = func.json_array_elements(Attempt.work_codes).table_valued("value").alias("code")
        return codes, codes.c.value.op("->>")("key"), codes.c.value.op("->>")("value")
    codes = func.json_each(Attempt.work_codes).table_valued("value").alias("code")
    return (
        codes,
        func.json_extract(codes.c.value, "$.key"),
        func.json_extract(codes.c.value, "$.value"),
    )


def recount(campaign_ids: Iterable[int] | None = None) -> int:
    """Recompute the rollups of the campaigns (all when None) from their attempts, giving
    attempts without a customer zone theirs first, then their day rollups from those, and
    forget their cached counts of tasks attempted (their tenants' over every campaign
    too); idempotent. How many (15-minute) rollup rows."""
    ids = None if campaign_ids is None else list(campaign_ids)

    def only(column):
        return [] if ids is None else [column.in_(ids)]

    task_zone = select(Task.time_zone).where(Task.id == Attempt.task_id).scalar_subquery()
    default_zone = (
        select(Campaign.default_time_zone).where(Campaign.id == Attempt.campaign_id)
    ).scalar_subquery()
    db.session.execute(
        update(Attempt)
        .where(Attempt.time_zone.is_(None), *only(Attempt.campaign_id))
        .values(time_zone=func.coalesce(task_zone, default_zone))
        .execution_options(synchronize_session=False)
    )
    for model in (AttemptRollup, WorkCodeRollup, AttemptDayRollup, WorkCodeDayRollup):
        db.session.execute(delete(model).where(*only(model.campaign_id)))
    tenants = select(Campaign.tenant_id).where(*only(Campaign.id))
    db.session.execute(delete(AttemptedTaskCount).where(AttemptedTaskCount.tenant_id.in_(tenants)))
    slot = bucket(Attempt.delivered_at)
    queue = func.coalesce(Attempt.skill_queue_id, 0)
    zone = func.coalesce(Attempt.time_zone, "")
    held = case(
        (
            Attempt.ended_at.is_not(None) & (Attempt.ended_at > Attempt.delivered_at),
            epoch(Attempt.ended_at) - epoch(Attempt.delivered_at),
        ),
        else_=0,
    )
    figures = (
        select(
            Attempt.campaign_id,
            slot,
            queue,
            Attempt.agent_login,
            zone,
            func.count(),
            _count_if(Attempt.contact),
            _count_if(Attempt.success),
            *(_count_if(Attempt.outcome == value) for value in OUTCOMES.values()),
            *(_count_if(Attempt.ended_how == value.value) for value in ENDINGS.values()),
            _count_if(Attempt.ended_how.is_(None)),
            *_seconds_if(
                Attempt.delivered_at, func.coalesce(Attempt.call_started_at, Attempt.ended_at)
            ),
            *_seconds_if(Attempt.connected_at, Attempt.call_ended_at),
            *_seconds_if(Attempt.call_ended_at, Attempt.closed_at),
            func.coalesce(func.sum(held), 0),
        )
        .where(*only(Attempt.campaign_id))
        .group_by(Attempt.campaign_id, slot, queue, Attempt.agent_login, zone)
    )
    db.session.execute(insert(AttemptRollup).from_select([*ROLLUP_KEY, *MEASURES], figures))
    codes, name, value = code_elements()
    chosen = (
        select(Attempt.campaign_id, slot, queue, Attempt.agent_login, name, value, func.count())
        .select_from(Attempt)
        .join(codes, literal_column("1") == literal_column("1"))
        .where(
            Attempt.ended_how == EndedHow.CLOSED.value,
            name.is_not(None),
            value.is_not(None),
            *only(Attempt.campaign_id),
        )
        .group_by(Attempt.campaign_id, slot, queue, Attempt.agent_login, name, value)
    )
    db.session.execute(insert(WorkCodeRollup).from_select([*CODE_KEY, "chosen"], chosen))
    _days_of(AttemptRollup, AttemptDayRollup, DAY_KEY, MEASURES, only)
    _days_of(WorkCodeRollup, WorkCodeDayRollup, DAY_CODE_KEY, ("chosen",), only)
    return int(
        db.session.scalar(
            select(func.count()).select_from(AttemptRollup).where(*only(AttemptRollup.campaign_id))
        )
        or 0
    )


def _days_of(slots, days, key: tuple[str, ...], measures: tuple[str, ...], only) -> None:
    """The day rollups summed from the 15-minute ones (the zones summed too)."""
    day = slots.slot // SLOTS_A_DAY
    rest = [getattr(slots, name) for name in key[2:]]
    sums = (
        select(slots.campaign_id, day, *rest, *(func.sum(getattr(slots, m)) for m in measures))
        .where(*only(slots.campaign_id))
        .group_by(slots.campaign_id, day, *rest)
    )
    db.session.execute(insert(days).from_select([*key, *measures], sums))
