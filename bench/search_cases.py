"""The search benchmark's cases: each condition, and the hand-written SQL asking the same.

A Case holds the criteria the service is given and the hand-written variants of the same
question (`:c` is the campaign, `:first`/`:last` its task id range), each a plain statement
a person would write with the same indexes at hand: by the items' index, joined, walking the
tasks with a probe, scanning the key's items in task order, or SQLite's trigram table.
bench/search.py times both sides and checks they find the same tasks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.services.search.criteria import Condition, Criterion

LIMIT = 1000
COLUMNS = "t.*, q.name AS queue"
TASK = "JOIN tasks t ON t.id = i.task_id JOIN skill_queues q ON q.id = t.skill_queue_id"
FTS_ITEM = "JOIN task_items i ON i.task_id = f.rowid >> 16 AND i.position = f.rowid & 65535"


@dataclass(frozen=True)
class Case:
    label: str
    criteria: tuple[tuple[str, str, str], ...]
    hand: tuple[str, ...]  # SQL variants; :c is the campaign, :first/:last its task id range

    def service_criteria(self) -> list[Criterion]:
        return [Criterion(k, Condition(c), v) for k, c, v in self.criteria]


def _in(items: str) -> str:
    return (
        f"SELECT {COLUMNS} FROM tasks t JOIN skill_queues q ON q.id = t.skill_queue_id "
        f"WHERE t.campaign_id = :c AND t.id IN ({items}) ORDER BY t.id LIMIT {LIMIT}"
    )


def _joined(items_where: str, order: str = "i.task_id") -> str:
    return (
        f"SELECT {COLUMNS} FROM task_items i {TASK} WHERE i.campaign_id = :c AND {items_where} "
        f"ORDER BY {order} LIMIT {LIMIT}"
    )


def _walk(probe: str, extra: str = "") -> str:
    return (
        f"SELECT {COLUMNS} FROM tasks t JOIN skill_queues q ON q.id = t.skill_queue_id "
        f"WHERE t.campaign_id = :c {extra} AND {probe} ORDER BY t.id LIMIT {LIMIT}"
    )


def _scan(where: str, sqlite: bool) -> str:
    """The key's items in their stored order (task_id, position) over the campaign's id
    range, each task then read by its id. `where` names the items' columns as `i.…`; on
    SQLite the unary + keeps the other indexes out (PostgreSQL has no + for text)."""
    where = f"i.campaign_id = :c AND {where}"
    if sqlite:
        where = re.sub(r"\bi\.(campaign_id|key|value|number)\b", r"+i.\1", where)
    join = "t.id = +i.task_id" if sqlite else "t.id = i.task_id"
    return (
        f"SELECT {COLUMNS} FROM task_items i JOIN tasks t ON {join} "
        f"JOIN skill_queues q ON q.id = t.skill_queue_id WHERE i.task_id BETWEEN :first "
        f"AND :last AND {where} ORDER BY i.task_id LIMIT {LIMIT}"
    )


def _exists(where: str) -> str:
    return f"EXISTS (SELECT 1 FROM task_items i WHERE i.task_id = t.id AND {where})"


def _items(where: str) -> str:
    return f"SELECT task_id FROM task_items WHERE campaign_id = :c AND {where}"


def _fts(match: str, where: str) -> str:
    """SQLite's trigram table, as a person would use it (the rowid encodes the item)."""
    return (
        f"SELECT {COLUMNS} FROM task_items_fts f {FTS_ITEM} {TASK} "
        f"WHERE task_items_fts MATCH '{match}' AND f.rowid BETWEEN :first * 65536 "
        f"AND :last * 65536 + 65535 AND i.campaign_id = :c AND {where} "
        f"ORDER BY f.rowid LIMIT {LIMIT}"
    )


def _trigrams(value: str) -> str:
    grams = sorted({value[n : n + 3] for n in range(len(value) - 2)})
    return " AND ".join(f'"{gram}"' for gram in grams)


def _equal(key: str, value: str, sqlite: bool) -> tuple[str, ...]:
    where = f"key = '{key}' AND value = '{value}'"
    return (
        _in(_items(where)),
        _joined(f"i.key = '{key}' AND i.value = '{value}' AND i.number IS NULL"),
        _walk(_exists(where)),
        _scan(f"i.key = '{key}' AND i.value = '{value}'", sqlite),
    )


def _compare(key: str, sign: str, number: int, sqlite: bool) -> tuple[str, ...]:
    numeric, textual = f"number {sign} {number}", f"number IS NULL AND value {sign} '{number}'"
    key_is = f"key = '{key}'"
    item = f"i.key = '{key}' AND (i.{numeric} OR (i.number IS NULL AND i.value {sign} '{number}'))"
    return (
        _in(f"{_items(f'{key_is} AND {numeric}')} UNION ALL {_items(f'{key_is} AND {textual}')}"),
        _walk(_exists(f"{key_is} AND ({numeric} OR ({textual}))")),
        _joined(item),
        _scan(item, sqlite),
    )


def _text(key: str, like: str, value: str, prefix: bool, sqlite: bool) -> tuple[str, ...]:
    where = f"key = '{key}' AND value LIKE '{like}'"
    variants = [
        _in(_items(where)),
        _walk(_exists(where)),
        _scan(f"i.key = '{key}' AND i.value LIKE '{like}'", sqlite),
        # every item of the key in the campaign tested: `|| ''` hides the trigram index
        _in(_items(f"key = '{key}' AND (value || '') LIKE '{like}'")),
    ]
    if prefix:  # the b-tree range of the prefix
        after = value[:-1] + chr(ord(value[-1]) + 1)
        variants.append(_in(_items(f"{where} AND value >= '{value}' AND value < '{after}'")))
    if sqlite:
        variants.append(_fts(_trigrams(value), f"i.key = '{key}' AND i.value LIKE '{like}'"))
    return tuple(variants)


def cases(sqlite: bool) -> list[Case]:
    state = "t.worked_state = 'WORKED'"
    return [
        Case(
            "EQUALS, 1 match",
            (("Name", "EQUALS", "Customer 4242"),),
            _equal("Name", "Customer 4242", sqlite),
        ),
        Case("EQUALS, 20% match", (("City", "EQUALS", "Oslo"),), _equal("City", "Oslo", sqlite)),
        Case(
            "NOTEQUALS, 75% match",
            (("Plan", "NOTEQUALS", "Basic"),),
            (_walk("NOT " + _exists("key = 'Plan' AND value = 'Basic'")),),
        ),
        Case(
            "GREATERTHAN, 10 matches",
            (("Balance", "GREATERTHAN", "9500"),),
            _compare("Balance", ">", 9500, sqlite),
        ),
        Case(
            "LESSTHAN, 10 matches",
            (("Balance", "LESSTHAN", "10"),),
            _compare("Balance", "<", 10, sqlite),
        ),
        Case(
            "GREATERTHAN, 10% match",
            (("Score", "GREATERTHAN", "899"),),
            _compare("Score", ">", 899, sqlite),
        ),
        Case(
            "CONTAINS, 1 match",
            (("Notes", "CONTAINS", "account 4242 "),),
            _text("Notes", "%account 4242 %", "account 4242 ", False, sqlite),
        ),
        Case(
            "CONTAINS, 11% match",
            (("Name", "CONTAINS", "mer 1"),),
            _text("Name", "%mer 1%", "mer 1", False, sqlite),
        ),
        Case(
            "BEGINSWITH, 10 matches",
            (("Phone", "BEGINSWITH", "+1415000420"),),
            _text("Phone", "+1415000420%", "+1415000420", True, sqlite),
        ),
        Case(
            "BEGINSWITH, 11% match",
            (("Name", "BEGINSWITH", "Customer 1"),),
            _text("Name", "Customer 1%", "Customer 1", True, sqlite),
        ),
        Case(
            "sys_worked_state + EQUALS",
            (("sys_worked_state", "EQUALS", "WORKED"), ("Plan", "EQUALS", "Gold")),
            (
                _joined(f"i.key = 'Plan' AND i.value = 'Gold' AND i.number IS NULL AND {state}"),
                _walk(_exists("key = 'Plan' AND value = 'Gold'"), f"AND {state}"),
                _in(_items("key = 'Plan' AND value = 'Gold'")).replace(
                    "WHERE", f"WHERE {state} AND", 1
                ),
            ),
        ),
        Case(
            "sys_worked_attempts GREATERTHAN",
            (("sys_worked_attempts", "GREATERTHAN", "2"),),
            (_walk("t.work_attempts > 2"),),
        ),
    ]
