"""Engine set-up that both databases need: SQLite pragmas and write-locking transactions.

SQLite in WAL mode lets readers run beside one writer. A transaction that starts as a
reader and later writes can fail at once with SQLITE_BUSY when another process wrote in
between, without waiting on the busy timeout. So every transaction that may write starts
with BEGIN IMMEDIATE, which queues on the write lock instead; requests marked read-only
(GET pages, searches) start a plain deferred BEGIN and never block writers; a GET page
that writes says so (`writes`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from flask import Flask, g, has_app_context, request
from sqlalchemy import event
from sqlalchemy.engine import Engine

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def read_only(view):
    """Mark a view whose transaction never writes (it then takes no write lock on SQLite)."""
    view.read_only = True
    return view


def writes(view):
    """Mark a GET view whose transaction writes: it starts with the write lock on SQLite,
    or a write after another request's would fail at once with "database is locked"."""
    view.read_only = False
    return view


@contextmanager
def reading(session) -> Iterator[None]:
    """Run reads outside a request without the write lock: background checks, exports."""
    session.rollback()
    before = g.get("read_only_transaction", False)
    g.read_only_transaction = True
    try:
        yield
    finally:
        session.rollback()
        g.read_only_transaction = before


def private_file(path: Path) -> Path:
    """Create `path` empty with mode 0600 unless it exists; whatever later opens it for
    writing keeps that mode, so no other account of the machine can read it."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    return path


def _private_sqlite_file(engine: Engine) -> None:
    """The database file is made 0600 before SQLite first opens it (SQLite gives its -wal
    and -shm files the database file's mode)."""
    database = engine.url.database
    if database and database != ":memory:" and not engine.url.query.get("uri"):
        path = Path(database)
        if path.parent.is_dir():  # else SQLite refuses to open it, as it always did
            private_file(path)


def _is_read_only() -> bool:
    return has_app_context() and bool(g.get("read_only_transaction"))


def tune_sqlite(engine: Engine, busy_timeout_ms: int, cache_kib: int = 65536) -> None:
    """Set WAL, the busy timeout, foreign keys and case-sensitive LIKE on every connection."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record) -> None:
        # pysqlite's own BEGIN handling is replaced by the "begin" hook below.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        # Index pages of a large campaign stay in memory during bulk loads and searches.
        cursor.execute(f"PRAGMA cache_size=-{int(cache_kib)}")
        # CONTAINS and BEGINSWITH are case-sensitive, as they are on PostgreSQL.
        cursor.execute("PRAGMA case_sensitive_like=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:
        connection.exec_driver_sql("BEGIN" if _is_read_only() else "BEGIN IMMEDIATE")


def register_storage(app: Flask, db) -> None:
    """Tune every SQLite engine of the app and mark each request's transaction mode."""
    with app.app_context():
        for engine in db.engines.values():
            if engine.dialect.name == "sqlite":
                _private_sqlite_file(engine)
                tune_sqlite(
                    engine, app.config["SQLITE_BUSY_TIMEOUT_MS"], app.config["SQLITE_CACHE_KIB"]
                )

    @app.before_request
    def _mark_transaction_mode() -> None:
        view = app.view_functions.get(request.endpoint or "")
        g.read_only_transaction = getattr(view, "read_only", request.method in SAFE_METHODS)


def driver_value(session, column):
    """How this database's driver is handed a value of `column` (e.g. a UTC time is a string
    on SQLite), for rows that go straight to `bulk_insert`."""
    dialect = session.connection().dialect
    processor = column.type.dialect_impl(dialect).bind_processor(dialect)
    return processor or (lambda value: value)


def bulk_insert(session, table, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Rows straight to the driver's executemany: plain tuples skip the per-row work of
    SQLAlchemy's parameter handling, which matters when rows come by the thousand."""
    if not rows:
        return
    connection = session.connection()
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    names, marks = ", ".join(columns), ", ".join([mark] * len(columns))
    sql = f"INSERT INTO {table.name} ({names}) VALUES ({marks})"  # noqa: S608 - names are ours
    connection.exec_driver_sql(sql, rows)
