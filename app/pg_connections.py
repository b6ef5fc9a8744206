"""A pooled PostgreSQL connection is known to be open before a request uses it, without a
round trip to the server.

The server that closes a connection (it restarted, an administrator ended the backend, an
idle timeout fired) says so on the connection's socket: an error message, then the end of
the stream. So a connection whose socket has nothing to read is still open, and one that has
something is read from, without waiting: libpq then knows whether it is still open. A
closed one is given up at checkout (`DisconnectionError`), and the pool opens a new one in
its place, so the request never sees it.

SQLAlchemy's `pool_pre_ping` finds the same with a `SELECT 1` at every checkout: a round
trip more for every request, a fifth of a search by clientId.
"""

from __future__ import annotations

import select
import weakref

import psycopg
from psycopg import pq
from sqlalchemy import event, exc
from sqlalchemy.engine import Engine

# Reads of what an idle connection's socket holds, at most: a server's goodbye takes two.
_READS = 4
# Connections whose server said it is closing them (a FATAL message, which libpq hands to
# the notice handlers when it comes while the connection is idle).
_CLOSING: weakref.WeakSet[psycopg.Connection] = weakref.WeakSet()


def listen_for_goodbye(connection: psycopg.Connection) -> None:
    """Note when the server says it closes `connection`: its end of the stream may reach
    the socket a moment after its last words."""
    connection_ref = weakref.ref(connection)

    def on_notice(diagnostic: psycopg.errors.Diagnostic) -> None:
        if diagnostic.severity_nonlocalized == "FATAL" and (closing := connection_ref()):
            _CLOSING.add(closing)

    connection.add_notice_handler(on_notice)


def still_open(connection: psycopg.Connection) -> bool:
    """Whether the server still holds this idle connection open, asked of its socket."""
    if connection.closed or connection.broken:
        return False
    pgconn = connection.pgconn
    try:
        # What the server sent unasked: a notice, or its last words and then the end of the
        # stream, which libpq finds on the read after them.
        for _ in range(_READS):
            if not select.select([pgconn.socket], [], [], 0)[0]:
                break
            pgconn.consume_input()
    except (OSError, ValueError, psycopg.OperationalError):
        return False
    return pgconn.status == pq.ConnStatus.OK and connection not in _CLOSING


def check_at_checkout(engine: Engine) -> None:
    """Give up a pooled connection the server closed, before a request gets it."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        listen_for_goodbye(dbapi_connection)

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection, _record, _proxy) -> None:
        if not still_open(dbapi_connection):
            raise exc.DisconnectionError("the server closed this pooled connection")
