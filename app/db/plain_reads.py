"""Reads every API request sends, run on the driver: built once with SQLAlchemy, executed
without the engine's per-statement machinery.

Executing a Core statement through the session costs some 50 µs of Python each time
(cache key, execution context, result object) for a read that takes a few µs in the
database; the key check, the task of a search and its items and work codes are sent by
almost every request. A `PlainRead` is compiled once per dialect, and each run hands the
driver the SQL and its parameters (through the column types' bind processors) on the
session's own connection, in its transaction (`session_connection`), and reads back plain
rows (through the types' result processors), so the values are exactly those
`session.execute` returns.
The engine's `before_cursor_execute` listeners still hear each statement. `on_driver` does
the same for a statement given as SQL: SQLite's BEGIN of every transaction and the rows of
`bulk_insert` (app/db/transactions.py).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import Insert, Select, event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session


class _Compiled:
    """One statement's SQL, parameter order and processors for one dialect."""

    def __init__(self, statement: Select, dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        if compiled.literal_execute_params or compiled.post_compile_params:
            raise ValueError("a PlainRead takes plain bound parameters only")
        self.sql = compiled.string
        self.positions = tuple(compiled.positiontup) if compiled.positional else None
        self.binds: dict[str, Callable[[Any], Any]] = {}
        for name, bind in compiled.binds.items():
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                self.binds[name] = processor
        columns = statement.exported_columns  # a SELECT's columns, an INSERT's RETURNING
        self.results = [
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns
        ]
        self.row = namedtuple("Row", [column.key for column in columns], rename=True)
        self.plain = not any(self.results)

    def parameters(self, values: Mapping[str, Any]) -> Any:
        binds = self.binds
        if self.positions is not None:
            return tuple(
                binds[name](values[name]) if name in binds else values[name]
                for name in self.positions
            )
        return {name: binds[name](value) if name in binds else value
                for name, value in values.items()}  # fmt: skip

    def rows(self, fetched: list[tuple]) -> list[tuple]:
        make = self.row._make
        if self.plain:
            return [make(row) for row in fetched]
        processors = self.results
        return [
            make([v if p is None else p(v) for p, v in zip(processors, row, strict=True)])
            for row in fetched
        ]


class PlainRead:
    """A SELECT (or an INSERT … RETURNING of bound values) run on the session's connection
    by the driver: `all` gives its rows (named tuples), `first` the first or None."""

    def __init__(self, statement: Select | Insert) -> None:
        self.statement = statement
        self._by_dialect: dict[str, _Compiled] = {}

    def all(self, session, **values: Any) -> list[tuple]:
        connection = session_connection(session)
        dialect = connection.dialect
        compiled = self._by_dialect.get(dialect.name)
        if compiled is None:
            compiled = self._by_dialect[dialect.name] = _Compiled(self.statement, dialect)
        return compiled.rows(on_driver(connection, compiled.sql, compiled.parameters(values)))

    def first(self, session, **values: Any) -> tuple | None:
        rows = self.all(session, **values)
        return rows[0] if rows else None


# The Connection of a session's transaction in progress, kept in the session's info from
# the transaction's begin to its end: asking the session for it walks its transaction's
# state machine each time, some 30 µs, and a request asks up to a dozen times. The app's
# sessions have one bind (one database), so one connection per transaction.
_CONNECTION = "transaction_connection"


def session_connection(session):
    """What `session.connection()` gives (the session's transaction begun if need be),
    without the session's bookkeeping when its transaction has a connection already."""
    connection = session.info.get(_CONNECTION)
    return connection if connection is not None else session.connection()


@event.listens_for(Session, "after_begin")
def _remember(session, _transaction, connection) -> None:
    session.info[_CONNECTION] = connection


@event.listens_for(Session, "after_transaction_end")
def _forget(session, transaction) -> None:
    if transaction.parent is None:  # a savepoint's end leaves its transaction's connection
        session.info.pop(_CONNECTION, None)


def on_driver(connection, sql: str, parameters: Any = (), many: bool = False) -> list[tuple]:
    """Run `sql` on the driver of `connection` (a SQLAlchemy Connection), in its transaction,
    once or (`many`) for each of a list of parameter sets: the rows it returns, as the
    driver gives them. The engine's `before_cursor_execute` listeners hear it; a driver
    error is raised as the engine raises it."""
    dialect = connection.dialect
    cursor = connection.connection.driver_connection.cursor()
    try:
        listeners = connection.engine.dispatch.before_cursor_execute
        if listeners:
            listeners(connection, cursor, sql, parameters, None, many)
        if many:
            cursor.executemany(sql, parameters)
            return []
        cursor.execute(sql, parameters)
        return cursor.fetchall() if cursor.description else []
    except dialect.loaded_dbapi.Error as error:
        raise DBAPIError.instance(sql, parameters, error, dialect.loaded_dbapi.Error) from error
    finally:
        cursor.close()
