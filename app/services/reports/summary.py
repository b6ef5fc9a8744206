"""The campaign summary: tasks, penetration, attempts, contacts, successes, how they ended.

Every attempt is in exactly one of the ending rows: a closing's outcome (completed, removed,
rescheduled), or how it was let go (released, lapsed, taken back by a supervisor, changed
elsewhere: a status change, a move or a deletion meanwhile), or still in progress; so the
rows always sum to `attempts`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import case, func, literal_column, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, OperationalError

from app.db.side_transactions import may_write_aside, own_transaction
from app.db.transactions import begins_read_only
from app.extensions import db
from app.models import (
    Attempt,
    AttemptDayRollup,
    AttemptedTaskCount,
    AttemptRollup,
    Task,
    WorkCodeDayRollup,
    WorkCodeRollup,
)
from app.models.attempts import EndedHow
from app.services.reports.recount import code_elements
from app.services.reports.scope import ReportScope, tenant_campaign_ids
from app.services.reports.slots import Parts, rolled_up, split

# How an attempt ended, counted by the summary: a closing's outcome, or how it was let go.
OUTCOME_COUNTS = {"completed": "COMPLETE", "removed": "REMOVE", "rescheduled": "RESCHEDULE"}
ENDED_COUNTS: dict[str, EndedHow | None] = {
    "released": EndedHow.RELEASED,
    "lapsed": EndedHow.LAPSED,
    "taken_back": EndedHow.TAKEN_BACK,
    "changed_elsewhere": EndedHow.CHANGED_ELSEWHERE,
    "in_progress": None,  # not ended yet
}
# The ending rows of the report, in its order: each attempt is in exactly one.
ENDINGS = (*OUTCOME_COUNTS, *ENDED_COUNTS)
# A range that ended this long ago has its count of tasks attempted kept (no transaction
# delivering in it is still open).
SETTLED = timedelta(minutes=5)


@dataclass(frozen=True)
class CampaignSummary:
    """`tasks` are the current tasks of the campaigns (and queue) in scope, whenever added;
    `attempted_tasks` the distinct tasks attempted in the range, a task deleted since
    among them. The ending rows (`ENDINGS`) sum to `attempts`."""

    tasks: int
    attempted_tasks: int
    attempts: int
    contacts: int
    successes: int
    completed: int
    removed: int
    rescheduled: int
    released: int
    lapsed: int
    taken_back: int
    changed_elsewhere: int
    in_progress: int
    outcomes: list[tuple[str, int]]
    work_codes: list[tuple[str, str, int]]

    @property
    def penetration(self) -> float | None:
        """Attempted tasks per task; None without tasks."""
        return self.attempted_tasks / self.tasks if self.tasks else None

    @property
    def endings(self) -> dict[str, int]:
        """Every ending row by name (ENDINGS), in the report's order: they sum to attempts."""
        return {name: getattr(self, name) for name in ENDINGS}

    @property
    def contact_rate(self) -> float | None:
        """Contacts per attempt; None without attempts."""
        return self.contacts / self.attempts if self.attempts else None

    @property
    def is_empty(self) -> bool:
        return self.attempts == 0


def _ended(how: EndedHow | None):
    return Attempt.ended_how.is_(None) if how is None else Attempt.ended_how == how.value


def _count_if(condition):
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def campaign_summary(scope: ReportScope, *, now: datetime | None = None) -> CampaignSummary:
    """The whole UTC days of the range from the day rollups, its other whole 15-minute slots
    from the rollups, its edges from the attempts; the tasks attempted from the (campaign,
    delivery, task) index alone, kept once the range has ended (before `now`, default: the
    clock)."""
    parts = split(scope)
    totals = [0] * (3 + len(OUTCOME_COUNTS) + len(ENDED_COUNTS))
    for model, filters in rolled_up(scope, parts, AttemptRollup, AttemptDayRollup):
        row = db.session.execute(
            select(
                *(
                    func.coalesce(func.sum(getattr(model, name)), 0)
                    for name in (
                        "attempts",
                        "contacts",
                        "successes",
                        *OUTCOME_COUNTS,
                        *ENDED_COUNTS,
                    )
                )
            ).where(*filters)
        ).one()
        totals = [a + int(b or 0) for a, b in zip(totals, row, strict=True)]
    for edge in parts.edges:
        row = db.session.execute(
            select(
                func.count(),
                _count_if(Attempt.contact),
                _count_if(Attempt.success),
                *(_count_if(Attempt.outcome == value) for value in OUTCOME_COUNTS.values()),
                *(_count_if(_ended(how)) for how in ENDED_COUNTS.values()),
            ).where(*edge.attempt_filters())
        ).one()
        totals = [a + int(b or 0) for a, b in zip(totals, row, strict=True)]
    attempts, contacts, successes, *ended = totals
    # Every closing has one of the three outcomes: their counts are the outcomes' list.
    by_outcome = dict(zip(OUTCOME_COUNTS.values(), ended[: len(OUTCOME_COUNTS)], strict=True))
    outcomes = [(outcome, n) for outcome, n in by_outcome.items() if n]
    return CampaignSummary(
        tasks=_tasks(scope),
        attempted_tasks=attempted_tasks(scope, parts, now or datetime.now(UTC)),
        attempts=attempts,
        contacts=contacts,
        successes=successes,
        **dict(zip((*OUTCOME_COUNTS, *ENDED_COUNTS), ended, strict=True)),
        outcomes=sorted(outcomes, key=lambda row: (-row[1], row[0])),
        work_codes=_work_codes(scope, parts),
    )


def attempted_tasks(scope: ReportScope, parts: Parts, now: datetime) -> int:
    """The distinct tasks attempted in the range (`_attempted`): for a range that ended
    SETTLED before `now`, counted once and kept (AttemptedTaskCount), a deleted task's
    attempts keeping its id so that the count holds; the ledger and a recount forget a kept
    count whose range they write in."""
    if scope.end > now - SETTLED:
        return _attempted(scope, parts)
    key = {
        "tenant_id": scope.tenant.id,
        "campaign_id": scope.campaign.id if scope.campaign is not None else 0,
        "skill_queue_id": scope.queue.id if scope.queue is not None else 0,
        "agent_login": scope.agent or "",
        "range_start": scope.start,
        "range_end": scope.end,
    }
    kept = db.session.scalar(select(AttemptedTaskCount.tasks).filter_by(**key))
    if kept is not None:
        return int(kept)
    counted = _attempted(scope, parts)
    if may_write_aside() or begins_read_only():
        # A transaction of its own (the report's reads none): a read-only request's session
        # holds no write lock. A report keeping the same count first loses nothing.
        try:
            with own_transaction() as connection:
                connection.execute(_insert_once(connection, key, counted))
        except (IntegrityError, OperationalError):
            pass
    return counted


def _insert_once(connection, key: dict, counted: int):
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    return dialect.insert(AttemptedTaskCount).values(**key, tasks=counted).on_conflict_do_nothing()


def _attempted(scope: ReportScope, parts: Parts) -> int:
    """The distinct tasks attempted in the range, read from an index alone: over a short
    range the (campaign, delivery, task) index's range, sorted; over most of the scope's
    history (`_wide`) on SQLite, whose planner cannot weigh a range's width, the
    (campaign, task, delivery) index read task by task, each task counted once as it comes
    (the delivery compared through an expression SQLite does not look an index up by)."""
    delivered = None
    if db.session.get_bind().dialect.name == "sqlite" and _wide(scope, parts):
        delivered = func.coalesce(Attempt.delivered_at, Attempt.delivered_at)
    tasks = (
        select(Attempt.task_id)
        .where(*scope.attempt_filters(delivered), Attempt.task_id.is_not(None))
        .distinct()
        .subquery()
    )
    # A DISTINCT subquery, not COUNT(DISTINCT): PostgreSQL then reads the tasks in index
    # order (Unique) or hashes them instead of sorting them all.
    current = int(db.session.scalar(select(func.count()).select_from(tasks)) or 0)
    return current + _attempted_deleted(scope)


def _attempted_deleted(scope: ReportScope) -> int:
    """The distinct tasks deleted since, attempted in the range (their attempts keep the
    task's id in `deleted_task_id`, read from its partial index; no current task's attempt
    has one)."""
    deleted = (
        select(Attempt.deleted_task_id)
        .where(*scope.attempt_filters(), Attempt.deleted_task_id.is_not(None))
        .distinct()
        .subquery()
    )
    return int(db.session.scalar(select(func.count()).select_from(deleted)) or 0)


def _wide(scope: ReportScope, parts: Parts) -> bool:
    """Whether the range covers most of the scope's history (its first to its last slot in
    the rollups, two index probes per campaign)."""
    if parts.whole is None:
        return False
    campaign = (
        [AttemptRollup.campaign_id == scope.campaign.id]
        if scope.campaign is not None
        else [AttemptRollup.campaign_id.in_(tenant_campaign_ids(scope.tenant))]
    )
    first = db.session.scalar(select(func.min(AttemptRollup.slot)).where(*campaign))
    last = db.session.scalar(select(func.max(AttemptRollup.slot)).where(*campaign))
    if first is None or last is None:
        return False
    covered = min(last + 1, parts.whole[1]) - max(first, parts.whole[0])
    return covered * 2 > last + 1 - first


def _tasks(scope: ReportScope) -> int:
    query = select(func.count()).select_from(Task)
    if scope.campaign is not None:
        query = query.where(Task.campaign_id == scope.campaign.id)
    else:
        query = query.where(Task.campaign_id.in_(tenant_campaign_ids(scope.tenant)))
    if scope.queue is not None:
        query = query.where(Task.skill_queue_id == scope.queue.id)
    return int(db.session.scalar(query) or 0)


def _work_codes(scope: ReportScope, parts: Parts) -> list[tuple[str, str, int]]:
    """The codes chosen on the closed attempts in scope, most chosen first: the whole days
    and slots from the rollups, the edges counted by the database from each attempt's JSON list
    (json_each on SQLite, json_array_elements on PostgreSQL)."""
    chosen: Counter[tuple[str, str]] = Counter()
    for model, filters in rolled_up(scope, parts, WorkCodeRollup, WorkCodeDayRollup):
        rows = db.session.execute(
            select(model.code_key, model.code_value, func.sum(model.chosen))
            .where(*filters)
            .group_by(model.code_key, model.code_value)
        )
        for k, v, n in rows:
            chosen[(str(k), str(v))] += int(n or 0)
    for edge in parts.edges:
        codes, key, value = code_elements()
        rows = db.session.execute(
            select(key, value, func.count())
            .select_from(Attempt)
            .join(codes, literal_column("1") == literal_column("1"))
            .where(*edge.attempt_filters(), Attempt.ended_how == EndedHow.CLOSED.value)
            .group_by(key, value)
        )
        for k, v, n in rows:
            if k is not None and v is not None:
                chosen[(str(k), str(v))] += int(n)
    return sorted(
        ((k, v, n) for (k, v), n in chosen.items() if n),
        key=lambda row: (-row[2], row[0], row[1]),
    )
