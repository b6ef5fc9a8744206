"""Searching a campaign's tasks by data items and system keys.

Every criterion narrows the set (criteria are AND-ed). Each becomes a Finder
(search_plan): a test of a task (its columns, or a probe of its items by the task's id)
and, for a data item criterion, the index reads that find its matching tasks: the
(campaign_id, key, value) index, the numeric values' (campaign_id, key, number) index, the
text values' index, the trigram index (app/models/search_index.py). search_plan decides
which of them a search reads, and in what order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from itertools import groupby
from operator import itemgetter

from flask import current_app
from sqlalchemy import ColumnElement, Row, Select, and_, func, or_, select

from app.extensions import db
from app.models import Campaign, SkillQueue, Task, TaskItem, WorkCode
from app.services import search_trigrams
from app.services.errors import InvalidInput
from app.services.rules import from_epoch_ms, parse_number
from app.services.search_plan import FOLLOWED, Finder, Scope, plan, scope_of
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


def _items(scope: Scope, key: str, *conditions) -> Select:
    """The task ids of the campaign's `key` items meeting the conditions (an index range)."""
    return select(TaskItem.task_id).where(
        TaskItem.campaign_id == scope.campaign.id, TaskItem.key == key, *conditions
    )


def _has(scope: Scope, key: str, *conditions) -> ColumnElement[bool]:
    """The task has a `key` item meeting the conditions: a probe of its items, once per
    task the plan reads (the plan chooses which tasks, and in what order)."""
    # By the task's id alone: its items sit together under the table's key. Given the
    # campaign too, a database may instead read the campaign's index of the key's values,
    # every one of them, for every task.
    probe = (
        select(TaskItem.task_id)
        .where(
            TaskItem.task_id == Task.id,
            TaskItem.key == key,
            *[condition(TaskItem) for condition in conditions],
        )
        .correlate(Task)
    )
    if scope.dialect == "postgresql":
        # OFFSET 0 keeps PostgreSQL from turning the probe into a join that it would plan
        # from its own (here poor) estimate of how many items match.
        probe = probe.offset(0)
    return probe.exists()


def _starts(column, prefix: str) -> ColumnElement[bool]:
    """BEGINSWITH as a range of the value's index: the strings from the prefix up to the
    least string above every string that starts with it are exactly those that start with
    it, in the code point order both databases compare in (SQLite's binary, PostgreSQL's C)."""
    after = _after(prefix)
    if after is None:  # empty, or only U+10FFFF characters: no string above; LIKE decides
        return and_(column >= prefix, column.startswith(prefix, autoescape=True))
    return and_(column >= prefix, column < after)


def _after(prefix: str) -> str | None:
    """The least string above every string that starts with `prefix` (None: there is none)."""
    while prefix:
        last = ord(prefix[-1]) + 1
        if last == 0xD800:  # surrogates are no characters of a stored value
            last = 0xE000
        if last <= 0x10FFFF:
            return prefix[:-1] + chr(last)
        prefix = prefix[:-1]
    return None


def _custom_key(scope: Scope, criterion: Criterion) -> Finder:
    """A criterion on a data item: numbers compare as numbers when both sides are numbers."""
    key, condition, value = criterion.key, criterion.condition, criterion.value
    number = parse_number(value)
    if condition in (Condition.GREATERTHAN, Condition.LESSTHAN) and number is not None:
        above = condition is Condition.GREATERTHAN

        def numeric(item):
            return item.number > number if above else item.number < number

        def textual(item):  # a text value compares as text, as it always did
            return and_(item.number.is_(None), _text_test(item.value, condition, value))

        def compares(item):
            return or_(numeric(item), textual(item))

        return Finder(
            test=_has(scope, key, compares),
            # Two ranges: of the numeric values' index and of the text values' index.
            ids=(_items(scope, key, numeric(TaskItem)), _items(scope, key, textual(TaskItem))),
            item=(key, compares),
        )
    if condition is Condition.NOTEQUALS:
        # It also holds for a task without the key: no index finds those.
        return Finder(test=~_has(scope, key, lambda item: item.value == value))

    if condition is Condition.BEGINSWITH:  # a range of the values' index
        passes = partial(_starts, prefix=value)
    else:
        passes = partial(_text_test, condition=condition, value=value)
    item = (key, lambda item: passes(item.value))
    test = _has(scope, key, item[1])
    ids = (_items(scope, key, passes(TaskItem.value)),)
    match condition:
        case Condition.EQUALS:
            return Finder(test, ids, _equal_in_order(scope, key, value, number), item=item)
        case Condition.BEGINSWITH:
            if search_trigrams.usable(scope, value):  # many matches: read them in order
                _, follow = search_trigrams.finder_parts(scope, key, value, passes)
                return Finder(test, ids, follow, same_reads=False, item=item)
        case Condition.CONTAINS:
            if not scope.trigrams or len(value) < search_trigrams.TRIGRAM:
                return Finder(test, item=item)  # no index finds it: the campaign is walked
            if search_trigrams.usable(scope, value):
                ids, follow = search_trigrams.finder_parts(scope, key, value, passes)
                return Finder(test, (ids,), follow, item=item)
            # PostgreSQL reads its pg_trgm index for the LIKE itself. Counting the matches
            # would read the index's lists for every trigram of the value in full; alone,
            # the criterion is better left to the planner's estimate.
            if scope.small:
                # The index's lists hold every campaign's items: for a small campaign,
                # testing each of its items of the key costs less (`|| ''` hides the index).
                ids = (_items(scope, key, passes(TaskItem.value.concat(""))),)
            return Finder(test, ids, by_planner=True, item=item)
    return Finder(test, ids, item=item)


def _equal_in_order(scope: Scope, key: str, value: str, number: float | None):
    """Items equal to a value, read in task order: every index entry of task_items ends with
    the task id on SQLite (the table's key), and the text values' index ends with it on
    PostgreSQL (equal numbers there come in row address order: none to follow)."""
    if number is not None and scope.dialect != "sqlite":
        return None
    item = FOLLOWED

    def follow(tasks: Select) -> Select:
        equal = [item.c.campaign_id == scope.campaign.id, item.c.key == key, item.c.value == value]
        if number is None:  # the same items, named so that the text values' index serves
            equal.append(item.c.number.is_(None))
        joined = tasks.join(item, item.c.task_id == Task.id).where(*equal)
        return joined.order_by(item.c.task_id)

    return follow


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


def _skill_queue(scope: Scope, criterion: Criterion) -> ColumnElement[bool]:
    queues = select(SkillQueue.id).where(
        SkillQueue.tenant_id == scope.campaign.tenant_id,
        _text_test(SkillQueue.name, criterion.condition, criterion.value),
    )
    return Task.skill_queue_id.in_(queues)


def _worked_attempts(_scope: Scope, criterion: Criterion) -> ColumnElement[bool]:
    attempts = _whole_number(criterion)
    if not -MAX_INT <= attempts <= MAX_INT:
        raise InvalidInput(f"{criterion.key} must be between {-MAX_INT} and {MAX_INT}")
    return _numeric_test(Task.work_attempts, criterion.condition, attempts)


def _next_work_time(_scope: Scope, criterion: Criterion) -> ColumnElement[bool]:
    moment = from_epoch_ms(_whole_number(criterion), criterion.key)
    return _numeric_test(Task.next_earliest_work_at, criterion.condition, moment)


def _text_column(column) -> Callable[[Scope, Criterion], ColumnElement[bool]]:
    def test(_scope: Scope, criterion: Criterion) -> ColumnElement[bool]:
        return _text_test(column, criterion.condition, criterion.value)

    return test


SYSTEM_KEYS: dict[str, Callable[[Scope, Criterion], ColumnElement[bool]]] = {
    "sys_skill_queue": _skill_queue,
    "sys_worked_attempts": _worked_attempts,
    "sys_item_time_zone": _text_column(Task.time_zone),
    "sys_worked_state": _text_column(Task.worked_state),
    # A task without a preferred agent has "" there, as the wire shows it.
    "sys_preferred_agent": _text_column(func.coalesce(Task.preferred_agent, "")),
    "sys_next_earliest_worktime_long": _next_work_time,
}


def _finders(scope: Scope, criteria: list[Criterion]) -> list[Finder]:
    """How each criterion finds its tasks; a criterion that is not valid raises InvalidInput."""
    finders = []
    for criterion in criteria:
        system = SYSTEM_KEYS.get(criterion.key)
        finders.append(
            Finder(system(scope, criterion)) if system else _custom_key(scope, criterion)
        )
    return finders


def filtered(campaign: Campaign, criteria: list[Criterion]) -> Select:
    """A select of the campaign's tasks matching every criterion, in no order."""
    scope = scope_of(campaign)
    conditions = [
        Task.id.in_(finder.matches()) if finder.ids else finder.test
        for finder in _finders(scope, criteria)
    ]
    return select(Task).where(Task.campaign_id == campaign.id, *conditions)


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
    """Tasks matching every criterion, oldest first (see search_plan for how)."""
    return list(db.session.scalars(search_query(campaign, criteria, limit, offset)))


def search_query(
    campaign: Campaign, criteria: list[Criterion], limit: int, offset: int = 0
) -> Select:
    """The select that search_tasks runs (for the benchmark: it times the plan alone)."""
    scope = scope_of(campaign)
    return plan(scope, _finders(scope, criteria), limit, offset)


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
