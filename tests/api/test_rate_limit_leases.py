"""The API limit counted from leases (app/web/rate_limits.py): few writes, and all processes
together never admitting more than the limit in a window."""

from __future__ import annotations

import pytest
from limits import parse
from limits.storage import storage_from_string

from app.extensions import db
from app.web.rate_limits import LEASE_OF_LIMIT, Leases
from tests.conftest import Api


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Counted:
    """A storage that counts its writes."""

    def __init__(self, storage) -> None:
        self.storage, self.writes = storage, 0
        self.clock = storage.clock

    def incr_window(self, key: str, expiry: float, amount: int = 1) -> tuple[int, float]:
        self.writes += 1
        return self.storage.incr_window(key, expiry, amount)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def storage(app, clock):
    return storage_from_string("database://", clock=clock)


def hits(leases: Leases, storage, limit: str, times: int) -> list[bool]:
    item = parse(limit)
    return [leases.hit(storage, item, "api", "7")[0] for _ in range(times)]


def test_far_from_the_limit_a_process_writes_once_per_lease(storage):
    counted = Counted(storage)
    assert hits(Leases(), counted, "1000 per minute", 25) == [True] * 25
    assert counted.writes == 3  # leases of 1000 / LEASE_OF_LIMIT hits
    assert storage.get(parse("1000 per minute").key_for("api", "7")) == 3 * 1000 // LEASE_OF_LIMIT


@pytest.mark.parametrize("limit", [3, 100, 1000, 5000])
def test_processes_sharing_a_count_admit_exactly_the_limit_together(storage, limit):
    processes = [Leases() for _ in range(3)]
    admitted = 0
    for _ in range(limit + 50):  # each process hits in turn until all are refused
        admitted += sum(hits(leases, storage, f"{limit} per minute", 1)[0] for leases in processes)
    assert admitted == limit


def test_a_used_up_window_refuses_without_writing_then_a_new_one_admits(storage, clock):
    counted = Counted(storage)
    leases = Leases()
    assert hits(leases, counted, "3 per minute", 4) == [True, True, True, False]
    writes = counted.writes
    within, ends_at = leases.hit(counted, parse("3 per minute"), "api", "7")
    assert (within, ends_at, counted.writes) == (False, clock.now + 60, writes)
    clock.now += 60
    assert hits(leases, counted, "3 per minute", 1) == [True]


def test_leases_of_a_window_that_ended_are_not_used(storage, clock):
    leases = Leases()
    assert hits(leases, storage, "1000 per minute", 1) == [True]  # a lease of 10 hits
    clock.now += 61
    assert hits(leases, storage, "1000 per minute", 1) == [True]
    assert storage.get(parse("1000 per minute").key_for("api", "7")) == 10  # a new window


class Drifting(Counted):
    """A storage that tells a window's end a millisecond later at each write, as one that
    counts down the window's time to live (Redis) does."""

    def incr_window(self, key: str, expiry: float, amount: int = 1) -> tuple[int, float]:
        count, ends_at = super().incr_window(key, expiry, amount)
        return count, ends_at + self.writes / 1000


def test_leases_taken_at_once_from_one_window_are_all_used(storage):
    """Two threads take leases at once and the storage tells their window's end apart:
    both leases stay this process's, none is dropped for the other."""
    drifting, leases, item = Drifting(storage), Leases(), parse("1000 per minute")
    taken_meanwhile = []

    def another_thread_takes_one() -> None:
        if not taken_meanwhile:
            taken_meanwhile.append(leases.hit(drifting, item, "api", "7")[0])

    assert leases.hit(drifting, item, "api", "7", before_writing=another_thread_takes_one)[0]
    lease = 1000 // LEASE_OF_LIMIT
    assert all(leases.hit(drifting, item, "api", "7")[0] for _ in range(2 * lease - 2))
    assert drifting.writes == 2  # the hits both leases held, without a third


LIMITED = {"RATELIMIT_ENABLED": True, "API_RATE_LIMIT": "3 per minute"}


def search(api: Api):
    return api.post("searchPreviewCampaign", clientId="C1")


@pytest.fixture
def settings(settings) -> dict:
    return {**settings, **LIMITED}


def test_two_app_instances_on_one_database_share_the_tenant_count(app, api, settings):
    from app import create_app

    other = create_app(settings)  # another worker: leases of its own, the same count
    with other.app_context():
        other_api = Api(other.test_client(), api.company, api.environment, api.region, api.key)
        assert [search(other_api).status_code for _ in range(2)] == [200, 200]
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
    assert search(api).status_code == 200
    assert search(api).status_code == 429
