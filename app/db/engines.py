"""The app's database engines: SQLite's pragmas, its BEGIN and write turns, its file's mode;
PostgreSQL's pooled connections checked at checkout.

Every transaction that may write begins on SQLite with BEGIN IMMEDIATE (the protocol is in
app/db/transactions.py); the app's writers queue for that lock in turns of their own, and
its connections leave checkpoints to a thread (app/db/sqlite_writes.py).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from flask import Flask
from sqlalchemy import event
from sqlalchemy.dialects.sqlite.base import SQLiteCompiler
from sqlalchemy.engine import Engine

from app.db.pg_connections import check_at_checkout
from app.db.plain_reads import on_driver
from app.db.private_files import private_file
from app.db.sqlite_writes import start_write_turns
from app.db.transactions import CHANGES, WRITING, begins_read_only, register_request_modes


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
    turns = start_write_turns(engine, path, busy_timeout_ms / 1000)

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
        writing = not begins_read_only()
        if writing:
            turns.take(connection.connection.dbapi_connection)
        on_driver(connection, "BEGIN IMMEDIATE" if writing else "BEGIN")
        connection.info[WRITING] = writing
        connection.info[CHANGES] = connection.connection.driver_connection.total_changes

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_connection, _record) -> None:
        turns.end(dbapi_connection)

    @event.listens_for(engine, "invalidate")
    def _on_invalidate(dbapi_connection, _record, _exception) -> None:
        turns.end(dbapi_connection)


def register_database(app: Flask, db) -> None:
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
    register_request_modes(app, db, autocommit_reads_on=reads_in_autocommit)
