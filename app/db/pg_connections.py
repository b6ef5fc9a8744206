"""A pooled PostgreSQL connection is known to be open before a request uses it, mostly
without a round trip to the server.

A server that closes a connection (it restarted, an administrator ended the backend, an
idle timeout fired) says so on the connection's socket: a FATAL message, then the end of
the stream. So at checkout whatever the socket holds is read, without waiting (libpq's
sockets never block), and a connection found closed, or told it is being closed, is given
up (`DisconnectionError`): the pool opens a new one in its place and the request never sees
it. A connection that sat in the pool longer than DB_PING_IDLE_SECONDS is also asked a
`SELECT 1`, for what the socket cannot tell: a peer gone without a word (a failover, a
NAT or load balancer that forgot the connection). TCP keepalives (`engine_options`) let the
kernel find those too.

SQLAlchemy's `pool_pre_ping` sends that `SELECT 1` at every checkout: a round trip more for
every request, a fifth of a search by clientId.
"""

from __future__ import annotations

import time
import weakref

import psycopg
from psycopg import pq
from sqlalchemy import event, exc
from sqlalchemy.engine import Engine

# Connections whose server said it is closing them: libpq hands a FATAL message that comes
# while the connection is idle to the notice handlers, and the end of the stream may reach
# the socket a moment after it.
_CLOSING: weakref.WeakSet[psycopg.Connection] = weakref.WeakSet()
# When a pooled connection went back to the pool (its record's info).
_CHECKED_IN = "pg_checked_in_at"


def listen_for_goodbye(connection: psycopg.Connection) -> None:
    """Note when the server says it closes `connection`."""
    connection_ref = weakref.ref(connection)

    def on_notice(diagnostic: psycopg.errors.Diagnostic) -> None:
        if diagnostic.severity_nonlocalized == "FATAL" and (closing := connection_ref()):
            _CLOSING.add(closing)

    connection.add_notice_handler(on_notice)


def still_open(connection: psycopg.Connection) -> bool:
    """Whether the server still holds this idle connection open, as far as its socket
    tells: what the server sent unasked is read and parsed (a notice, or its last words),
    and the end of the stream fails the read."""
    if connection.closed or connection.broken:
        return False
    pgconn = connection.pgconn
    try:
        pgconn.consume_input()
        pgconn.is_busy()  # parses what was read: a FATAL message reaches the handlers
    except psycopg.OperationalError:
        return False
    return pgconn.status == pq.ConnStatus.OK and connection not in _CLOSING


def check_at_checkout(engine: Engine, ping_idle_seconds: float) -> None:
    """Give up a pooled connection the server closed, before a request gets it; ask one
    idle for longer than `ping_idle_seconds` a `SELECT 1` first."""
    dialect = engine.dialect

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        listen_for_goodbye(dbapi_connection)

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection, record) -> None:
        record.info[_CHECKED_IN] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection, record, _proxy) -> None:
        if not still_open(dbapi_connection):
            raise exc.DisconnectionError("the server closed this pooled connection")
        checked_in = record.info.get(_CHECKED_IN)
        if checked_in is None or time.monotonic() - checked_in <= ping_idle_seconds:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            raise exc.DisconnectionError("this pooled connection no longer answers") from error
