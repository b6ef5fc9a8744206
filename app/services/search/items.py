"""A criterion on a data item, as the Finder that search/plan.py reads it by.

A Finder tests a task (a probe of its items by the task's id) and names the index reads
that find its matching tasks: the (campaign_id, key, value) index, the numeric values'
(campaign_id, key, number) index, the text values' index, the trigram index
(app/models/search_index.py). Numbers compare as numbers when both sides are numbers.
"""

from __future__ import annotations

from functools import partial

from sqlalchemy import ColumnElement, Select, and_, or_, select

from app.models import Task, TaskItem
from app.services.search import trigrams as search_trigrams
from app.services.search.criteria import Condition, Criterion, text_test
from app.services.search.plan import FOLLOWED, Finder, Scope
from app.services.values import parse_number


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


def item_finder(scope: Scope, criterion: Criterion) -> Finder:
    """A criterion on a data item: numbers compare as numbers when both sides are numbers."""
    key, condition, value = criterion.key, criterion.condition, criterion.value
    number = parse_number(value)
    if criterion.ignore_case and not (
        condition in (Condition.GREATERTHAN, Condition.LESSTHAN) and number is not None
    ):
        return _ignoring_case(scope, key, condition, value)
    if condition in (Condition.GREATERTHAN, Condition.LESSTHAN) and number is not None:
        above = condition is Condition.GREATERTHAN

        def numeric(item):
            return item.number > number if above else item.number < number

        def textual(item):  # a text value compares as text, as it always did
            return and_(item.number.is_(None), text_test(item.value, condition, value))

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
        passes = partial(text_test, condition=condition, value=value)
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


def _ignoring_case(scope: Scope, key: str, condition: Condition, value: str) -> Finder:
    """A criterion whose letters match in either case: lower(value) is in no index, so the
    plan walks the campaign's tasks in order, testing each, until it has a page (bounded,
    as a CONTAINS that no index finds)."""
    if condition is Condition.NOTEQUALS:
        return Finder(
            test=~_has(
                scope, key, lambda item: text_test(item.value, Condition.EQUALS, value, True)
            )
        )

    def passes(item):
        return text_test(item.value, condition, value, True)

    return Finder(_has(scope, key, passes), item=(key, passes))


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
