"""Dispatch and delivery with a controlled clock and a scripted sender: fan-out, backoff,
order per task, replay, and disabling an endpoint that keeps failing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Event
from app.services.actors import Actor
from app.services.webhooks import endpoints
from app.services.webhooks.dispatch import dispatch_events
from app.services.webhooks.due_deliveries import (
    MAX_ATTEMPTS,
    RETRY_SCHEDULE,
    Policy,
    retry_delay,
)
from app.services.webhooks.log import list_deliveries, replay_delivery
from app.services.webhooks.sending import Attempt
from tests.webhooks.conftest import BOSS, deliveries, emit, make_endpoint, run, verified

DOWN = Attempt(status_code=500)


def test_events_go_to_each_enabled_endpoint_of_their_tenant_that_wants_them(
    acme, globex, clock, recorder
):
    every = make_endpoint(acme, "https://all.example/in")
    closed_only = make_endpoint(acme, "https://qa.example/in", types=["task.closed"])
    off = make_endpoint(acme, "https://off.example/in")
    endpoints.disable_endpoint(off, "test", actor=BOSS)
    other = make_endpoint(globex, "https://globex.example/in")
    emit(acme, "task.updated")
    emit(acme, "task.closed", outcome="Sale")
    emit(globex, "task.added", subject="g-1")
    # The closed event waits for the update of the same task at the first endpoint.
    assert run(clock, recorder) == 3
    assert run(clock, recorder) == 1
    sent = sorted((url, body["type"]) for url, body in zip(
        [s[0] for s in recorder.sent], recorder.bodies, strict=True))  # fmt: skip
    assert sent == [
        ("https://all.example/in", "task.closed"),
        ("https://all.example/in", "task.updated"),
        ("https://globex.example/in", "task.added"),
        ("https://qa.example/in", "task.closed"),
    ]
    assert all(e.dispatched_at == clock.now for e in db.session.scalars(select(Event)))
    assert dispatch_events(clock.now) == 0  # each event fans out once
    assert {d.endpoint_id for d in deliveries()} == {every.id, closed_only.id, other.id}


def test_the_body_sent_is_the_payload_and_exactly_what_is_signed(acme, clock, recorder):
    endpoint = make_endpoint(acme)
    emit(acme, "task.updated", workedState="COMPLETED")
    run(clock, recorder)
    (_url, body, headers), = recorder.sent  # fmt: skip
    event = db.session.scalar(select(Event))
    assert verified(endpoint.secret, body, headers) == event.payload
    assert headers["webhook-id"] == event.event_id
    assert headers["Content-Type"] == "application/json"
    assert "PreviewCampaigns" in headers["User-Agent"]


@pytest.mark.parametrize("attempts", range(1, MAX_ATTEMPTS))
def test_each_wait_follows_the_schedule_within_its_jitter(attempts):
    base = RETRY_SCHEDULE[attempts - 1]
    assert retry_delay(attempts, lambda: 0.5) == base
    assert base * 0.9 <= retry_delay(attempts, lambda: 0.0) < base
    assert base < retry_delay(attempts, lambda: 0.999) <= base * 1.1


def test_retries_back_off_over_more_than_a_day_then_the_delivery_is_dead(acme, clock, recorder):
    make_endpoint(acme)
    emit(acme)
    recorder.default = DOWN
    start, tried_at = clock.now, []
    for _ in range(40):
        if run(clock, recorder):
            tried_at.append(clock.now - start)
        clock.advance(seconds=5)
    while deliveries()[0].status == "pending":
        clock.now = deliveries()[0].next_attempt_at
        run(clock, recorder)
        tried_at.append(clock.now - start)
    waits = [later - earlier for earlier, later in zip(tried_at, tried_at[1:], strict=False)]
    assert len(tried_at) == MAX_ATTEMPTS == 8
    assert waits[0] == timedelta(seconds=5) and waits[1:] == list(RETRY_SCHEDULE[1:])
    assert tried_at[-1] > timedelta(days=1)
    dead = deliveries()[0]
    assert (dead.status, dead.attempts, dead.next_attempt_at) == ("failed", 8, None)
    assert dead.last_error == "HTTP 500" and dead.last_status_code == 500


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (Attempt(status_code=301), "HTTP 301: redirects are not followed"),
        (Attempt(status_code=307), "HTTP 307: redirects are not followed"),
        (Attempt(status_code=404), "HTTP 404"),
        (Attempt(status_code=410), "HTTP 410"),
        (Attempt(status_code=199), "HTTP 199"),
        (Attempt(error="timeout: read timed out"), "timeout: read timed out"),
    ],
)
def test_anything_but_a_2xx_is_a_failure_retried_later(acme, clock, recorder, answer, error):
    make_endpoint(acme)
    emit(acme)
    recorder.answers = [answer]
    run(clock, recorder)
    failed = deliveries()[0]
    assert (failed.status, failed.last_error) == ("pending", error)
    assert failed.next_attempt_at == clock.now + timedelta(seconds=5)


def test_a_receiver_down_for_hours_gets_every_event_afterwards_in_order_per_task(
    acme, clock, recorder
):
    make_endpoint(acme)
    for n in range(3):
        emit(acme, "task.updated", subject="rec-A", n=n)
        emit(acme, "task.updated", subject="rec-B", n=n)
    recorder.default = DOWN
    for _ in range(12):  # six hours of trying
        run(clock, recorder)
        clock.advance(minutes=30)
    # Only the first event of each task was tried: the later ones wait behind it.
    assert {b["data"]["n"] for b in recorder.bodies} == {0}
    recorder.default, recorder.sent = Attempt(status_code=200), []
    for _ in range(10):
        clock.advance(hours=2)
        run(clock, recorder)
    by_task = {
        task: [b["data"]["n"] for b in recorder.bodies if b["data"]["previewRecordID"] == task]
        for task in ("rec-A", "rec-B")
    }
    assert by_task == {"rec-A": [0, 1, 2], "rec-B": [0, 1, 2]}
    assert {d.status for d in deliveries()} == {"delivered"}


def test_a_dead_delivery_no_longer_holds_back_the_next_event_of_its_task(acme, clock, recorder):
    make_endpoint(acme)
    emit(acme, subject="rec-A", n=0)
    recorder.default = DOWN
    while not deliveries() or deliveries()[0].status != "failed":
        run(clock, recorder)
        clock.advance(hours=10)
    emit(acme, subject="rec-A", n=1)
    recorder.default, recorder.sent = Attempt(status_code=200), []
    run(clock, recorder)
    assert [b["data"]["n"] for b in recorder.bodies] == [1]


def test_replay_sends_the_same_event_again_with_the_same_webhook_id(acme, clock, recorder):
    endpoint = make_endpoint(acme)
    emit(acme)
    run(clock, recorder)
    delivery = deliveries()[0]
    replay_delivery(endpoint, delivery.id, actor=BOSS, now=clock.now)
    db.session.commit()
    run(clock, recorder)
    assert len(recorder.ids) == 2 and recorder.ids[0] == recorder.ids[1]
    assert recorder.bodies[0] == recorder.bodies[1]
    assert list_deliveries(endpoint, 10)[0].delivery.status == "delivered"
    audit = db.session.scalars(select(AuditRecord.action)).all()
    assert "webhook_delivery.replayed" in audit


def test_an_endpoint_failing_for_days_is_disabled_with_a_reason(acme, clock, recorder):
    endpoint = make_endpoint(acme)
    recorder.default = DOWN
    policy = Policy(disable_after=timedelta(days=5))
    for day in range(7):
        emit(acme, subject=f"rec-{day}")
        for _ in range(6):
            run(clock, recorder, policy=policy)
            clock.advance(hours=4)
        db.session.refresh(endpoint)
        assert endpoint.enabled == (day < 5), day
    assert "every delivery has failed since 2026-03-02 09:00 UTC" in endpoint.disabled_reason
    trail = db.session.scalar(
        select(AuditRecord).where(AuditRecord.action == "webhook_endpoint.disabled")
    )
    assert (trail.actor_kind, trail.actor_id) == ("system", "webhook-failing")
    attempts = len(recorder.sent)
    emit(acme, subject="rec-late")
    clock.advance(days=1)
    run(clock, recorder, policy=policy)
    assert len(recorder.sent) == attempts  # a disabled endpoint is sent nothing


def test_one_success_resets_the_failing_clock(acme, clock, recorder):
    endpoint = make_endpoint(acme)
    emit(acme)
    recorder.answers = [DOWN]
    run(clock, recorder)
    db.session.refresh(endpoint)
    assert endpoint.failing_since == clock.now
    clock.advance(seconds=5)
    run(clock, recorder)
    db.session.refresh(endpoint)
    assert endpoint.failing_since is None


def test_re_enabling_retries_pending_deliveries_at_once(acme, clock, recorder):
    endpoint = make_endpoint(acme)
    emit(acme)
    recorder.answers = [DOWN]
    run(clock, recorder)
    endpoints.disable_endpoint(endpoint, "x", actor=Actor.system("webhook-failing"))
    db.session.commit()
    endpoints.enable_endpoint(endpoint, actor=BOSS, now=clock.now)
    db.session.commit()
    assert endpoint.disabled_reason is None and endpoint.failing_since is None
    assert deliveries()[0].next_attempt_at == clock.now  # not at the end of its backoff
    assert run(clock, recorder) == 1
