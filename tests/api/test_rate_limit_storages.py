"""API_RATE_LIMIT admits exactly its limit in a window, on every storage it counts in (the
app's database, Redis), from one client and from several at once: threads of one
process, and processes of their own (app instances, each with its own leases)."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from limits import parse

from app import create_app
from app.extensions import db
from app.web.rate_limits import LEASE_OF_LIMIT
from tests.conftest import Api

# Leases of LIMIT // LEASE_OF_LIMIT = 2 hits while the window has room, then of one.
LIMIT = 200
REQUESTS = 260
RULE = f"{LIMIT} per minute"


@pytest.fixture(params=["database", "redis"])
def storage(request) -> dict:
    """The settings of the storage the limit counts in."""
    if request.param == "database":
        return {"RATELIMIT_STORAGE_URI": "database://"}
    url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
    return {"RATELIMIT_STORAGE_URI": url, "RATELIMIT_STORAGE_OPTIONS": {"key_prefix": prefix}}


@pytest.fixture
def settings(settings, storage) -> dict:
    return {**settings, "RATELIMIT_ENABLED": True, "API_RATE_LIMIT": RULE, **storage}


def search(api: Api) -> int:
    return api.post("searchPreviewCampaign", clientId="C1").status_code


def send(apis: list[Api], requests: int, threads: int) -> Counter:
    """`requests` searches spread over `apis` (one per process), `threads` at a time."""

    def one(n: int) -> int:
        return search(apis[n % len(apis)])

    if threads == 1:
        return Counter(one(n) for n in range(requests))
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return Counter(pool.map(one, range(requests)))


@pytest.fixture
def processes(app, api, settings):
    """Two more app instances on the same database and storage: other worker processes,
    each counting from leases of its own."""
    others = [create_app(settings) for _ in range(2)]
    yield [api] + [
        Api(other.test_client(), api.company, api.environment, api.region, api.key)
        for other in others
    ]
    for other in others:
        with other.app_context():
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()


def test_leases_here_hold_more_than_one_hit():
    """The premise of these tests: a process's lease holds several hits, so a lease lost
    would show in the count."""
    assert parse(RULE).amount // LEASE_OF_LIMIT > 1


def test_one_client_gets_exactly_the_limit(api):
    assert send([api], REQUESTS, threads=1) == {200: LIMIT, 429: REQUESTS - LIMIT}


def test_clients_at_once_in_one_process_get_exactly_the_limit(api):
    assert send([api], REQUESTS, threads=8) == {200: LIMIT, 429: REQUESTS - LIMIT}


def test_clients_at_once_in_several_processes_get_exactly_the_limit(processes):
    assert send(processes, REQUESTS, threads=9) == {200: LIMIT, 429: REQUESTS - LIMIT}
