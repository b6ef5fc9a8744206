"""Searching a campaign's tasks by data items and system keys.

Every criterion narrows the set (criteria are AND-ed). Each becomes a Finder
(search/plan.py): a system key's test of the task's columns (search/criteria.py), or a data
item's test and the index reads that find its matching tasks (search/items.py). The plan
decides which of them a search reads, and in what order.
"""

from __future__ import annotations

from collections.abc import Sequence

from flask import current_app
from sqlalchemy import ColumnElement, Select, func, select

from app.extensions import db
from app.models import Campaign, Task, TaskItem
from app.services.errors import InvalidInput
from app.services.search.criteria import SYSTEM_KEYS, Criterion
from app.services.search.items import item_finder
from app.services.search.plan import Finder, Scope, plan, scope_of
from app.services.tasks.lookups import CampaignRef

# Conditions on the task's own columns that narrow a search besides its criteria (the
# supervisors' pages: a group of the Progress panel, such as the tasks deliverable now).
Also = Sequence[ColumnElement[bool]]


def _finders(scope: Scope, criteria: list[Criterion], also: Also = ()) -> list[Finder]:
    """How each criterion finds its tasks; a criterion that is not valid raises InvalidInput."""
    finders = []
    for criterion in criteria:
        system = SYSTEM_KEYS.get(criterion.key)
        finders.append(
            Finder(system(scope, criterion)) if system else item_finder(scope, criterion)
        )
    return finders + [Finder(condition) for condition in also]


def filtered(campaign: Campaign, criteria: list[Criterion], also: Also = ()) -> Select:
    """A select of the campaign's tasks matching every criterion, in no order."""
    scope = scope_of(campaign)
    conditions = [
        Task.id.in_(finder.matches()) if finder.ids else finder.test
        for finder in _finders(scope, criteria, also)
    ]
    return select(Task).where(Task.campaign_id == campaign.id, *conditions)


def probed(campaign: Campaign, criteria: list[Criterion]) -> Select:
    """A select of the campaign's tasks matching every criterion, each tested on the task
    itself (its columns, a probe of its items): for walking the tasks in id order a batch
    at a time, where `filtered` would collect every match of a criterion for each batch."""
    scope = scope_of(campaign)
    tests = [finder.test for finder in _finders(scope, criteria)]
    return select(Task).where(Task.campaign_id == campaign.id, *tests)


DEFAULT_MAX_RECORDS = 1000


def result_limit(max_records: int | None) -> int:
    """How many tasks a search returns: maxRecords, 1,000 by default, at most the ceiling."""
    ceiling = current_app.config["SEARCH_MAX_RECORDS"]
    if max_records is None:
        return min(DEFAULT_MAX_RECORDS, ceiling)
    if not 1 <= max_records <= ceiling:
        raise InvalidInput(f"maxRecords must be between 1 and {ceiling}")
    return max_records


def search_tasks(
    campaign: Campaign | CampaignRef,
    criteria: list[Criterion],
    limit: int,
    offset: int = 0,
    also: Also = (),
) -> list[Task]:
    """Tasks matching every criterion, oldest first (see search/plan.py for how)."""
    return list(db.session.scalars(search_query(campaign, criteria, limit, offset, also)))


def search_query(
    campaign: Campaign | CampaignRef,
    criteria: list[Criterion],
    limit: int,
    offset: int = 0,
    also: Also = (),
) -> Select:
    """The select that search_tasks runs (for the benchmark: it times the plan alone)."""
    scope = scope_of(campaign)
    return plan(scope, _finders(scope, criteria, also), limit, offset)


def suggested_keys(campaign: Campaign, sample: int = 500) -> list[str]:
    """Data keys used by the campaign's most recent tasks, for search pickers."""
    recent = (
        select(Task.id)
        .where(Task.campaign_id == campaign.id)
        .order_by(Task.id.desc())
        .limit(sample)
    )
    keys = db.session.scalars(
        select(TaskItem.key).where(TaskItem.task_id.in_(recent)).distinct().order_by(TaskItem.key)
    )
    return list(keys)


def count_tasks(campaign: Campaign, criteria: list[Criterion], also: Also = ()) -> int:
    """How many tasks match every criterion."""
    query = filtered(campaign, criteria, also).with_only_columns(func.count(Task.id))
    return db.session.scalar(query) or 0
