"""The places of a process's live streams (app/web/stream_places.py): the caps of a session,
a tenant and the process; a connection its browser closed gives its place back as soon as
a place is wanted, and its stream ends writing nothing more."""

from __future__ import annotations

import socket
import ssl

import pytest

from app.web.broadcast import Hub, stream_response
from app.web.stream_places import Places, Refusal, Viewer


def viewer(session: str, tenant: int = 1) -> Viewer:
    return Viewer(session, tenant, lambda: None)


@pytest.fixture
def pair():
    """A connection as the server holds it, and the browser's end of it."""
    server, browser = socket.socketpair()
    yield server, browser
    server.close()
    browser.close()


def test_the_caps_of_a_session_a_tenant_and_the_process():
    places = Places(most=4, per_session=2, per_tenant=3)
    taken = [places.take(viewer("a")), places.take(viewer("a"))]
    assert places.take(viewer("a")) == Refusal("session", 2)
    taken.append(places.take(viewer("b")))
    assert places.take(viewer("c")) == Refusal("tenant", 3)
    taken.append(places.take(viewer("c", tenant=2)))
    assert places.take(viewer("d", tenant=3)) == Refusal("full", 4)
    assert places.take(viewer("d", tenant=3), None, closing=True) == Refusal("full", 4)
    for place in taken:
        assert places.give_back(place)
        assert not places.give_back(place)  # once
    assert not places.taken and not places.by_session and not places.by_tenant


def test_a_connection_its_browser_closed_gives_its_place_back_when_one_is_wanted(pair):
    server, browser = pair
    places = Places(most=10, per_session=1, per_tenant=10)
    first = places.take(viewer("a"), server)
    assert not first.hung_up()
    assert places.take(viewer("a")) == Refusal("session", 1)  # the browser still reads it
    browser.sendall(b"x")
    assert not first.hung_up()  # something to read is no hang-up
    assert server.recv(1) == b"x"
    browser.close()
    second = places.take(viewer("a"))
    assert not isinstance(second, Refusal)
    assert first.freed and places.by_session == {"a": {second}}


def test_a_tls_connection_cannot_be_peeked_at_and_keeps_its_place(pair):
    """Under TLS the hang-up is not seen (its heartbeat tells): the place stays, nothing
    fails."""
    server, browser = pair
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    held = context.wrap_socket(server, server_side=True, do_handshake_on_connect=False)
    places = Places(most=10, per_session=1, per_tenant=10)
    first = places.take(viewer("a"), held)
    browser.close()
    assert not first.hung_up()
    assert places.take(viewer("a")) == Refusal("session", 1)
    assert not first.freed
    held.close()


def test_the_stream_of_a_place_given_back_ends_writing_nothing_more(app, pair):
    server, browser = pair
    hub = Hub(app, most=10, per_session=1, heartbeat_seconds=30, check_seconds=0.05)
    try:
        place = hub.open("part", lambda: "etag-1", lambda: "<p>1</p>", viewer("a"), server)
        events = hub.stream(place)
        assert next(events).startswith("retry:")
        assert next(events).startswith("id: etag-1")
        browser.close()  # the page is reloaded: its old stream is not read any more
        again = hub.open("part", lambda: "etag-1", lambda: "<p>1</p>", viewer("a"))
        assert not isinstance(again, Refusal)
        assert list(events) == []  # woken at once, it ends without a heartbeat
        assert hub.streams == 1
    finally:
        hub.close(wait=5)


def test_a_stream_dropped_before_its_first_word_gives_its_place_back(app):
    """An answer the server closes unread (a handler after the view failed, the client gone
    before the headers) still frees its place: its channel's thread then ends."""
    hub = app.extensions["live_hub"]
    try:
        with app.test_request_context("/stream"):
            response = stream_response(
                "part", lambda: "v1", lambda: "<p>v1</p>", viewer=viewer("a")
            )
            assert response.status_code == 200 and hub.streams == 1
            response.close()
        assert hub.streams == 0 and not hub.places.by_session and not hub.places.by_tenant
    finally:
        hub.close(wait=5)
