"""Claims and leases: workers never send one delivery at once, and a worker killed
mid-send loses nothing (the delivery is sent again when its lease runs out)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from app.extensions import db
from app.services.errors import Conflict
from app.services.webhooks.dispatch import dispatch_events
from app.services.webhooks.due_deliveries import claim_due, deliver_due
from app.services.webhooks.log import replay_delivery
from tests.webhooks.conftest import BOSS, deliveries, emit, make_endpoint, make_tenant, run


def test_a_claimed_delivery_is_not_claimed_again_until_its_lease_ends(acme, clock, recorder):
    one = make_endpoint(acme, "https://one.example/in")
    emit(acme, subject="rec-A")
    emit(acme, subject="rec-B")
    dispatch_events(clock.now)
    other = make_endpoint(acme, "https://other.example/in")
    emit(acme, subject="rec-C")
    dispatch_events(clock.now)
    lease = timedelta(seconds=60)
    first = claim_due(clock.now, 1, lease)
    second = claim_due(clock.now, 10, lease)  # another worker, at the same moment
    # One lane per endpoint: the first endpoint's next delivery waits for its lane.
    assert [c.endpoint_id for c in first] == [one.id]
    assert [c.endpoint_id for c in second] == [other.id]
    assert claim_due(clock.now, 10, lease) == []
    # The worker holding the first was killed mid-send: after the lease it is due again.
    clock.advance(seconds=61)
    again = claim_due(clock.now, 10, lease)
    by_endpoint = {(c.endpoint_id, c.attempts) for c in again}
    assert by_endpoint == {(one.id, 2), (one.id, 1), (other.id, 2)}
    assert again[0].event_id == first[0].event_id


def test_a_worker_killed_mid_send_loses_nothing(acme, clock, recorder):
    make_endpoint(acme)
    emit(acme)

    def killed(url, body, headers):
        raise KeyboardInterrupt  # the process dies between the claim and the outcome

    dispatch_events(clock.now)
    with pytest.raises(KeyboardInterrupt):
        deliver_due(clock.now, 10, sender=killed)
    db.session.rollback()
    assert run(clock, recorder) == 0  # still leased
    clock.advance(seconds=61)
    assert run(clock, recorder) == 1
    assert deliveries()[0].status == "delivered"


def test_a_delivery_in_flight_cannot_be_replayed(acme, clock):
    endpoint = make_endpoint(acme)
    emit(acme)
    dispatch_events(clock.now)
    claim_due(clock.now, 10, timedelta(seconds=60))
    with pytest.raises(Conflict):
        replay_delivery(endpoint, deliveries()[0].id, actor=BOSS, now=clock.now)


def test_workers_claiming_at_the_same_time_never_share_a_delivery(app, clock):
    for n in range(40):  # one lane per endpoint: as many endpoints, so that all may claim
        tenant = make_tenant(f"T{n}")
        make_endpoint(tenant, f"https://r{n}.example/in")
        emit(tenant, subject=f"rec-{n}")
    dispatch_events(clock.now)
    claimed: list[list[int]] = []
    start = threading.Barrier(4)

    def worker() -> None:
        mine = []
        with app.app_context():
            start.wait()
            while batch := claim_due(clock.now, 3, timedelta(seconds=60)):
                mine += [c.delivery_id for c in batch]
            db.session.remove()
        claimed.append(mine)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    every = [i for mine in claimed for i in mine]
    assert len(claimed) == 4 and sorted(every) == sorted(d.id for d in deliveries())


def test_a_lost_workers_whole_batch_is_due_again_after_one_lease(acme, clock):
    """Each claimed delivery is reserved for one lease, not the lease times its place in
    the batch (which kept the 50th of a dead worker's batch away for 50 minutes)."""
    make_endpoint(acme)
    for n in range(50):
        emit(acme, subject=f"rec-{n}")
    dispatch_events(clock.now)
    lease = timedelta(seconds=60)
    lost = claim_due(clock.now, 50, lease)  # the worker holding these dies here
    assert len(lost) == 50
    assert {d.next_attempt_at for d in deliveries()} == {clock.now + lease}
    clock.advance(seconds=59)
    assert claim_due(clock.now, 50, lease) == []
    clock.advance(seconds=2)
    again = claim_due(clock.now, 50, lease)
    assert sorted(c.delivery_id for c in again) == sorted(c.delivery_id for c in lost)
