"""The live parts as server-sent events: the wallboard, the Agents board and the Progress
panel sent at once and again within 2 seconds of a change, rendered once per change for all
the viewers of a process; refused to whoever may not see the tenant; ended at their
lifetime, or at once when the worker stops; 503 beyond the process's cap.

The streams run on the app's own threads in real time, every wait bounded."""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup

from app.admin import wallboard as wallboard_door
from app.db.transactions import transaction
from app.extensions import db
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns import catalogue as campaigns
from app.services.delivery import agent_state
from app.services.reports import live
from app.web import broadcast
from tests.admin.conftest import make_supervisor, session_for
from tests.conftest import make_tenant
from tests.delivery.delivery_support import add, available, make_agent, offer

WITHIN = 2.0  # seconds: the promise
STREAMS = ["wallboard/stream", "agents/stream", "campaigns/{campaign}/progress/stream"]


@pytest.fixture
def settings(settings):
    return {**settings, "LIVE_TOKEN_SECONDS": 0.1}


@pytest.fixture
def signed_in(client):
    """The client, signed in as a supervisor who sees every tenant."""
    return session_for(client, make_supervisor())


@pytest.fixture(autouse=True)
def _minute_held(monkeypatch):
    """The change token counts the minute (times in state move on by themselves): these
    tests hold the probes' minute still, so that only the changes they make move it."""
    held = utcnow()
    monkeypatch.setattr(wallboard_door, "utcnow", lambda: held)


@pytest.fixture
def hub(app) -> broadcast.Hub:
    hub = app.extensions["live_hub"]
    hub.heartbeat_seconds = 0.1  # the readers below see the stream move often
    yield hub
    hub.close(wait=5)  # its threads end before the test's engines are disposed


class Reader:
    """One viewer's stream, read event by event."""

    def __init__(self, response) -> None:
        self.response = response
        self.chunks: Iterator[bytes] = iter(response.response)
        self.buffer = ""
        self.comments = 0

    def _blocks(self) -> Iterator[str]:
        for chunk in self.chunks:
            self.buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in self.buffer:
                block, self.buffer = self.buffer.split("\n\n", 1)
                yield block

    def next_event(self, within: float = WITHIN) -> tuple[str, str] | None:
        """(id, data) of the next event within `within` seconds; None if the stream ended."""
        deadline = time.monotonic() + within
        for block in self._blocks():
            fields = [line.split(": ", 1) for line in block.splitlines()]
            if fields and fields[0][0] == "id":
                data = "\n".join(value for name, value in fields if name == "data")
                return fields[0][1], data
            if block.startswith(":"):
                self.comments += 1
            assert time.monotonic() < deadline, "no event within the time promised"
        return None

    def ended(self, within: float) -> bool:
        deadline = time.monotonic() + within
        for block in self._blocks():
            assert not block.startswith("id:"), "an event where none was due"
            assert time.monotonic() < deadline, "the stream went on"
        return True

    def close(self) -> None:
        self.response.close()


def open_stream(client, url: str, **headers) -> Reader:
    response = client.get(url, headers=headers, buffered=False)
    assert response.status_code == 200, (response.status_code, response.location)
    return Reader(response)


def etag_now(app, acme) -> str:
    return f'"{wallboard_door.etag_of(live.change_token(acme), app.config["SECRET_KEY"])}"'


def deliverable(html: str, queue: str) -> str:
    cell = BeautifulSoup(html, "html.parser").select_one(
        f"tr[data-queue='{queue}'] td[data-count='deliverable']"
    )
    return cell.get_text(strip=True)


def test_the_wallboard_stream_sends_the_figures_then_a_change_within_2_seconds(
    app, hub, signed_in, acme, renewals
):
    add(renewals, "first")
    response = signed_in.get(f"/tenants/{acme.id}/wallboard/stream", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Accel-Buffering"] == "no"
    stream = Reader(response)
    try:
        assert next(stream._blocks()) == "retry: 2000"
        etag, html = stream.next_event()
        assert etag == etag_now(app, acme)  # the ETag the polls use too
        assert deliverable(html, "Sales") == "1" and "<nav" not in html

        add(renewals, "second")
        changed = time.monotonic()
        etag2, html = stream.next_event()
        assert time.monotonic() - changed < WITHIN
        assert etag2 != etag and deliverable(html, "Sales") == "2"
    finally:
        stream.close()


def test_a_viewer_that_shows_the_current_figures_gets_only_heartbeats_until_a_change(
    app, hub, signed_in, acme, renewals
):
    current = etag_now(app, acme)
    url = f"/tenants/{acme.id}/wallboard/stream"
    for how in ({"query_string": {"since": current}}, {"headers": {"Last-Event-ID": current}}):
        response = signed_in.get(url, buffered=False, **how)
        stream = Reader(response)
        try:
            blocks = stream._blocks()
            assert [next(blocks) for _ in range(4)][1:] == [": still here"] * 3
        finally:
            stream.close()


@pytest.mark.parametrize("path", STREAMS)
def test_a_stream_is_refused_to_whoever_may_not_see_the_tenant(
    app, hub, client, acme, renewals, path
):
    url = f"/tenants/{acme.id}/" + path.format(campaign=renewals.id)
    other, _ = make_tenant("Other")
    session_for(client, make_supervisor("other@example.com", tenants=[other]))
    assert client.get(url).status_code == 404
    assert hub.streams == 0 and not hub.channels


@pytest.mark.parametrize("path", STREAMS)
def test_a_stream_sends_whoever_is_not_signed_in_to_the_sign_in_page(
    app, hub, client, acme, renewals, path
):
    anonymous = client.get(f"/tenants/{acme.id}/" + path.format(campaign=renewals.id))
    assert anonymous.status_code == 302 and "/login" in anonymous.location
    assert hub.streams == 0


def test_a_campaign_of_another_tenant_has_no_progress_stream(app, hub, signed_in, acme):
    other, _ = make_tenant("Other")

    theirs = campaigns.get_campaign(other, "Renewals")
    assert (
        signed_in.get(f"/tenants/{acme.id}/campaigns/{theirs.id}/progress/stream").status_code
        == 404
    )


def test_a_stream_ends_at_its_lifetime_and_leaves_nothing_behind(app, hub, signed_in, acme):
    # Long enough for the first render on a loaded machine (PostgreSQL, two test workers):
    # a stream whose lifetime ends first sends nothing, as it should.
    hub.lifetime_seconds = 2.0
    stream = open_stream(signed_in, f"/tenants/{acme.id}/wallboard/stream")
    assert stream.next_event() is not None
    assert stream.ended(within=4.0)
    stream.close()
    assert hub.streams == 0
    deadline = time.monotonic() + 2
    while hub.channels and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not hub.channels  # the channel's thread ended with its last viewer


def test_every_stream_ends_at_once_when_the_worker_stops(app, hub, signed_in, acme):
    stream = open_stream(signed_in, f"/tenants/{acme.id}/wallboard/stream")
    assert stream.next_event() is not None
    broadcast.close_all()
    assert stream.ended(within=1.0)
    stream.close()
    refused = signed_in.get(f"/tenants/{acme.id}/wallboard/stream")
    assert refused.status_code == 503  # a stopping worker takes no new one


def test_beyond_the_cap_a_stream_is_refused_with_503_and_the_page_polls(app, hub, signed_in, acme):
    hub.places.most = 2
    url = f"/tenants/{acme.id}/wallboard/stream"
    streams = [open_stream(signed_in, url) for _ in range(2)]
    refused = signed_in.get(url)
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "60"
    assert signed_in.get(f"/tenants/{acme.id}/wallboard/live").status_code == 200  # polls
    streams.pop().close()
    streams.append(open_stream(signed_in, url))  # a place is free again
    for stream in streams:
        stream.close()
    assert hub.streams == 0


def test_a_change_is_rendered_once_for_all_the_viewers_of_the_process(
    app, hub, signed_in, acme, renewals, monkeypatch
):
    renders = []
    real = live.wallboard

    def counted(tenant, *args, **kwargs):
        renders.append(tenant.id)
        return real(tenant, *args, **kwargs)

    monkeypatch.setattr(live, "wallboard", counted)
    url = f"/tenants/{acme.id}/wallboard/stream"
    streams = [open_stream(signed_in, url) for _ in range(5)]
    try:
        first = {stream.next_event() for stream in streams}
        assert len(first) == 1 and len(hub.channels) == 1
        add(renewals, "one-more")
        second = {stream.next_event() for stream in streams}
        assert len(second) == 1 and second != first
        assert renders == [acme.id, acme.id]
    finally:
        for stream in streams:
            stream.close()


def test_the_agents_board_sent_to_all_holds_no_ones_csrf_token(app, hub, signed_in, acme, renewals):
    add(renewals, "held-by-ann")
    ann = make_agent(acme, "ann")
    available(ann, utcnow())
    offer(ann, utcnow())
    stream = open_stream(signed_in, f"/tenants/{acme.id}/agents/stream?page=1")
    try:
        _etag, html = stream.next_event()
        board = BeautifulSoup(html, "html.parser")
        tokens = [field["value"] for field in board.select("input[name=csrf_token]")]
        assert tokens == [""]  # the page's own goes in (static/live.js)
        assert "ann" in board.get_text()

        # A writer's transaction, as the desk's own request has (the stream's GET left
        # this context's transactions beginning as readers').
        with transaction(db.session, read_only=False):
            agent_state.set_agent_state(db.session.merge(ann), "AWAY", actor=Actor.agent("ann"))
        _etag, html = stream.next_event()
        assert "AWAY" in html
    finally:
        stream.close()


def test_the_progress_stream_sends_the_panel_and_its_changes(app, hub, signed_in, acme, renewals):
    stream = open_stream(signed_in, f"/tenants/{acme.id}/campaigns/{renewals.id}/progress/stream")
    try:
        _etag, html = stream.next_event()
        assert 'data-count="deliverable"' in html
        add(renewals, "one-more")
        _etag, html = stream.next_event()
        count = BeautifulSoup(html, "html.parser").select_one("dd[data-count='deliverable']")
        assert count.get_text(strip=True) == "1"
    finally:
        stream.close()


def test_a_part_that_failed_to_render_is_rendered_at_the_next_check(
    app, hub, signed_in, acme, monkeypatch
):
    real, failures = live.wallboard, []

    def failing_once(tenant, *args, **kwargs):
        if not failures:
            failures.append(tenant.id)
            raise RuntimeError("the database went away for a moment")
        return real(tenant, *args, **kwargs)

    monkeypatch.setattr(live, "wallboard", failing_once)
    stream = open_stream(signed_in, f"/tenants/{acme.id}/wallboard/stream")
    try:
        assert stream.next_event() is not None
        assert failures == [acme.id]
    finally:
        stream.close()


def test_a_worker_has_a_thread_for_each_stream_besides_the_ordinary_requests(monkeypatch):
    monkeypatch.setenv("GUNICORN_THREADS", "16")
    monkeypatch.setenv("LIVE_STREAMS_MAX", "300")
    from app.web import serving

    try:
        assert importlib.reload(serving).threads == 316
    finally:
        monkeypatch.undo()
        importlib.reload(serving)


def test_each_campaign_and_each_agents_page_has_a_stream_of_its_own(
    app, hub, signed_in, acme, renewals, winback
):
    add(renewals, "r-1")
    add(renewals, "r-2")
    add(winback, "w-1")
    base = f"/tenants/{acme.id}"
    urls = [f"{base}/campaigns/{campaign.id}/progress/stream" for campaign in (renewals, winback)]
    urls += [f"{base}/agents/stream?page=1", f"{base}/agents/stream?page=2&x=1"]
    streams = [open_stream(signed_in, url) for url in urls]
    try:
        panels = [stream.next_event()[1] for stream in streams[:2]]
        counts = [
            BeautifulSoup(html, "html.parser").select_one("span.progress-total").get_text()
            for html in panels
        ]
        assert counts == ["2", "1"]
        for stream in streams[2:]:
            stream.next_event()
        # Two panels, two pages of the board (what else a query says makes no other).
        assert len(hub.channels) == 4
        assert (f"{base}/agents/stream", (("page", "2"),)) in hub.channels
    finally:
        for stream in streams:
            stream.close()
