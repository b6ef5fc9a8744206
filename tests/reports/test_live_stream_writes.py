"""The live streams beside the desk's writes: a stream's probe and render only read, so
however many wallboards are open, an agent's write never fails nor waits on them.

On SQLite a transaction that may write holds the database's one write lock from its BEGIN
IMMEDIATE to its end: a probe or a render begun so would keep every desk write waiting,
and fail it past the busy timeout."""

from __future__ import annotations

import threading
import time

import pytest

from app.db.sqlite_writes import write_turns
from app.extensions import db
from app.services.reports import live
from tests.conftest import PLATFORM, sc_headers
from tests.delivery.delivery_support import make_agent
from tests.reports import test_live_stream as streams
from tests.reports.test_live_stream import open_stream

# The live-stream tests' fixtures: the hub, a signed-in supervisor, the probes' minute held.
hub, signed_in, _minute_held = streams.hub, streams.signed_in, streams._minute_held

DESK = "/desk-api/v1/setAgentState"
BUSY_TIMEOUT_MS = 1000
STREAMS = 50


@pytest.fixture
def settings(settings):
    return {
        **settings,
        "LIVE_TOKEN_SECONDS": 0.1,
        "SQLITE_BUSY_TIMEOUT_MS": BUSY_TIMEOUT_MS,
        "LIVE_STREAMS_PER_SESSION": STREAMS,  # one supervisor's fifty parts
    }


@pytest.fixture
def set_state(app, tenant):
    """Set an agent's state through the Desk API, as a desk does: (status, result, seconds)."""
    _tenant, key = tenant
    headers = sc_headers("Acme", "prod", "us-east-1", key)
    identity = {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"}
    desk = app.test_client()

    def call(agent: str, state: str) -> tuple[int, str | None, float]:
        body = {"tenant": identity, "agent": agent, "state": state}
        started = time.monotonic()
        response = desk.post(DESK, json=body, headers=headers)
        took = time.monotonic() - started
        answer = response.get_json(silent=True) or {}
        return response.status_code, answer.get("result"), took

    return call


@pytest.fixture
def turns_taken(app, monkeypatch) -> list[str]:
    """The names of the threads that take SQLite's write turn (none on PostgreSQL)."""
    taken: list[str] = []
    if db.engine.dialect.name != "sqlite":
        return taken
    turns = write_turns(db.engine)
    real = turns.take

    def take(holder) -> None:
        taken.append(threading.current_thread().name)
        real(holder)

    monkeypatch.setattr(turns, "take", take)
    return taken


def test_a_desk_write_goes_through_while_a_stream_renders(
    app, hub, signed_in, acme, set_state, turns_taken, monkeypatch
):
    """A render in progress (its transaction open) keeps no desk write waiting."""
    make_agent(acme, "ann")
    rendering, written = threading.Event(), threading.Event()
    real = live.wallboard

    def held(tenant, *args, **kwargs):
        board = real(tenant, *args, **kwargs)  # its reads are done, its transaction open
        rendering.set()
        written.wait(5 * BUSY_TIMEOUT_MS / 1000)
        return board

    monkeypatch.setattr(live, "wallboard", held)
    stream = open_stream(signed_in, f"/tenants/{acme.id}/wallboard/stream")
    try:
        assert rendering.wait(5)
        status, result, took = set_state("ann", "AVAILABLE")
        written.set()
        assert (status, result) == (200, "SUCCESS")
        assert took < BUSY_TIMEOUT_MS / 1000
        assert stream.next_event() is not None
    finally:
        written.set()
        stream.close()
    assert not [name for name in turns_taken if name.startswith("live ")]


def test_fifty_open_streams_never_make_a_desk_write_fail_or_wait_past_its_busy_timeout(
    app, hub, signed_in, acme, set_state, turns_taken
):
    make_agent(acme, "ann")
    base = f"/tenants/{acme.id}"
    urls = [f"{base}/wallboard/stream"] + [
        f"{base}/agents/stream?page={page}" for page in range(1, STREAMS)
    ]
    streams = [open_stream(signed_in, url) for url in urls]
    try:
        for stream in streams:
            assert stream.next_event() is not None
        assert len(hub.channels) == STREAMS
        waits = []
        for state in ["AVAILABLE", "AWAY"] * 10:  # each change renders all 50 parts again
            status, result, took = set_state("ann", state)
            assert (status, result) == (200, "SUCCESS")
            waits.append(took)
        print(f"desk writes beside {STREAMS} streams: worst {max(waits) * 1000:.0f} ms")
        assert max(waits) < BUSY_TIMEOUT_MS / 1000
    finally:
        for stream in streams:
            stream.close()
    assert not [name for name in turns_taken if name.startswith("live ")]
