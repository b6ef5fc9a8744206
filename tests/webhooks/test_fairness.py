"""Fair between endpoints: one endpoint's backlog, slow receiver or failing receiver does not
hold back another's events; each endpoint's events still go in order."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

from app.services.webhooks.dispatch import dispatch_events
from app.services.webhooks.due_deliveries import Policy, claim_due, deliver_due
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


def _statuses(endpoint) -> list[tuple[str, int]]:
    return [(d.status, d.attempts) for d in deliveries() if d.endpoint_id == endpoint.id]


class LaneClock:
    """A controlled monotonic clock for `deliver_due`'s lanes: each thread (each lane) has
    its own time, which moves only when its receiver spends some; lanes that run side by
    side each see their own sends' time, as on a real clock, without any sleep."""

    def __init__(self) -> None:
        self.local = threading.local()

    def __call__(self) -> float:
        return getattr(self.local, "now", 0.0)

    def spend(self, seconds: float) -> None:
        self.local.now = self() + seconds


class SlowReceiver:
    """Answers `SLOW_URL` after `delay` seconds of the lane's clock (or fails), everything
    else at once. Its first slow answer waits (at most 10 real seconds) until the quick
    endpoint has had `quick_first` events: which it can only get meanwhile when the two
    lanes run side by side."""

    def __init__(self, clock: LaneClock, delay: float, answer: Attempt = OK, quick_first=0):
        self.clock, self.delay, self.answer = clock, delay, answer
        self.log: list[tuple[str, float, int]] = []
        self.lock = threading.Lock()
        self.quick_done = threading.Event()
        self.quick_first = quick_first
        self.quick_before_slow: bool | None = None
        if quick_first == 0:
            self.quick_done.set()

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> Attempt:
        n = json.loads(body)["data"].get("n")
        if url == SLOW_URL:
            if self.quick_before_slow is None:
                self.quick_before_slow = self.quick_done.wait(timeout=10)
            self.clock.spend(self.delay)
        with self.lock:
            self.log.append((url, self.clock(), n))
            if sum(1 for u, _t, _n in self.log if u == QUICK_URL) >= self.quick_first:
                self.quick_done.set()
        return self.answer if url == SLOW_URL else OK


def test_a_slow_receiver_holds_back_only_its_own_lane(acme, globex, clock):
    slow = _backlog(acme, SLOW_URL, 20)
    quick = _backlog(globex, QUICK_URL, 3)
    dispatch_events(clock.now)
    lanes = LaneClock()
    receiver = SlowReceiver(lanes, delay=0.3, quick_first=3)
    policy = Policy(lane_seconds=0.6, per_endpoint=10)
    sent = deliver_due(clock.now, 50, sender=receiver, policy=policy, rand=NO_JITTER, ticker=lanes)
    quick_at = [at for url, at, _n in receiver.log if url == QUICK_URL]
    slow_sent = [n for url, _at, n in receiver.log if url == SLOW_URL]
    # The quick endpoint's three went out while the slow one's first was still on its way.
    assert receiver.quick_before_slow is True
    assert quick_at == [0.0, 0.0, 0.0]
    # The slow lane took no more once its round was 0.6 s old: two sends of 0.3 s...
    assert slow_sent == [0, 1] and sent == 3 + 2
    # ...and what it did not reach is back as it was: pending, not counted as an attempt.
    statuses = _statuses(slow)
    assert statuses[:2] == [("delivered", 1)] * 2
    assert statuses[2:] == [("pending", 0)] * 18
    assert _statuses(quick) == [("delivered", 1)] * 3
    assert {d.next_attempt_at for d in deliveries() if d.status == "pending"} == {clock.now}


def test_a_failing_receiver_holds_back_only_its_own_lane(acme, globex, clock):
    failing = _backlog(acme, SLOW_URL, 5)
    _backlog(globex, QUICK_URL, 1)
    dispatch_events(clock.now)
    lanes = LaneClock()
    receiver = SlowReceiver(
        lanes, delay=1.0, answer=Attempt(error="timeout: read timed out"), quick_first=1
    )
    policy = Policy(lane_seconds=0.5)
    deliver_due(clock.now, 50, sender=receiver, policy=policy, rand=NO_JITTER, ticker=lanes)
    assert receiver.quick_before_slow is True
    assert [at for url, at, _n in receiver.log if url == QUICK_URL] == [0.0]
    # One attempt at the failing receiver, the rest handed back untried.
    assert [s for s, _a in _statuses(failing)] == ["pending"] * 5
    assert [a for _s, a in _statuses(failing)] == [1, 0, 0, 0, 0]


def test_each_endpoint_gets_its_events_in_order_over_the_rounds(acme, globex, clock):
    _backlog(acme, SLOW_URL, 12)
    _backlog(globex, QUICK_URL, 12)
    dispatch_events(clock.now)
    lanes = LaneClock()
    receiver = SlowReceiver(lanes, delay=0.02)
    policy = Policy(lane_seconds=0.05, per_endpoint=5)
    rounds = 0
    while deliver_due(clock.now, 8, sender=receiver, policy=policy, rand=NO_JITTER, ticker=lanes):
        rounds += 1
        assert rounds < 30
    for url in (SLOW_URL, QUICK_URL):
        assert [n for u, _at, n in receiver.log if u == url] == list(range(12))
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
