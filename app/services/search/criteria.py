"""What a search asks: criteria, their conditions, and the tests of the system keys.

A criterion names a key, a condition and a value. The system keys (`sys_…`) test a task's
own columns, each by a function of SYSTEM_KEYS; any other key names a data item
(app/services/search/items.py). `text_test` is the one reading of a condition on a text
column that both kinds share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy import ColumnElement, func, or_, select

from app.models import SkillQueue, Task
from app.services.errors import InvalidInput
from app.services.fields import SEARCH_CRITERION
from app.services.search.plan import Scope
from app.services.tasks.validation import MAX_INT
from app.wire.times import from_epoch_ms


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
    # The supervisors' pages may ask for letters in either case to match; the Preview API's
    # conditions are exact, as the specification has them.
    ignore_case: bool = False


# The letters both databases fold: their lower() on the byte-order collation the values are
# stored in (SQLite's binary, PostgreSQL's C) changes A-Z alone.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def folded(value: str) -> str:
    """The value with A-Z in lower case, as the databases' lower() folds a column."""
    return value.translate(_ASCII_LOWER)


def text_test(
    column, condition: Condition, value: str, ignore_case: bool = False
) -> ColumnElement[bool]:
    """The condition on a text column; LIKE wildcards in the value are taken literally.
    Ignoring case compares lower(column) with the folded value: no index of the column
    serves it."""
    if ignore_case:
        column, value = func.lower(column), folded(value)
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
    return text_test(column, condition, value)


def _skill_queue(scope: Scope, criterion: Criterion) -> ColumnElement[bool]:
    queues = select(SkillQueue.id).where(
        SkillQueue.tenant_id == scope.campaign.tenant_id,
        text_test(SkillQueue.name, criterion.condition, criterion.value, criterion.ignore_case),
    )
    return Task.skill_queue_id.in_(queues)


def _worked_attempts(_scope: Scope, criterion: Criterion) -> ColumnElement[bool]:
    attempts = _whole_number(criterion)
    if not -MAX_INT <= attempts <= MAX_INT:
        raise InvalidInput(f"{criterion.key} must be between {-MAX_INT} and {MAX_INT}")
    return _numeric_test(Task.work_attempts, criterion.condition, attempts)


def _next_work_time(_scope: Scope, criterion: Criterion) -> ColumnElement[bool]:
    moment = from_epoch_ms(_whole_number(criterion), SEARCH_CRITERION.said_as(criterion.key))
    return _numeric_test(Task.next_earliest_work_at, criterion.condition, moment)


def _text_column(column) -> Callable[[Scope, Criterion], ColumnElement[bool]]:
    def test(_scope: Scope, criterion: Criterion) -> ColumnElement[bool]:
        return text_test(column, criterion.condition, criterion.value, criterion.ignore_case)

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
