"""PostgreSQL's connections: one the server closed is replaced before a request uses it, an
open one is checked without a round trip unless it sat idle, and a request that never
writes reads without a transaction block, once its body is in."""

from __future__ import annotations

import select
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.pool import NullPool

from app.db.pg_connections import listen_for_goodbye, still_open
from app.extensions import db
from app.web.bodies import receive
from tests.conftest import PREVIEW


@pytest.fixture
def postgresql(app):
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's connections")
    return db.engine


def _end_backends(engine, connections: list[psycopg.Connection]) -> None:
    """End every other backend of this database, as a server restart would, and wait until
    each of `connections` has heard it (the server's last words, then the end of the
    stream, reach the socket a moment after the backend is told to end)."""
    admin = create_engine(engine.url, poolclass=NullPool)
    others = "datname = current_database() AND pid <> pg_backend_pid()"
    try:
        with admin.connect() as connection:
            ended = connection.scalar(
                text(
                    f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {others}"
                )  # noqa: S608
            )
            assert ended >= len(connections) >= 1
    finally:
        admin.dispose()
    deadline = time.monotonic() + 10
    for ended_one in connections:
        while still_open(ended_one):
            assert time.monotonic() < deadline, "the server never closed the connection"
            select.select([ended_one.pgconn.socket], [], [], 0.1)


def _pooled(engine) -> list[psycopg.Connection]:
    """The connections waiting in the engine's pool."""
    return [record.dbapi_connection for record in engine.pool._pool.queue]


def test_a_request_after_the_server_ended_the_pooled_connections_gets_a_new_one(postgresql, api):
    api.add("C1", {"Name": "Ann"})
    db.session.remove()  # each request of a server has a session of its own
    assert postgresql.pool.checkedin() >= 1
    assert postgresql.pool.checkedout() == 0
    _end_backends(postgresql, _pooled(postgresql))

    assert api.find("C1")["clientId"] == "C1"
    assert api.add("C2", {"Name": "Bo"})["previewResult"]["previewResultStatus"] == "SUCCESS"


def test_a_connection_the_server_ended_or_the_client_closed_is_not_open(postgresql):
    url = postgresql.url.set(drivername="postgresql").render_as_string(hide_password=False)
    connection = psycopg.connect(url)
    listen_for_goodbye(connection)
    assert still_open(connection)
    connection.execute("SELECT 1")
    assert still_open(connection)
    _end_backends(postgresql, [connection])  # waits for still_open to say so
    assert not still_open(connection)
    connection.close()
    assert not still_open(connection)


@pytest.fixture
def pings(postgresql, monkeypatch) -> list[object]:
    """The connections asked a SELECT 1 at checkout."""
    asked: list[object] = []
    original = postgresql.dialect.do_ping

    def ping(connection) -> bool:
        asked.append(connection)
        return original(connection)

    monkeypatch.setattr(postgresql.dialect, "do_ping", ping)
    return asked


def test_a_connection_used_a_moment_ago_is_not_pinged(api, pings):
    api.add("C1", {"Name": "Ann"})
    for _ in range(3):
        db.session.remove()  # each request of a server has a session of its own
        assert api.find("C1")["clientId"] == "C1"
    assert pings == []


@pytest.fixture
def ping_any_idle(settings) -> None:
    settings["DB_PING_IDLE_SECONDS"] = 0  # every connection back from the pool is idle


def test_a_connection_idle_past_the_limit_is_pinged(ping_any_idle, api, pings):
    api.add("C1", {"Name": "Ann"})
    db.session.remove()
    assert api.find("C1")["clientId"] == "C1"
    assert pings


def test_an_idle_connection_that_does_not_answer_is_replaced(
    ping_any_idle, postgresql, api, monkeypatch
):
    api.add("C1", {"Name": "Ann"})
    db.session.remove()
    silent = _pooled(postgresql)

    def no_answer(connection) -> bool:
        if connection in silent:
            raise psycopg.OperationalError("no answer")
        return True

    monkeypatch.setattr(postgresql.dialect, "do_ping", no_answer)
    assert api.find("C1")["clientId"] == "C1"
    assert not set(_pooled(postgresql)) & set(silent)


def test_a_request_takes_no_connection_before_its_body_is_read(app, postgresql, api):
    db.session.remove()  # each request of a server has a session of its own
    url = PREVIEW + "searchPreviewCampaign"
    with app.test_request_context(url, method="POST", json=api.body(clientId="C1")):
        app.preprocess_request()  # the view's marks are set, no connection is taken
        assert not db.session().in_transaction()
        receive()
        assert db.session().in_transaction()
        assert db.session.connection().connection.dbapi_connection.autocommit
        db.session.rollback()


@contextmanager
def autocommit_of_each_statement(engine) -> Iterator[list[bool]]:
    """Whether each statement sent in the block ran outside a transaction block."""
    seen: list[bool] = []

    def spy(connection, *_args) -> None:
        seen.append(connection.connection.dbapi_connection.autocommit)

    event.listen(engine, "before_cursor_execute", spy)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", spy)


def test_a_search_reads_outside_a_transaction_block(postgresql, api):
    api.add("C1", {"Name": "Ann"})
    db.session.remove()  # each request of a server has a session of its own
    with autocommit_of_each_statement(postgresql) as seen:
        assert api.find("C1")["clientId"] == "C1"
        assert api.search(("Name", "EQUALS", "Ann"))[0]["clientId"] == "C1"
    assert seen and all(seen)


def test_a_write_keeps_its_transaction_and_the_pool_gets_its_connections_back_as_they_were(
    postgresql, api
):
    api.add("C1", {"Name": "Ann"})
    db.session.remove()
    with autocommit_of_each_statement(postgresql) as seen:
        api.add("C2", {"Name": "Bo"})
        api.call("changeCampaignRecordStatus", clientId="C2", previewRecordStateEnum="COMPLETED")
    assert seen and not any(seen)
    assert api.find("C1")["clientId"] == "C1"  # its connection back in the pool
    raw = postgresql.raw_connection()
    try:
        assert raw.driver_connection.autocommit is False
    finally:
        raw.close()
