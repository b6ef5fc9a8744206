"""Searching a campaign's tasks by data items and system keys.

Every criterion narrows the set (criteria are AND-ed). A custom-key criterion becomes
`tasks.id IN (SELECT task_id FROM task_items WHERE campaign, key, value ...)`, which the
(campaign_id, key, value) and (campaign_id, key, number) indexes answer directly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import groupby
from operator import itemgetter

from flask import current_app
from sqlalchemy import ColumnElement, Row, Select, func, or_, select

from app.extensions import db
from app.models import Campaign, SkillQueue, Task, TaskItem, WorkCode
from app.services.errors import InvalidInput
from app.services.rules import from_epoch_ms, parse_number
from app.services.validation import MAX_INT


class Condition(StrEnum):
    EQUALS = "EQUALS"
    NOTEQUALS = "NOTEQUALS"
    GREATERTHAN = "GREATERTHAN"
    LESSTHAN = "LESSTHAN"
    CONTAINS = "CONTAINS"
    BEGINSWITH = "BEGINSWITH"


@dataclass(frozen=True)
class Criterion:
    key: str
    condition: Condition
    value: str


def _text_test(column, condition: Condition, value: str) -> ColumnElement[bool]:
    """The condition on a text column; LIKE wildcards in the value are taken literally."""
    match condition:
        case Condition.EQUALS:
            return column == value
        case Condition.NOTEQUALS:
            return column != value
        case Condition.GREATERTHAN:
            return column > value
        case Condition.LESSTHAN:
            return column < value
        case Condition.CONTAINS:
            return column.contains(value, autoescape=True)
        case Condition.BEGINSWITH:
            return column.startswith(value, autoescape=True)


def _items_where(campaign: Campaign, key: str, *conditions) -> Select:
    return select(TaskItem.task_id).where(
        TaskItem.campaign_id == campaign.id, TaskItem.key == key, *conditions
    )


def _custom_key(campaign: Campaign, criterion: Criterion) -> ColumnElement[bool]:
    """A criterion on a data item: numbers compare as numbers when both sides are numbers."""
    key, condition, value = criterion.key, criterion.condition, criterion.value
    number = parse_number(value)
    if condition in (Condition.GREATERTHAN, Condition.LESSTHAN) and number is not None:
        above = condition is Condition.GREATERTHAN
        numeric = TaskItem.number > number if above else TaskItem.number < number
        # Two subqueries, so the numeric one can use the index of numeric values alone.
        return or_(
            Task.id.in_(_items_where(campaign, key, numeric)),
            Task.id.in_(
                _items_where(
                    campaign,
                    key,
                    TaskItem.number.is_(None),
                    _text_test(TaskItem.value, condition, value),
                )
            ),
        )
    # NOTEQUALS holds for a task whose item differs and for one without the key at all.
    if condition is Condition.NOTEQUALS:
        return Task.id.not_in(_items_where(campaign, key, TaskItem.value == value))
    return Task.id.in_(_items_where(campaign, key, _text_test(TaskItem.value, condition, value)))


def _whole_number(criterion: Criterion) -> int:
    if criterion.condition in (Condition.CONTAINS, Condition.BEGINSWITH):
        raise InvalidInput(
            f"condition {criterion.condition} does not apply to {criterion.key}; "
            "use EQUALS, NOTEQUALS, GREATERTHAN or LESSTHAN"
        )
    try:
        return int(criterion.value)
    except ValueError:
        raise InvalidInput(
            f"{criterion.key} compares with a whole number, not '{criterion.value}'"
        ) from None


def _numeric_test(column, condition: Condition, value) -> ColumnElement[bool]:
    if condition is Condition.NOTEQUALS:
        return or_(column.is_(None), column != value)
    return _text_test(column, condition, value)


def _skill_queue(campaign: Campaign, criterion: Criterion) -> ColumnElement[bool]:
    queues = select(SkillQueue.id).where(
        SkillQueue.tenant_id == campaign.tenant_id,
        _text_test(SkillQueue.name, criterion.condition, criterion.value),
    )
    return Task.skill_queue_id.in_(queues)


def _worked_attempts(_campaign: Campaign, criterion: Criterion) -> ColumnElement[bool]:
    attempts = _whole_number(criterion)
    if not -MAX_INT <= attempts <= MAX_INT:
        raise InvalidInput(f"{criterion.key} must be between {-MAX_INT} and {MAX_INT}")
    return _numeric_test(Task.work_attempts, criterion.condition, attempts)


def _next_work_time(_campaign: Campaign, criterion: Criterion) -> ColumnElement[bool]:
    moment = from_epoch_ms(_whole_number(criterion), criterion.key)
    return _numeric_test(Task.next_earliest_work_at, criterion.condition, moment)


def _text_column(column) -> Callable[[Campaign, Criterion], ColumnElement[bool]]:
    def test(_campaign: Campaign, criterion: Criterion) -> ColumnElement[bool]:
        return _text_test(column, criterion.condition, criterion.value)

    return test


SYSTEM_KEYS: dict[str, Callable[[Campaign, Criterion], ColumnElement[bool]]] = {
    "sys_skill_queue": _skill_queue,
    "sys_worked_attempts": _worked_attempts,
    "sys_item_time_zone": _text_column(Task.time_zone),
    "sys_worked_state": _text_column(Task.worked_state),
    # A task without a preferred agent has "" there, as the wire shows it.
    "sys_preferred_agent": _text_column(func.coalesce(Task.preferred_agent, "")),
    "sys_next_earliest_worktime_long": _next_work_time,
}


def filtered(campaign: Campaign, criteria: list[Criterion]):
    """A select of the campaign's tasks matching every criterion."""
    query = select(Task).where(Task.campaign_id == campaign.id)
    for criterion in criteria:
        build = SYSTEM_KEYS.get(criterion.key, _custom_key)
        query = query.where(build(campaign, criterion))
    return query


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
    campaign: Campaign, criteria: list[Criterion], limit: int, offset: int = 0
) -> list[Task]:
    """Tasks matching every criterion, oldest first."""
    query = filtered(campaign, criteria).order_by(Task.id).limit(limit).offset(offset)
    return list(db.session.scalars(query))


@dataclass(frozen=True)
class TaskData:
    """A task with its data items (key, value, display_order) and work codes (key, value)."""

    task: Task
    items: Sequence[Row]
    work_codes: Sequence[Row]


DATA_CHUNK = 1000


def with_data(tasks: list[Task]) -> list[TaskData]:
    """Attach items and work codes to many tasks in a few plain queries.

    Loading thousands of items as rows rather than ORM objects keeps a 1,000-task search
    answer several times cheaper.
    """
    found = []
    for start in range(0, len(tasks), DATA_CHUNK):
        chunk = tasks[start : start + DATA_CHUNK]
        items, codes = data_rows([task.id for task in chunk])
        found += [TaskData(task, items.get(task.id, ()), codes.get(task.id, ())) for task in chunk]
    return found


def data_rows(task_ids: list[int]) -> tuple[dict[int, list[Row]], dict[int, list[Row]]]:
    """The items (task_id, key, value, display_order) and the work codes (task_id, key,
    value) of at most DATA_CHUNK tasks, each by task id in their order; two queries."""
    items = _grouped(
        select(TaskItem.task_id, TaskItem.key, TaskItem.value, TaskItem.display_order)
        .where(TaskItem.task_id.in_(task_ids))
        .order_by(TaskItem.task_id, TaskItem.position)
    )
    codes = _grouped(
        select(WorkCode.task_id, WorkCode.key, WorkCode.value)
        .where(WorkCode.task_id.in_(task_ids))
        .order_by(WorkCode.task_id, WorkCode.position)
    )
    return items, codes


def _grouped(query: Select) -> dict[int, list[Row]]:
    """The rows of a query ordered by task id (its first column), by task id."""
    rows = db.session.execute(query).all()  # one fetch: cheaper than a row at a time
    return {task_id: list(group) for task_id, group in groupby(rows, key=itemgetter(0))}


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


def count_tasks(campaign: Campaign, criteria: list[Criterion]) -> int:
    """How many tasks match every criterion."""
    query = filtered(campaign, criteria).with_only_columns(func.count(Task.id))
    return db.session.scalar(query) or 0
