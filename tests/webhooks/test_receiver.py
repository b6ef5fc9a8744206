"""Deliveries over real HTTP to a local receiver that checks each signature with the
standardwebhooks package; redirects, errors and timeouts are failures."""

from __future__ import annotations

import json
import re
import threading

import pytest
from sqlalchemy import select
from werkzeug import Request, Response

from app.extensions import db
from app.models import WebhookDelivery
from app.services.webhooks import run_once
from app.services.webhooks.endpoints import new_secret
from tests.webhooks.conftest import emit, make_endpoint, verified

ANY = re.compile(".*")
LOCAL = "127.0.0.0/8,::1/128"


@pytest.fixture
def settings(settings):
    # The receivers listen on this machine: an address the operator must allow.
    return {
        **settings,
        "WEBHOOK_CONNECT_TIMEOUT": 1.0,
        "WEBHOOK_READ_TIMEOUT": 0.5,
        "WEBHOOK_ALLOW_NETWORKS": LOCAL,
    }


class Receiver:
    """Verifies every request's signature, keeps the verified payloads, answers `status`."""

    def __init__(self, secret: str) -> None:
        self.secret, self.status = secret, 200
        self.received: list[tuple[str, dict]] = []
        self.requests: list[str] = []

    def __call__(self, request: Request) -> Response:
        self.requests.append(request.path)
        payload = verified(self.secret, request.get_data(), dict(request.headers))
        self.received.append((request.headers["webhook-id"], payload))
        return Response("ok", status=self.status)


def _statuses() -> list[tuple[str, str | None]]:
    db.session.expire_all()
    rows = db.session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id))
    return [(d.status, d.last_error) for d in rows]


def test_a_local_receiver_verifies_every_signature(acme, httpserver, clock):
    endpoint = make_endpoint(acme, httpserver.url_for("/hooks"))
    receiver = Receiver(endpoint.secret)
    httpserver.expect_request("/hooks", method="POST").respond_with_handler(receiver)
    emit(acme, "task.added", subject="rec-1", clientId="C-1")
    emit(acme, "task.closed", subject="rec-1", outcome="Sale", workCodes=[{"key": "k"}])
    emit(acme, "user.added", subject="agent-1")
    for _ in range(3):
        run_once(clock.now)
    assert [p["type"] for _id, p in receiver.received] == [
        "task.added",
        "user.added",
        "task.closed",
    ]
    assert all(re.fullmatch(r"msg_[0-9a-f]{32}", i) for i, _p in receiver.received)
    assert _statuses() == [("delivered", None)] * 3


def test_a_signature_made_with_another_secret_does_not_verify(acme, httpserver, clock):
    make_endpoint(acme, httpserver.url_for("/hooks"))
    receiver = Receiver(new_secret())
    httpserver.expect_request("/hooks").respond_with_handler(receiver)
    emit(acme)
    run_once(clock.now)
    assert receiver.received == [] and len(receiver.requests) == 1  # the handler refused it
    assert _statuses()[0][0] == "pending"


def test_a_receiver_down_then_up_gets_every_event_in_order(acme, httpserver, clock):
    endpoint = make_endpoint(acme, httpserver.url_for("/hooks"))
    receiver = Receiver(endpoint.secret)
    receiver.status = 500
    httpserver.expect_request("/hooks").respond_with_handler(receiver)
    for n in range(3):
        emit(acme, subject="rec-A", n=n)
    for _ in range(4):
        run_once(clock.now)
        clock.advance(minutes=31)
    receiver.status, receiver.received = 200, []
    for _ in range(4):
        clock.advance(hours=2)
        run_once(clock.now)
    assert [p["data"]["n"] for _i, p in receiver.received] == [0, 1, 2]


def test_redirects_are_not_followed(acme, httpserver, clock):
    make_endpoint(acme, httpserver.url_for("/hooks"))
    httpserver.expect_request("/hooks").respond_with_response(
        Response(status=307, headers={"Location": httpserver.url_for("/elsewhere")})
    )
    httpserver.expect_request("/elsewhere").respond_with_data("caught")
    emit(acme)
    run_once(clock.now)
    assert [r.path for r, _resp in httpserver.log] == ["/hooks"]
    assert _statuses() == [("pending", "HTTP 307: redirects are not followed")]


@pytest.mark.parametrize("status", [301, 302, 400, 404, 410, 500, 503])
def test_only_a_2xx_is_success(acme, httpserver, clock, status):
    make_endpoint(acme, httpserver.url_for("/hooks"))
    httpserver.expect_request(ANY).respond_with_data("no", status=status)
    emit(acme)
    run_once(clock.now)
    assert _statuses()[0][0] == "pending"
    assert json.dumps(_statuses()).count(str(status)) == 1


def test_a_slow_receiver_times_out_and_is_retried(acme, httpserver, clock):
    make_endpoint(acme, httpserver.url_for("/hooks"))
    release = threading.Event()

    def stalls(_request):
        release.wait(5)  # longer than the read timeout; released as soon as we are done
        return Response("late")

    httpserver.expect_request(ANY).respond_with_handler(stalls)
    emit(acme)
    try:
        run_once(clock.now)
    finally:
        release.set()
    status, error = _statuses()[0]
    assert status == "pending" and error.startswith("timeout")


def test_a_receiver_that_is_not_listening_is_a_failure(acme, clock):
    make_endpoint(acme, "http://127.0.0.1:9/hooks")  # the discard port: nobody listens
    emit(acme)
    run_once(clock.now)
    status, error = _statuses()[0]
    assert status == "pending" and error.startswith("connection failed")
