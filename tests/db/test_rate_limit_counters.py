"""Rate-limit counters in the app's database (`database://`): one count for every worker and
host, atomic under concurrent hits, new windows after expiry, expired counters pruned."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from limits.storage import storage_from_string
from sqlalchemy import select

from app.config import rate_limit_storage, rate_limit_storage_options
from app.db.rate_limit_counters import PRUNE_EVERY_SECONDS, DatabaseStorage
from app.db.transactions import transaction
from app.extensions import db, limiter
from app.models import RateLimitCounter
from tests.admin.conftest import BOSS, RequestClient, make_supervisor

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def storage(app, clock) -> DatabaseStorage:
    return storage_from_string("database://", clock=clock)


def counters() -> dict[str, tuple[int, float]]:
    # Read without keeping a transaction: on SQLite it would hold up the storage's writes.
    with transaction(db.session, read_only=True):
        rows = db.session.scalars(select(RateLimitCounter))
        return {row.key: (row.count, row.expires_at) for row in rows}


def test_the_scheme_names_the_database_storage(app):
    assert isinstance(storage_from_string("database://"), DatabaseStorage)


@pytest.mark.parametrize(
    ("env", "uri"),
    [
        ({}, "database://"),
        ({"REDIS_URL": "redis://cache:6379/0"}, "redis://cache:6379/0"),
        ({"REDIS_URL": "redis://cache:6379/0", "RATELIMIT_STORAGE_URI": "memory://"}, "memory://"),
        ({"RATELIMIT_STORAGE_URI": "memcached://mc:11211"}, "memcached://mc:11211"),
    ],
    ids=["default", "redis-url", "explicit-wins", "explicit"],
)
def test_where_counters_live(env, uri):
    assert rate_limit_storage(env) == uri


@pytest.mark.parametrize(
    ("uri", "env", "options"),
    [
        ("database://", {}, {}),
        ("redis://cache:6379/0", {}, {"socket_connect_timeout": 2.0, "socket_timeout": 2.0}),
        ("rediss://cache:6380/0", {"REDIS_TIMEOUT_SECONDS": "0.5"},
         {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}),
    ],
    ids=["database", "redis", "redis-tls-own-timeout"],
)  # fmt: skip
def test_a_silent_redis_holds_a_request_no_longer_than_its_timeout(uri, env, options):
    assert rate_limit_storage_options(uri, env) == options


def test_hits_count_up_within_a_window_and_start_again_after_it(storage, clock):
    assert [storage.incr("k", 60) for _ in range(3)] == [1, 2, 3]
    assert storage.incr("k", 60, amount=2) == 5
    assert (storage.get("k"), storage.get_expiry("k")) == (5, clock.now + 60)
    clock.now += 59.5
    assert storage.get("k") == 5
    clock.now += 0.5  # the window has ended
    assert (storage.get("k"), storage.get_expiry("k")) == (0, clock.now)
    assert storage.incr("k", 60) == 1
    assert storage.get_expiry("k") == clock.now + 60


def test_keys_count_apart_and_clear_and_reset_forget_them(storage):
    storage.incr("a", 60), storage.incr("a", 60), storage.incr("b", 60)
    assert (storage.get("a"), storage.get("b"), storage.get("c")) == (2, 1, 0)
    storage.clear("a")
    assert (storage.get("a"), storage.get("b")) == (0, 1)
    assert storage.reset() == 1
    assert counters() == {} and storage.check()


def test_expired_counters_are_pruned_at_most_once_a_minute(storage, clock):
    storage.incr("gone", 10)
    storage.incr("stays", 600)
    clock.now += 30
    storage.incr("new", 60)  # within a minute of the last pruning: nothing pruned yet
    assert set(counters()) == {"gone", "stays", "new"}
    clock.now += PRUNE_EVERY_SECONDS
    storage.incr("new", 60)
    assert set(counters()) == {"stays", "new"}


def test_simultaneous_hits_each_get_their_own_count(app, storage):
    def hits(_: int) -> list[int]:
        with app.app_context():
            return [storage.incr("busy", 60) for _ in range(10)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        seen = [count for batch in pool.map(hits, range(4)) for count in batch]
    assert sorted(seen) == list(range(1, 41))
    assert storage.get("busy") == 40


# --- Two workers, one count --------------------------------------------------------------

LIMITED = {"RATELIMIT_ENABLED": True, "LOGIN_RATE_LIMIT": "10 per minute"}
OTHER_WORKER = textwrap.dedent(
    """
    import sys
    from app import create_app
    from app.config import test_settings

    database, storage, attempts = sys.argv[1], sys.argv[2], int(sys.argv[3])
    app = create_app(test_settings(
        database, RATELIMIT_ENABLED=True, LOGIN_RATE_LIMIT="10 per minute",
        RATELIMIT_STORAGE_URI=storage,
    ))
    client = app.test_client()
    data = {"email": "boss@example.com", "password": "wrong password"}
    print(" ".join(str(client.post("/login", data=data).status_code) for _ in range(attempts)))
    """
)


def other_worker(database_uri: str, storage_uri: str, attempts: int) -> list[int]:
    """Sign-in attempts made by another process: another worker, or another host."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", OTHER_WORKER, database_uri, storage_uri, str(attempts)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [int(code) for code in done.stdout.split()]


@pytest.fixture
def settings(settings, request) -> dict:
    return {**settings, **getattr(request, "param", {})}


@pytest.mark.parametrize("settings", [LIMITED], indirect=True, ids=["10-per-minute"])
def test_two_workers_on_one_database_share_the_sign_in_count(app, database_uri):
    make_supervisor()
    app.test_client_class = RequestClient
    client = app.test_client()
    attempt = {"email": BOSS, "password": "wrong password"}
    assert other_worker(database_uri, "database://", 5) == [200] * 5
    assert [client.post("/login", data=attempt).status_code for _ in range(5)] == [200] * 5
    assert client.post("/login", data=attempt).status_code == 429  # the 11th, across both


@pytest.mark.parametrize("settings", [LIMITED], indirect=True, ids=["10-per-minute"])
def test_the_limiter_counts_in_the_database_by_default(app):
    assert isinstance(limiter.storage, DatabaseStorage)
