"""The campaign summary: tasks, penetration, attempts, contacts, successes, how they ended.

Every attempt is in exactly one of the ending rows: a closing's outcome (completed, removed,
rescheduled), or how it was let go (released, lapsed, taken back by a supervisor, changed
elsewhere: a status change, a move or a deletion meanwhile), or still in progress; so the
rows always sum to `attempts`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import case, func, literal_column, select

from app.extensions import db
from app.models import Attempt, AttemptRollup, Task, WorkCodeRollup
from app.models.attempts import EndedHow
from app.services.reports.recount import code_elements
from app.services.reports.scope import ReportScope, tenant_campaign_ids
from app.services.reports.slots import Parts, rollup_filters, split

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


def campaign_summary(scope: ReportScope) -> CampaignSummary:
    """The whole 15-minute slots of the range from the rollups, its edges from the attempts;
    the tasks attempted from the (campaign, delivery, task) index alone."""
    parts = split(scope)
    totals = [0] * (3 + len(OUTCOME_COUNTS) + len(ENDED_COUNTS))
    if parts.whole is not None:
        row = db.session.execute(
            select(
                *(
                    func.coalesce(func.sum(getattr(AttemptRollup, name)), 0)
                    for name in (
                        "attempts",
                        "contacts",
                        "successes",
                        *OUTCOME_COUNTS,
                        *ENDED_COUNTS,
                    )
                )
            ).where(*rollup_filters(scope, AttemptRollup, parts.whole))
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
        attempted_tasks=_attempted(scope, parts),
        attempts=attempts,
        contacts=contacts,
        successes=successes,
        **dict(zip((*OUTCOME_COUNTS, *ENDED_COUNTS), ended, strict=True)),
        outcomes=sorted(outcomes, key=lambda row: (-row[1], row[0])),
        work_codes=_work_codes(scope, parts),
    )


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
    """The codes chosen on the closed attempts in scope, most chosen first: the whole slots
    from the rollups, the edges counted by the database from each attempt's JSON list
    (json_each on SQLite, json_array_elements on PostgreSQL)."""
    chosen: Counter[tuple[str, str]] = Counter()
    if parts.whole is not None:
        rows = db.session.execute(
            select(
                WorkCodeRollup.code_key, WorkCodeRollup.code_value, func.sum(WorkCodeRollup.chosen)
            )
            .where(*rollup_filters(scope, WorkCodeRollup, parts.whole))
            .group_by(WorkCodeRollup.code_key, WorkCodeRollup.code_value)
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
