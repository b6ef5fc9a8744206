"""Transactions and the write-lock protocol, in one place.

SQLite in WAL mode lets readers run beside one writer. A transaction that starts as a
reader and later writes can fail at once with SQLITE_BUSY when another process wrote in
between, without waiting on the busy timeout. So every transaction that may write starts
with BEGIN IMMEDIATE, which queues on the write lock instead; requests marked read-only
(GET pages, searches) start a plain deferred BEGIN and never block writers; a GET page
that writes says so (`writes`). A request that reads before it writes (`reads_first`: who
calls, what it names, whether it is valid) begins as a reader too, and takes the write
lock when it is ready to write (`take_write_lock`), so no other writer waits on its checks.

A request's mode comes from its view (`read_only`, `writes`, `reads_first`, or its method);
work outside a request says its mode with `transaction(session, read_only=...)`, and a
connection of its own with `transaction_mode(read_only=...)`. The BEGIN hook of the engine
(app/db/engines.py) reads the mode through `begins_read_only`; nothing else sets or reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from flask import Flask, g, has_app_context, request
from sqlalchemy.orm import scoped_session

from app.db.plain_reads import on_driver, session_connection
from app.db.sqlite_writes import write_turns

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

T = TypeVar("T")
E = TypeVar("E", bound=Exception)


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
WRITING = "sqlite_writing"
CHANGES = "sqlite_changes"


def begins_read_only() -> bool:
    """Whether a transaction beginning now begins as a reader (no write lock on SQLite)."""
    return has_app_context() and bool(g.get("read_only_transaction"))


@contextmanager
def transaction_mode(*, read_only: bool) -> Iterator[None]:
    """Transactions begun inside begin in this mode; the mode before comes back on exit."""
    before = g.get("read_only_transaction", False)
    g.read_only_transaction = read_only
    try:
        yield
    finally:
        g.read_only_transaction = before


@contextmanager
def transaction(session, *, read_only: bool) -> Iterator[None]:
    """The session's work outside a request (background checks, exports, commands) in one
    transaction of this mode: what the session had open ends first; on exit a read-only one
    is rolled back, a writing one committed (rolled back when the work fails)."""
    session.rollback()
    with transaction_mode(read_only=read_only):
        try:
            yield
        except BaseException:
            session.rollback()
            raise
        if read_only:
            session.rollback()
        else:
            session.commit()


def in_one_transaction(
    session,
    action: Callable[[], T],
    *,
    refusals: type[E] | tuple[type[E], ...],
    writes: bool = True,
) -> tuple[T | None, E | None]:
    """Run a door's action (one request, one form post, one command) as one transaction of
    the session: committed when it returns, rolled back when it raises. A refusal (one of
    `refusals`) is given back, beside no result, for the door to say in its own words;
    anything else is raised again. An action that `writes` nothing (a read) is neither
    committed nor rolled back: its transaction ends with the request. The one way every
    door runs a service call."""
    try:
        result = action()
        if writes:
            session.commit()
    except refusals as refused:
        if writes:
            session.rollback()
        return None, refused
    except BaseException:
        session.rollback()
        raise
    return result, None


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
    if connection.dialect.name != "sqlite" or connection.info.get(WRITING, True):
        return
    if connection.connection.driver_connection.total_changes != connection.info[CHANGES]:
        raise RuntimeError("a transaction begun as a reader wrote before take_write_lock")
    on_driver(connection, "ROLLBACK")
    write_turns(connection.engine).take(connection.connection.dbapi_connection)
    on_driver(connection, "BEGIN IMMEDIATE")
    connection.info[WRITING] = True


def register_request_modes(app: Flask, db, *, autocommit_reads_on: bool) -> None:
    """Mark each request's transaction mode from its view, before the view runs."""

    @app.before_request
    def _mark_transaction_mode() -> None:
        view = app.view_functions.get(request.endpoint or "")
        g.read_only_transaction = getattr(view, "read_only", request.method in SAFE_METHODS)
        # Acted on once the request's body is in (`autocommit_reads`).
        g.autocommit_reads_due = autocommit_reads_on and getattr(view, "never_writes", False)

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
