"""The rows of an export, read by cursors that move in step.

Three selects, each ordered by task id: the matching tasks, their items (by position) and
their work codes (by position). Each is read as plain rows through a server-side cursor a
chunk at a time (psycopg's named cursor on PostgreSQL; SQLite's cursor steps through its
rows as they are fetched), and the items and codes are merged into their task as the task
cursor passes it. No ORM object is built and nothing is held beyond one chunk, so a million
tasks export in flat memory.

The header's keys and the three cursors read in one transaction of their own (`snapshot`),
not the caller's: a download streams on after its request's transaction has ended, all of
it sees the campaign as it was at one moment, and on SQLite it never blocks a writer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from uuid import uuid4

from sqlalchemy import ColumnElement, Connection, Dialect, Select, func, select
from sqlalchemy.orm import aliased

from app.db.transactions import transaction_mode
from app.extensions import db
from app.models import SkillQueue, Task, TaskItem, WorkCode
from app.wire.times import format_time


@dataclass(frozen=True)
class ExportedCampaign:
    """What the export needs of its campaign, read before the stream begins."""

    id: int
    client_id_field_name: str
    everything: bool  # no criteria: every task of the campaign


# The items and codes of the select's tasks, under names of their own: a criterion's probe
# of task_items (search) correlates with `tasks` alone, never with these.
_item = aliased(TaskItem, name="export_item")
_code = aliased(WorkCode, name="export_code")


@contextmanager
def snapshot() -> Iterator[Connection]:
    """A connection of its own in a read-only transaction, rolled back on exit: on
    PostgreSQL a repeatable read (one snapshot for every statement), on SQLite a deferred
    BEGIN (see app.db.transactions), which never takes the write lock."""
    with transaction_mode(read_only=True):
        connection = db.engine.connect()
        if connection.dialect.name == "postgresql":
            connection.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
        transaction = connection.begin()
    try:
        yield connection
    finally:
        transaction.rollback()
        connection.close()


def data_keys(
    connection: Connection, campaign: ExportedCampaign, matching: ColumnElement[bool]
) -> list[str]:
    """The data keys of the matching tasks, in the order they first appear, clientId's aside.

    Every task of the campaign (no criteria): its items are the campaign's items, which
    the (campaign, key, value) index lists key by key.
    """
    query = select(_item.key, func.min(_item.position))
    if campaign.everything:
        query = query.where(_item.campaign_id == campaign.id)
    else:
        query = query.join_from(Task, _item, _item.task_id == Task.id).where(matching)
    rows = connection.execute(
        query.where(_item.key != campaign.client_id_field_name)
        .group_by(_item.key)
        .order_by(func.min(_item.position), _item.key)
    )
    return [key for key, _ in rows]


def _tasks(matching: ColumnElement[bool]) -> Select:
    return (
        select(
            Task.id,
            Task.client_id,
            Task.record_id,
            Task.worked_state,
            Task.work_attempts,
            Task.last_attempt_agent,
            Task.last_attempt_at,
            Task.next_earliest_work_at,
            SkillQueue.name,
            Task.preferred_agent,
        )
        .join(SkillQueue, SkillQueue.id == Task.skill_queue_id)
        .where(matching)
        .order_by(Task.id)
    )


def _attached(matching: ColumnElement[bool], part) -> Select:
    """Task id, key and value of the matching tasks' items (or codes), in task id order."""
    return (
        select(part.task_id, part.key, part.value)
        .join_from(Task, part, part.task_id == Task.id)
        .where(matching)
        .order_by(Task.id, part.position)
    )


# How SQLAlchemy stores a time on SQLite (other text is read as SQLAlchemy reads it).
_SQLITE_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}")


TimeText = Callable[[object], str]


def time_text(dialect: Dialect) -> TimeText:
    """The export's text of a stored time (the wire's `format_time`), from the driver's
    value."""
    load = Task.last_attempt_at.type.dialect_impl(dialect).result_processor(dialect, None)

    def text(value) -> str:
        if value is None:
            return ""
        if type(value) is str and _SQLITE_TIME.fullmatch(value):
            return value[:23]  # SQLite's text of it, cut to milliseconds: format_time's
        return format_time(load(value) if load else value)

    return text


def _cursor(connection: Connection, query: Select, name: str, fetch: int):
    """A driver cursor running the query, which hands out its rows as plain tuples.

    SQLAlchemy compiles the query and converts its parameters as it would itself; the
    rows skip its Row objects and result conversions, a third of the export's time.
    PostgreSQL's is a named (server-side) cursor, fetching `fetch` rows at a time; SQLite's
    steps through its rows as they are taken.
    """
    state = query.compile(dialect=connection.dialect).construct_expanded_state()
    processors = state.processors
    values = {
        key: processors[key](value) if processors.get(key) else value
        for key, value in state.parameters.items()
    }
    order = state.positiontup  # SQLite's parameters are positional, psycopg's named
    parameters = tuple(values[key] for key in order) if order else values
    driver = connection.connection.driver_connection
    if connection.dialect.name == "postgresql":
        cursor = driver.cursor(name=f"{name}_{uuid4().hex[:12]}")
        cursor.itersize = fetch
    else:
        cursor = driver.cursor()
    cursor.execute(state.statement, parameters)
    return cursor


def task_rows(
    connection: Connection, matching: ColumnElement[bool], fetch: int
) -> Iterator[tuple[tuple, dict[str, str], str]]:
    """The matching tasks one at a time, by id: (task row, values by key, work codes as
    `group=code|group=code`). The task row's times are the driver's (see time_text).

    Nothing is kept beyond the task at hand, as in a plain loop over the cursors: holding
    a thousand tasks' rows at once would set Python's garbage collector going over and over.
    """
    cursors = [
        _cursor(connection, _tasks(matching), "export_tasks", fetch),
        _cursor(connection, _attached(matching, _item), "export_items", fetch),
        _cursor(connection, _attached(matching, _code), "export_codes", fetch),
    ]
    try:
        tasks, items, codes = (iter(cursor) for cursor in cursors)
        item, code = next(items, None), next(codes, None)
        for task in tasks:
            task_id = task[0]
            # Rows of a task not among the tasks (none, from one snapshot) are passed over.
            while item is not None and item[0] < task_id:
                item = next(items, None)
            values = {}
            while item is not None and item[0] == task_id:
                values[item[1]] = item[2]  # a key given twice: the later item, as always
                item = next(items, None)
            while code is not None and code[0] < task_id:
                code = next(codes, None)
            work_codes = []
            while code is not None and code[0] == task_id:
                work_codes.append(f"{code[1]}={code[2]}")
                code = next(codes, None)
            yield task, values, "|".join(work_codes)
    finally:
        for cursor in cursors:
            cursor.close()
