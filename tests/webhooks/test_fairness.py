"""Fair between endpoints: one endpoint's backlog, slow receiver or failing receiver does not
hold back another's events; each endpoint's events still go in order."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta

from app.services.webhooks.delivery import Policy, claim_due, deliver_due
from app.services.webhooks.dispatch import dispatch_events
from app.services.webhooks.sending import Attempt
from tests.webhooks.conftest import NO_JITTER, deliveries, emit, make_endpoint, make_tenant

LEASE = timedelta(seconds=60)
OK = Attempt(status_code=200)
SLOW_URL, QUICK_URL = "https://slow.example/in", "https://quick.example/in"


def _backlog(tenant, url: str, events: int):
    endpoint = make_endpoint(tenant, url)
    for n in range(events):
        emit(tenant, subject=f"{url}-{n}", n=n)
    return endpoint


def test_a_backlog_does_not_keep_another_endpoints_first_event_out_of_the_round(
    acme, globex, clock
):
    busy = _backlog(acme, SLOW_URL, 200)
    quiet = make_endpoint(globex, QUICK_URL)
    emit(globex, subject="g-1")  # after the 200, the newest event of all
    dispatch_events(clock.now)
    claims = claim_due(clock.now, 50, LEASE, per_endpoint=10)
    taken = [c.endpoint_id for c in claims]
    assert taken.count(quiet.id) == 1 and taken.count(busy.id) == 10


def test_a_round_takes_each_endpoints_oldest_first_round_robin(acme, clock):
    lanes = [_backlog(acme, f"https://r{n}.example/in", 0) for n in range(3)]
    for n in range(5):
        emit(acme, subject=f"rec-{n}")  # each event goes to the three endpoints
    dispatch_events(clock.now)
    claims = claim_due(clock.now, 6, LEASE, per_endpoint=10)
    assert [c.endpoint_id for c in claims].count(lanes[0].id) == 2
    taken = [c.payload["data"]["previewRecordID"] for c in claims]
    assert taken == ["rec-0"] * 3 + ["rec-1"] * 3


class SlowReceiver:
    """Answers `slow_url` after `delay` seconds (or fails), everything else at once; keeps
    when each request started and ended."""

    def __init__(self, delay: float, answer: Attempt = OK) -> None:
        self.delay, self.answer = delay, answer
        self.log: list[tuple[str, float, float, int]] = []
        self.lock = threading.Lock()

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> Attempt:
        begun = time.monotonic()
        if url == SLOW_URL:
            time.sleep(self.delay)
        with self.lock:
            self.log.append((url, begun, time.monotonic(), json.loads(body)["data"].get("n")))
        return self.answer if url == SLOW_URL else OK


def _statuses(endpoint) -> list[tuple[str, int]]:
    return [(d.status, d.attempts) for d in deliveries() if d.endpoint_id == endpoint.id]


def test_a_slow_receiver_holds_back_only_its_own_lane(acme, globex, clock):
    slow = _backlog(acme, SLOW_URL, 20)
    quick = _backlog(globex, QUICK_URL, 3)
    dispatch_events(clock.now)
    receiver = SlowReceiver(delay=0.3)
    policy = Policy(lane_seconds=0.6, per_endpoint=10)
    started = time.monotonic()
    sent = deliver_due(clock.now, 50, sender=receiver, policy=policy, rand=NO_JITTER)
    took = time.monotonic() - started
    quick_ends = [end - started for url, _b, end, _n in receiver.log if url == QUICK_URL]
    slow_sent = [n for url, _b, _e, n in receiver.log if url == SLOW_URL]
    # The quick endpoint's three went out side by side with the slow one's first.
    assert len(quick_ends) == 3 and max(quick_ends) < 0.3
    # The slow lane stopped taking more once the round was 0.6 s old (about 2 sends)...
    assert 1 <= len(slow_sent) <= 4 and slow_sent == list(range(len(slow_sent)))
    assert sent == 3 + len(slow_sent) and took < 0.6 + 0.3 + 0.5
    # ...and what it did not reach is back as it was: pending, not counted as an attempt.
    statuses = _statuses(slow)
    assert statuses[: len(slow_sent)] == [("delivered", 1)] * len(slow_sent)
    assert statuses[len(slow_sent) :] == [("pending", 0)] * (20 - len(slow_sent))
    assert _statuses(quick) == [("delivered", 1)] * 3
    assert {d.next_attempt_at for d in deliveries() if d.status == "pending"} == {clock.now}


def test_a_failing_receiver_holds_back_only_its_own_lane(acme, globex, clock):
    failing = _backlog(acme, SLOW_URL, 5)
    _backlog(globex, QUICK_URL, 1)
    dispatch_events(clock.now)
    receiver = SlowReceiver(delay=1.0, answer=Attempt(error="timeout: read timed out"))
    deliver_due(clock.now, 50, sender=receiver, policy=Policy(lane_seconds=0.5), rand=NO_JITTER)
    quick = [end - begun for url, begun, end, _n in receiver.log if url == QUICK_URL]
    assert len(quick) == 1 and quick[0] < 0.5
    # One attempt at the failing receiver, the rest handed back untried.
    assert [s for s, _a in _statuses(failing)] == ["pending"] * 5
    assert [a for _s, a in _statuses(failing)] == [1, 0, 0, 0, 0]


def test_each_endpoint_gets_its_events_in_order_over_the_rounds(acme, globex, clock):
    _backlog(acme, SLOW_URL, 12)
    _backlog(globex, QUICK_URL, 12)
    dispatch_events(clock.now)
    receiver = SlowReceiver(delay=0.01)
    policy = Policy(lane_seconds=0.05, per_endpoint=5)
    for _ in range(30):
        if not deliver_due(clock.now, 8, sender=receiver, policy=policy, rand=NO_JITTER):
            break
    for url in (SLOW_URL, QUICK_URL):
        assert [n for u, _b, _e, n in receiver.log if u == url] == list(range(12))
    # Handed back and taken again, each was still sent once: one attempt each.
    assert {(d.status, d.attempts) for d in deliveries()} == {("delivered", 1)}


def test_endpoints_whose_deliveries_all_wait_in_backoff_take_no_place_in_the_round(
    app, clock, recorder
):
    for n in range(3):  # three receivers down: one event each tried, the next one waits
        tenant = make_tenant(f"Down{n}")
        make_endpoint(tenant, f"https://down{n}.example/in")
        emit(tenant, subject="rec-1", n=0)
        emit(tenant, subject="rec-1", n=1)
    dispatch_events(clock.now)
    recorder.default = Attempt(status_code=503)
    assert deliver_due(clock.now, 10, sender=recorder, rand=NO_JITTER) == 3
    healthy = make_tenant("Up")
    up = make_endpoint(healthy, QUICK_URL)
    emit(healthy, subject="u-1")
    dispatch_events(clock.now)
    # A round of 2 places: the waiting ones are older, but only the healthy one can go.
    assert [c.endpoint_id for c in claim_due(clock.now, 2, LEASE)] == [up.id]
