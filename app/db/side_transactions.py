"""Short transactions of their own, beside the request's.

Rate-limit counters and session stamps must be kept whether the request's own transaction
commits or rolls back, so they are written on a connection of their own and committed at
once. On SQLite such a write queues on the database's one write lock: it must run before
the request's own transaction takes that lock (Flask-Limiter counts and Flask-Login loads
the supervisor ahead of any view), never after, or it would wait on itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection

from app.db.transactions import transaction_mode
from app.extensions import db


@contextmanager
def own_transaction(write: bool = True) -> Iterator[Connection]:
    """A connection of the app's engine in a transaction of its own, committed on exit.

    `write` makes it begin with SQLite's write lock (see app.db.transactions), whatever the
    request's own mode is; a reading one never blocks a writer.
    """
    with transaction_mode(read_only=not write), db.engine.begin() as connection:
        yield connection


def transactions_block_aside() -> bool:
    """Whether any transaction of the request's session may make a write of its own wait:
    on SQLite (one write lock), never on PostgreSQL (row locks)."""
    return db.engine.dialect.name == "sqlite"


def may_write_aside() -> bool:
    """Whether a write of its own cannot wait on the request's transaction: always on
    PostgreSQL (row locks), and on SQLite while the request's session holds nothing."""
    return not transactions_block_aside() or not db.session().in_transaction()
