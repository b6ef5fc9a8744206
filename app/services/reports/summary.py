"""The campaign summary: tasks, penetration, attempts, contacts, successes, how they ended."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import case, func, select

from app.extensions import db
from app.models import Attempt, Task
from app.models.attempts import EndedHow
from app.services.reports.scope import ReportScope, tenant_campaign_ids

# How an attempt ended, counted by the summary: a closing's outcome, or how it was let go.
OUTCOME_COUNTS = {"completed": "COMPLETE", "removed": "REMOVE", "rescheduled": "RESCHEDULE"}
ENDED_COUNTS = {"released": EndedHow.RELEASED, "lapsed": EndedHow.LAPSED}


@dataclass(frozen=True)
class CampaignSummary:
    """`tasks` are the current tasks of the campaigns (and queue) in scope, whenever added;
    `attempted_tasks` the distinct tasks attempted in the range (a deleted task's attempts
    count as attempts, not as an attempted task)."""

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
    outcomes: list[tuple[str, int]]
    work_codes: list[tuple[str, str, int]]

    @property
    def penetration(self) -> float | None:
        """Attempted tasks per task; None without tasks."""
        return self.attempted_tasks / self.tasks if self.tasks else None

    @property
    def contact_rate(self) -> float | None:
        """Contacts per attempt; None without attempts."""
        return self.contacts / self.attempts if self.attempts else None

    @property
    def is_empty(self) -> bool:
        return self.attempts == 0


def _count_if(condition):
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def campaign_summary(scope: ReportScope) -> CampaignSummary:
    where = scope.attempt_filters()
    totals = db.session.execute(
        select(
            func.count(),
            func.count(Attempt.task_id.distinct()),
            _count_if(Attempt.contact),
            _count_if(Attempt.success),
            *(_count_if(Attempt.outcome == value) for value in OUTCOME_COUNTS.values()),
            *(_count_if(Attempt.ended_how == value.value) for value in ENDED_COUNTS.values()),
        ).where(*where)
    ).one()
    attempts, attempted, contacts, successes, *ended = (int(value or 0) for value in totals)
    outcomes = db.session.execute(
        select(Attempt.outcome, func.count())
        .where(*where, Attempt.outcome.is_not(None))
        .group_by(Attempt.outcome)
    ).all()
    return CampaignSummary(
        tasks=_tasks(scope),
        attempted_tasks=attempted,
        attempts=attempts,
        contacts=contacts,
        successes=successes,
        **dict(zip((*OUTCOME_COUNTS, *ENDED_COUNTS), ended, strict=True)),
        outcomes=sorted(((o, int(n)) for o, n in outcomes), key=lambda row: (-row[1], row[0])),
        work_codes=_work_codes(scope),
    )


def _tasks(scope: ReportScope) -> int:
    query = select(func.count()).select_from(Task)
    if scope.campaign is not None:
        query = query.where(Task.campaign_id == scope.campaign.id)
    else:
        query = query.where(Task.campaign_id.in_(tenant_campaign_ids(scope.tenant)))
    if scope.queue is not None:
        query = query.where(Task.skill_queue_id == scope.queue.id)
    return int(db.session.scalar(query) or 0)


def _work_codes(scope: ReportScope) -> list[tuple[str, str, int]]:
    """The codes chosen on the closed attempts in scope, most chosen first. The JSON lists
    are decoded here (the same on both databases); only closings carry codes."""
    counts: Counter[tuple[str, str]] = Counter()
    rows = db.session.scalars(
        select(Attempt.work_codes).where(
            *scope.attempt_filters(), Attempt.ended_how == EndedHow.CLOSED.value
        )
    )
    for codes in rows:
        for code in codes or ():
            if isinstance(code, dict):
                counts[(str(code.get("key", "")), str(code.get("value", "")))] += 1
    return sorted(
        ((key, value, n) for (key, value), n in counts.items()),
        key=lambda row: (-row[2], row[0], row[1]),
    )
