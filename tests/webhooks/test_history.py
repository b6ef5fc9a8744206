"""An endpoint gets the events that happen once it exists, not the backlog from before (an
endpoint added while the worker was down got 18,501 older events); older ones only by a
replay from a time, asked for on its page or from the shell."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Event, WebhookEndpoint
from app.models.types import utcnow
from app.services.errors import InvalidInput
from app.services.webhooks import endpoints
from app.services.webhooks.dispatch import dispatch_events
from app.services.webhooks.log import parse_since, replay_since
from tests.webhooks.conftest import BOSS, deliveries, emit, make_endpoint, run


def _later() -> None:
    time.sleep(0.005)  # the next row's stamp (milliseconds) is later than the last one's


def _sent(recorder) -> list[str]:
    return [body["data"]["previewRecordID"] for body in recorder.bodies]


def test_an_endpoint_added_while_the_worker_was_down_gets_only_later_events(acme, clock, recorder):
    for n in range(30):
        emit(acme, "task.added", subject=f"old-{n}")  # waiting in the outbox: no worker
    _later()
    make_endpoint(acme)
    _later()
    emit(acme, "task.added", subject="new-1")
    run(clock, recorder)
    assert _sent(recorder) == ["new-1"]
    assert len(deliveries()) == 1


def test_an_endpoint_added_later_does_not_get_dispatched_older_events_either(acme, clock, recorder):
    emit(acme, subject="before")
    dispatch_events(clock.now)
    _later()
    make_endpoint(acme)
    assert run(clock, recorder) == 0 and deliveries() == []


def test_a_replay_from_a_time_queues_the_missing_events_since_then_oldest_first(
    acme, globex, clock, recorder
):
    emit(acme, "task.added", subject="too-old")
    _later()
    since = utcnow()
    _later()
    emit(acme, "task.added", subject="old-1")
    emit(acme, "task.closed", subject="old-2")  # a type it does not want
    emit(globex, "task.added", subject="theirs")
    dispatch_events(clock.now)
    emit(acme, "task.added", subject="old-3")  # not dispatched yet (the worker is down)
    _later()
    endpoint = make_endpoint(acme, types=["task.added", "task.updated"])
    _later()
    emit(acme, "task.updated", subject="new-1")
    assert replay_since(endpoint, since, actor=BOSS, now=clock.now) == 2
    db.session.commit()
    for _ in range(3):
        run(clock, recorder)
    assert _sent(recorder) == ["old-1", "old-3", "new-1"]
    # Asking again adds nothing: each event once per endpoint.
    assert replay_since(endpoint, since, actor=BOSS) == 0
    db.session.commit()
    trail = db.session.scalars(
        select(AuditRecord).where(AuditRecord.action == "webhook_endpoint.replayed_since")
    ).all()
    assert [r.after["events"] for r in trail] == [2, 0]
    assert trail[0].after["since"] == since.isoformat(timespec="seconds")


def test_a_replay_fills_in_what_happened_while_the_endpoint_was_disabled(acme, clock, recorder):
    endpoint = make_endpoint(acme)
    since = utcnow()
    endpoints.disable_endpoint(endpoint, "maintenance", actor=BOSS)
    db.session.commit()
    emit(acme, subject="while-off")
    run(clock, recorder)
    endpoints.enable_endpoint(endpoint, actor=BOSS)
    db.session.commit()
    assert replay_since(endpoint, since, actor=BOSS, now=clock.now) == 1
    db.session.commit()
    run(clock, recorder)
    assert _sent(recorder) == ["while-off"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-01T09:00", datetime(2026, 3, 1, 9, 0, tzinfo=UTC)),
        ("2026-03-01 09:00:30", datetime(2026, 3, 1, 9, 0, 30, tzinfo=UTC)),
        ("2026-03-01T10:00+01:00", datetime(2026, 3, 1, 9, 0, tzinfo=UTC)),
        ("2026-03-01T09:00Z", datetime(2026, 3, 1, 9, 0, tzinfo=UTC)),
        ("2026-03-01", datetime(2026, 3, 1, tzinfo=UTC)),
    ],
)
def test_a_replay_start_is_iso_8601_in_utc_unless_told(text, expected):
    assert parse_since(text, now=datetime(2026, 3, 2, tzinfo=UTC)) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "date and time"), ("yesterday", "date and time"), ("2026-13-01", "date and time"),
     ("2026-03-03T00:00", "future")],
)  # fmt: skip
def test_a_bad_replay_start_is_refused(text, reason):
    with pytest.raises(InvalidInput, match=f"^since .*{reason}"):
        parse_since(text, now=datetime(2026, 3, 2, tzinfo=UTC))


def test_the_shell_adds_with_a_replay_or_replays_later(runner, acme):
    emit(acme, subject="old-1")
    dispatch_events(utcnow())
    since = (utcnow() - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S")
    _later()
    plain = runner.invoke(args=["webhook", "add", "Acme", "prod", "https://a.example/in"])
    assert plain.exit_code == 0 and "receives the events from" in plain.output
    added = runner.invoke(
        args=["webhook", "add", "Acme", "prod", "https://b.example/in", "--replay-from", since]
    )
    assert added.exit_code == 0 and "with 1 earlier event(s)" in added.output
    first = db.session.scalar(select(WebhookEndpoint).order_by(WebhookEndpoint.id))
    later = runner.invoke(
        args=["webhook", "replay", "Acme", "prod", str(first.id), "--since", since]
    )
    assert later.exit_code == 0 and "Queued 1 event(s)" in later.output
    assert sorted(d.endpoint_id for d in deliveries()) == [first.id, first.id + 1]
    refused = runner.invoke(
        args=["webhook", "replay", "Acme", "prod", str(first.id), "--since", "soon"]
    )
    assert refused.exit_code != 0 and len(refused.output.strip().splitlines()) == 1
    assert "since must be a date and time" in refused.output
    assert db.session.scalar(select(Event.id)) is not None
