"""Engine set-up that both databases need: SQLite pragmas and write-locking transactions.

SQLite in WAL mode lets readers run beside one writer. A transaction that starts as a
reader and later writes can fail at once with SQLITE_BUSY when another process wrote in
between, without waiting on the busy timeout. So every transaction that may write starts
with BEGIN IMMEDIATE, which queues on the write lock instead; requests marked read-only
(GET pages, searches) start a plain deferred BEGIN and never block writers; a GET page
that writes says so (`writes`). A request that reads before it writes (`reads_first`: who
calls, what it names, whether it is valid) begins as a reader too, and takes the write
lock when it is ready to write (`take_write_lock`), so no other writer waits on its checks.
The app's writers queue for that lock in turns of their own, and its connections leave
checkpoints to a thread (app/sqlite_writes.py).
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from flask import Flask, g, has_app_context, request
from sqlalchemy import event
from sqlalchemy.dialects.sqlite.base import SQLiteCompiler
from sqlalchemy.engine import Engine
from sqlalchemy.orm import scoped_session

from app.pg_connections import check_at_checkout
from app.plain_reads import on_driver, session_connection
from app.sqlite_writes import WriteTurns

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def read_only(view):
    """Mark a view whose transaction never writes: it takes no write lock on SQLite, and on
    PostgreSQL its statements run without a transaction block (`autocommit_reads`)."""
    view.read_only = True
    view.never_writes = True
    return view


def writes(view):
    """Mark a GET view whose transaction writes: it starts with the write lock on SQLite,
    or a write after another request's would fail at once with "database is locked"."""
    view.read_only = False
    view.never_writes = False
    return view


def reads_first(view):
    """Mark a view that checks before it writes: its transaction begins as a reader (no
    write lock on SQLite) and takes the write lock when the service is ready to write, by
    `take_write_lock`; every write of such a view must come after that call."""
    view.read_only = True  # begins as a reader's
    view.never_writes = False
    return view


# Per SQLite connection (its pool record's info): whether the transaction in progress began
# with the write lock, and SQLite's count of changed rows when it began.
_WRITING = "sqlite_writing"
_CHANGES = "sqlite_changes"


def take_write_lock(session) -> None:
    """From here on the session's transaction writes.

    On SQLite a transaction begun as a reader ends its reads and begins again with BEGIN
    IMMEDIATE, queueing on the write lock: whatever it will change must be read after this
    call (objects read before stay as they were read). Upgrading in place instead would
    fail at once with SQLITE_BUSY whenever another request wrote since the reads began.
    Nothing to do when the transaction has the lock already, nor on PostgreSQL, whose row
    locks (SELECT … FOR UPDATE) serve.
    """
    if has_app_context():
        g.read_only_transaction = False  # the request's later transactions write too
    if isinstance(session, scoped_session):
        session = session()
    if not session.in_transaction():
        return
    connection = session_connection(session)
    if connection.dialect.name != "sqlite" or connection.info.get(_WRITING, True):
        return
    if connection.connection.driver_connection.total_changes != connection.info[_CHANGES]:
        raise RuntimeError("a transaction begun as a reader wrote before take_write_lock")
    on_driver(connection, "ROLLBACK")
    _TURNS[connection.engine].take(connection.connection.dbapi_connection)
    on_driver(connection, "BEGIN IMMEDIATE")
    connection.info[_WRITING] = True


_TURNS: weakref.WeakKeyDictionary[Engine, WriteTurns] = weakref.WeakKeyDictionary()


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


def _sqlite_file(engine: Engine) -> Path | None:
    database = engine.url.database
    if database and database != ":memory:" and not engine.url.query.get("uri"):
        return Path(database)
    return None


def _private_sqlite_file(engine: Engine) -> None:
    """The database file is made 0600 before SQLite first opens it (SQLite gives its -wal
    and -shm files the database file's mode)."""
    path = _sqlite_file(engine)
    if path is not None and path.parent.is_dir():  # else SQLite refuses to open it
        private_file(path)


def _is_read_only() -> bool:
    return has_app_context() and bool(g.get("read_only_transaction"))


class _HintingSQLiteCompiler(SQLiteCompiler):
    """SQLite's compiler, rendering a table hint of `Select.with_hint(…, "sqlite")` after the
    table's name: `FROM tasks INDEXED BY ix_…`, for the few queries whose index SQLite's
    planner cannot be trusted to pick from the statistics."""

    def get_from_hint_text(self, table, text):
        return text


def tune_sqlite(
    engine: Engine, busy_timeout_ms: int, cache_kib: int = 65536, mmap_mib: int = 1024
) -> None:
    """Set WAL, the busy timeout, foreign keys, the page cache and memory-mapped reads, and
    case-sensitive LIKE on every connection; table hints are rendered."""
    engine.dialect.statement_compiler = _HintingSQLiteCompiler
    path = _sqlite_file(engine)
    if path is not None and not path.parent.is_dir():
        path = None  # SQLite refuses to open it, as it always did
    turns = _TURNS[engine] = WriteTurns(path, busy_timeout_ms / 1000)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record) -> None:
        # pysqlite's own BEGIN handling is replaced by the "begin" hook below.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        if path is not None:  # checkpoints beside the writers, not in a commit: WriteTurns
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        # Index pages of a large campaign stay in memory during bulk loads and searches.
        cursor.execute(f"PRAGMA cache_size=-{int(cache_kib)}")
        # Pages read through a mapping of the file: shared by every connection and process
        # through the kernel's cache, instead of each connection copying what it reads into
        # its own cache (which then holds the pages it writes).
        cursor.execute(f"PRAGMA mmap_size={int(mmap_mib) * 1024 * 1024}")
        # CONTAINS and BEGINSWITH are case-sensitive, as they are on PostgreSQL.
        cursor.execute("PRAGMA case_sensitive_like=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:
        writing = not _is_read_only()
        if writing:
            turns.take(connection.connection.dbapi_connection)
        on_driver(connection, "BEGIN IMMEDIATE" if writing else "BEGIN")
        connection.info[_WRITING] = writing
        connection.info[_CHANGES] = connection.connection.driver_connection.total_changes

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_connection, _record) -> None:
        turns.end(dbapi_connection)

    @event.listens_for(engine, "invalidate")
    def _on_invalidate(dbapi_connection, _record, _exception) -> None:
        turns.end(dbapi_connection)


def register_storage(app: Flask, db) -> None:
    """Tune every SQLite engine of the app, check every PostgreSQL engine's pooled
    connections at checkout, and mark each request's transaction mode."""
    with app.app_context():
        for engine in db.engines.values():
            if engine.dialect.name == "postgresql":
                check_at_checkout(engine, app.config["DB_PING_IDLE_SECONDS"])
            if engine.dialect.name == "sqlite":
                _private_sqlite_file(engine)
                tune_sqlite(
                    engine,
                    app.config["SQLITE_BUSY_TIMEOUT_MS"],
                    app.config["SQLITE_CACHE_KIB"],
                    app.config["SQLITE_MMAP_MIB"],
                )
        reads_in_autocommit = db.engine.dialect.name == "postgresql"

    @app.before_request
    def _mark_transaction_mode() -> None:
        view = app.view_functions.get(request.endpoint or "")
        g.read_only_transaction = getattr(view, "read_only", request.method in SAFE_METHODS)
        # Acted on once the request's body is in (`autocommit_reads`).
        g.autocommit_reads_due = reads_in_autocommit and getattr(view, "never_writes", False)

    @app.teardown_request
    def _end_autocommit_reads(_error) -> None:
        # The connection goes back to the pool with the request: a session that outlives
        # it (a test's) must not carry it into a later request's writes.
        if g.pop("autocommit_reads", False):
            db.session.rollback()


def autocommit_reads(session) -> None:
    """The request's database work begins (its body is read). A request that never writes
    (`read_only`) takes its connection now, on PostgreSQL, for reads without a transaction
    block: no BEGIN before them, no ROLLBACK after, two round trips fewer. At READ
    COMMITTED, the service's level, each statement reads its own snapshot inside a block as
    well, so the answers are the same; the connection goes back to the pool with its
    isolation level restored. SQLite keeps its deferred BEGIN, whose one snapshot is what
    keeps a task and its items read together. A session already in a transaction (a
    test's, across its requests) stays in it."""
    if g.pop("autocommit_reads_due", False) and not session.in_transaction():
        session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        g.autocommit_reads = True


def driver_value(session, column):
    """How this database's driver is handed a value of `column` (e.g. a UTC time is a string
    on SQLite), for rows that go straight to `bulk_insert`."""
    dialect = session_connection(session).dialect
    processor = column.type.dialect_impl(dialect).bind_processor(dialect)
    return processor or (lambda value: value)


# SQLite: rows per INSERT of bulk_insert, within the 999 parameters any SQLite build takes.
ROWS_PER_INSERT = 100
_SQLITE_PARAMETERS = 999
# PostgreSQL: from this many rows on, psycopg's executemany (a pipeline of one prepared
# statement) costs less per row than INSERTs of many rows; below, one INSERT of them all
# costs less than the pipeline. Measured with audit-sized rows: 3 rows, 22 against 34 µs
# of CPU a row; 10 rows, 18 against 16; 500 rows, 15 against 9.
PIPELINED_FROM = 6


def bulk_insert(session, table, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Rows straight to the driver: plain tuples skip the per-row work of SQLAlchemy's
    parameter handling, which matters when rows come by the thousand.

    On SQLite, INSERTs of up to ROWS_PER_INSERT rows each: a statement per row costs its
    own start and end, which the full-text triggers of the task items make several times
    dearer than the row itself. On PostgreSQL, one INSERT of a few rows (a task's items,
    a request's audit record and event), or one executemany of many (an intake batch).
    """
    if not rows:
        return
    connection = session_connection(session)
    names = ", ".join(columns)
    sqlite = connection.dialect.paramstyle == "qmark"
    row_marks = f"({', '.join(['?' if sqlite else '%s'] * len(columns))})"
    if not sqlite and len(rows) >= PIPELINED_FROM:
        sql = f"INSERT INTO {table.name} ({names}) VALUES {row_marks}"  # noqa: S608 - our names
        on_driver(connection, sql, rows, many=True)
        return
    per_insert = max(1, min(ROWS_PER_INSERT, _SQLITE_PARAMETERS // len(columns)))
    for start in range(0, len(rows), per_insert):
        chunk = rows[start : start + per_insert]
        values = ", ".join([row_marks] * len(chunk))
        sql = f"INSERT INTO {table.name} ({names}) VALUES {values}"  # noqa: S608 - our names
        on_driver(connection, sql, tuple(value for row in chunk for value in row))
