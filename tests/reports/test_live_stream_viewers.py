"""Who may follow a live stream, while it lasts: a stream ends, saying why, within 2 seconds of
its session's sign-out (in another browser sharing it), of the supervisor's removal, of the
tenant taken from them or deleted, and the desk's after its signed-out news; one session, and
one tenant's viewers, hold at most their cap of the process's streams (429, JSON saying why),
while another session or tenant still gets one.

The streams run on the app's own threads in real time: every read is bounded (a heartbeat
every 0.1 s keeps the reader's deadline checked) and must end."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from sqlalchemy import event

from app.admin.sessions import TOKEN_KEY
from app.desk.auth import AGENT_TOKEN_KEY
from app.extensions import db
from app.models import Role, Supervisor, Tenant
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import agent_state
from app.services.people import sessions, supervisors
from tests.admin.conftest import make_supervisor, session_for
from tests.conftest import make_tenant
from tests.delivery.delivery_support import available
from tests.desk.desk_support import desk_session, make_agent
from tests.reports import test_live_stream as streams
from tests.reports.test_live_stream import WITHIN, Reader, open_stream

BOSS = "boss@example.com"
# The fixtures of the streams' tests: checks every 0.1 s, a heartbeat every 0.1 s, the
# minute held still.
settings, hub, _minute_held = streams.settings, streams.hub, streams._minute_held


def sharing(app, client, key: str):
    """A second browser holding the same session as `client` (another tab, another window)."""
    with client.session_transaction() as held:
        token = held[key]
    other = app.test_client()
    with other.session_transaction() as session:
        session[key] = token
        session["_fresh"] = True
    return other


def end_of(stream: Reader, within: float = WITHIN) -> tuple[str, list[str]]:
    """The reason of the stream's `end` event and the events sent before it; the stream
    must then end (nothing more read), all within `within` seconds."""
    deadline, before, why = time.monotonic() + within, [], None
    for block in stream._blocks():
        assert why is None, "the stream went on after its end"
        if block.startswith("event: end"):
            why = block.split("data: ", 1)[1]
        elif block.startswith("id:"):
            before.append(block)
        assert time.monotonic() < deadline, "the stream went on"
    assert why is not None, "the stream ended without saying why"
    return why, before


@pytest.fixture
def boss(app):
    return make_supervisor(BOSS)


# How long the first figures may take on a busy machine (what is promised is the end).
FIRST_WITHIN = 10.0


@pytest.fixture
def watching(app, hub, client, boss, acme):
    """The boss's wallboard of Acme, by stream, its first figures read."""
    session_for(client, boss)
    stream = open_stream(client, f"/tenants/{acme.id}/wallboard/stream")
    assert stream.next_event(within=FIRST_WITHIN) is not None  # a first render: no promise
    yield stream
    stream.close()


def test_signing_out_in_another_browser_ends_the_stream_within_2_seconds(
    app, hub, client, watching
):
    other = sharing(app, client, TOKEN_KEY)
    assert other.post("/logout").status_code == 302
    why, _ = end_of(watching)
    assert why == "signedOut"
    assert hub.streams == 0 and not hub.places.by_session and not hub.places.by_tenant


def test_removing_the_supervisor_ends_the_stream_within_2_seconds(app, hub, watching, boss):
    db.session.delete(db.session.get(Supervisor, boss.id))
    db.session.commit()
    assert end_of(watching)[0] == "signedOut"


def test_taking_the_tenant_from_the_supervisor_ends_the_stream_within_2_seconds(
    app, hub, watching, boss
):
    other, _ = make_tenant("Other")
    supervisor = db.session.get(Supervisor, boss.id)
    supervisors.set_roles(supervisor, {other: Role.SUPERVISOR})
    db.session.commit()
    assert end_of(watching)[0] == "noAccess"


def test_a_stream_of_a_tenant_deleted_ends_saying_it_is_gone(app, hub, watching, acme):
    db.session.delete(db.session.get(Tenant, acme.id))
    db.session.commit()
    assert end_of(watching)[0] == "gone"


def test_another_viewer_of_the_same_board_goes_on_when_one_signs_out(
    app, hub, client, watching, acme
):
    other = session_for(app.test_client(), make_supervisor("second@example.com"))
    second = open_stream(other, f"/tenants/{acme.id}/wallboard/stream")
    try:
        assert second.next_event(within=FIRST_WITHIN) is not None
        assert sharing(app, client, TOKEN_KEY).post("/logout").status_code == 302
        assert end_of(watching)[0] == "signedOut"
        blocks = second._blocks()
        assert [next(blocks) for _ in range(3)] == [": still here"] * 3  # still open
        assert hub.streams == 1
    finally:
        second.close()


def test_the_desks_stream_sends_its_signed_out_news_then_ends_within_2_seconds(
    app, hub, client, acme
):
    agent = make_agent(acme, queues=("Sales",))
    available(agent, utcnow())
    desk = desk_session(client, agent)
    stream = open_stream(desk, "/desk/live/stream?task=&seen=0")
    try:
        assert json.loads(stream.next_event(within=FIRST_WITHIN)[1])["signedIn"] is True
        assert sharing(app, desk, AGENT_TOKEN_KEY).post("/desk/logout").status_code == 302
        why, before = end_of(stream)
        assert why == "signedOut"
        news = json.loads("".join(line[6:] for line in before[-1].splitlines()[1:]))
        assert news["signedIn"] is False and "You signed out at" in news["notice"]
    finally:
        stream.close()


def test_the_desks_stream_ends_when_the_agent_is_signed_out_by_a_supervisor(app, hub, client, acme):
    agent = make_agent(acme, queues=("Sales",))
    available(agent, utcnow())
    stream = open_stream(desk_session(client, agent), "/desk/live/stream?task=&seen=0")
    try:
        assert stream.next_event(within=FIRST_WITHIN) is not None
        agent_state.set_agent_state(agent, "OFFLINE", actor=Actor.supervisor(BOSS))
        sessions.end_sessions(agent, sessions.AGENTS)
        db.session.commit()
        why, before = end_of(stream)
        assert why == "signedOut" and "Signed out by supervisor" in before[-1]
    finally:
        stream.close()


def refusal(response, status: int, reason: str) -> str:
    assert response.status_code == status, response.status_code
    assert response.headers["Retry-After"] == "60" and response.is_json
    assert response.json["reason"] == reason
    return response.json["message"]


def test_one_session_holds_at_most_its_cap_while_another_session_gets_one(
    app, hub, client, boss, acme
):
    hub.places.per_session = 2
    url = f"/tenants/{acme.id}/wallboard/stream"
    mine = session_for(client, boss)
    streams = [open_stream(mine, url) for _ in range(2)]
    try:
        message = refusal(mine.get(url), 429, "session")
        assert "too many pages with live updates are open in this sign-in (at most 2)" in message
        assert hub.streams == 2
        # The page's question (JSON): refused too, and nothing opened to say so.
        asked = mine.get(url, headers={"Accept": "application/json"})
        refusal(asked, 429, "session")
        # The same supervisor in another browser is another session: it gets one.
        theirs = session_for(app.test_client(), boss)
        streams.append(open_stream(theirs, url))
        streams.pop(0).close()
        streams.append(open_stream(mine, url))  # a place of its own is free again
    finally:
        for stream in streams:
            stream.close()
    assert hub.streams == 0 and not hub.places.by_session and not hub.places.by_tenant


def test_one_tenants_viewers_hold_at_most_its_share_while_another_tenant_gets_one(
    app, hub, client, boss, acme
):
    hub.places.per_tenant = 2
    other, _ = make_tenant("Other")
    url = f"/tenants/{acme.id}/wallboard/stream"
    browsers = [session_for(app.test_client(), boss) for _ in range(3)]
    streams = [open_stream(browser, url) for browser in browsers[:2]]
    try:
        message = refusal(browsers[2].get(url), 429, "tenant")
        assert "this tenant's viewers hold their whole share" in message
        # The agents' desks of the tenant count too.
        desk = desk_session(app.test_client(), make_agent(acme, queues=("Sales",)))
        refusal(desk.get("/desk/live/stream?task=&seen=0"), 429, "tenant")
        streams.append(open_stream(browsers[2], f"/tenants/{other.id}/wallboard/stream"))
        assert {tenant: len(held) for tenant, held in hub.places.by_tenant.items()} == {
            acme.id: 2,
            other.id: 1,
        }
    finally:
        for stream in streams:
            stream.close()


def test_asking_whether_a_stream_would_be_given_opens_none(app, hub, client, boss, acme):
    url = f"/tenants/{acme.id}/wallboard/stream"
    mine = session_for(client, boss)
    asked = mine.get(url, headers={"Accept": "application/json"})
    assert asked.status_code == 200 and asked.json == {"message": None, "reason": None}
    assert mine.head(url).status_code == 200
    assert hub.streams == 0 and not hub.channels


def test_a_full_server_still_answers_503(app, hub, client, boss, acme):
    hub.places.most = 0
    mine = session_for(client, boss)
    message = refusal(mine.get(f"/tenants/{acme.id}/wallboard/stream"), 503, "full")
    assert message == "Live updates are paused: this server's live streams are all taken."


def test_a_viewers_check_is_one_statement(app, boss, acme):
    """What each stream asks every check of its session costs one read."""
    limits = sessions.SessionLimits(timedelta(hours=1), timedelta(hours=12))
    token = sessions.start_session(db.session.merge(boss), limits)
    db.session.commit()
    tenant_id, statements = acme.id, []

    def counted(_connection, _cursor, statement, *_args) -> None:
        statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", counted)
    try:
        assert sessions.why_watching_ends(token, limits, tenant_id) is None
    finally:
        event.remove(db.engine, "before_cursor_execute", counted)
        db.session.rollback()
    reads = [statement for statement in statements if not statement.startswith("BEGIN")]
    assert len(reads) == 1, reads
