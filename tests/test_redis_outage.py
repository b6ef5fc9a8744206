"""Redis gone and back (a redis-server of the test's own, stopped and started again on its
port): the APIs, sign-in and the desk keep answering, rate limits fall back to a count of
each process's own with one log line, and everything counts in Redis again by itself
once it is back."""

from __future__ import annotations

import logging
import time
from types import SimpleNamespace

import pytest
import redis

from app.ratelimit_failover import RETRY_SECONDS, ApiCounts
from tests.desk.desk_support import desk_sign_in, make_agent
from tests.ui.conftest import PASSWORD, RequestClient, make_supervisor, sign_in

API_LIMIT, LOGIN_LIMIT = 5, 3


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def settings(settings, private_redis) -> dict:
    return {
        **settings,
        "RATELIMIT_ENABLED": True,
        "API_RATE_LIMIT": f"{API_LIMIT} per minute",
        "LOGIN_RATE_LIMIT": f"{LOGIN_LIMIT} per minute",
        "RATELIMIT_STORAGE_URI": private_redis.url,
        "REDIS_URL": private_redis.url,
        "WORKER_IMMEDIATE": False,
    }


@pytest.fixture
def clock(app) -> Clock:
    """The clock by which the API's counts retry Redis."""
    clock = Clock()
    app.extensions["api_rate_counts"] = ApiCounts(clock=clock)
    return clock


@pytest.fixture
def client(app):
    app.test_client_class = RequestClient
    return app.test_client()


def search(api) -> int:
    return api.post("searchPreviewCampaign", clientId="C1").status_code


def counted_in(server) -> dict[str, int]:
    """The counts kept in the Redis server, by key."""
    client = redis.Redis.from_url(server.url)
    try:
        return {key.decode(): int(client.get(key)) for key in client.scan_iter("LIMITS:*")}
    finally:
        client.close()


def outage_lines(caplog, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger]


def test_the_api_counts_per_process_while_redis_is_gone_then_in_redis_again(
    app, api, clock, private_redis, caplog
):
    caplog.set_level(logging.INFO)
    assert [search(api) for _ in range(2)] == [200, 200]
    assert list(counted_in(private_redis).values()) == [2]

    private_redis.stop()
    answers = [search(api) for _ in range(3 * API_LIMIT)]
    # The process's own count: the limit in full, then refusals, never a 500.
    assert answers == [200] * API_LIMIT + [429] * (2 * API_LIMIT)
    clock.now += RETRY_SECONDS  # Redis is tried again, and is still gone
    assert search(api) == 429
    [gone] = outage_lines(caplog, "app.ratelimit_failover")
    assert "unreachable" in gone and "ConnectionError" in gone

    private_redis.start()  # empty: what it counted before is lost
    assert search(api) == 429  # not tried again yet: still counted here
    clock.now += RETRY_SECONDS
    assert [search(api) for _ in range(API_LIMIT + 1)] == [200] * API_LIMIT + [429]
    assert list(counted_in(private_redis).values()) == [API_LIMIT]
    assert "answers again" in outage_lines(caplog, "app.ratelimit_failover")[-1]
    assert len(outage_lines(caplog, "app.ratelimit_failover")) == 2


@pytest.fixture
def limiter_clock(monkeypatch) -> SimpleNamespace:
    """Flask-Limiter's clock, which spaces its retries of the storage (1 s, 2 s … 32 s)."""
    shifted = SimpleNamespace(by=0.0)
    fake = SimpleNamespace(time=lambda: time.time() + shifted.by)
    monkeypatch.setattr("flask_limiter._extension.time", fake)
    return shifted


def test_sign_in_and_the_desk_work_while_redis_is_gone_and_count_in_redis_again(
    app, client, acme, private_redis, limiter_clock, caplog
):
    caplog.set_level(logging.INFO)
    make_supervisor()
    make_agent(acme)
    wrong = {"email": "boss@example.com", "password": "wrong password"}
    assert client.post("/login", data=wrong).status_code == 200
    assert counted_in(private_redis)

    private_redis.stop()
    signed_in = sign_in(client)
    assert signed_in.status_code == 302, signed_in.status_code
    assert client.get(signed_in.location).status_code == 200
    desk = app.test_client()
    assert desk_sign_in(desk, password=PASSWORD).status_code == 302
    assert desk.get("/desk").status_code == 200
    # Sign-in attempts are still limited, by this process's own count.
    attempts = [client.post("/login", data=wrong).status_code for _ in range(LOGIN_LIMIT)]
    assert attempts == [200] * (LOGIN_LIMIT - 1) + [429]
    [gone] = [line for line in outage_lines(caplog, "flask-limiter") if "unreachable" in line]

    private_redis.start()
    limiter_clock.by += 60  # past its next retry of the storage, and the window
    assert client.post("/login", data=wrong).status_code == 200
    assert "Rate limit storage recovered" in outage_lines(caplog, "flask-limiter")
    assert list(counted_in(private_redis).values()) == [1]
