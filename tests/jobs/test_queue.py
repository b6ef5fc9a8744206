"""The queue the settings choose (SQLite file 0600, Redis, in the caller), leases, the
clock's tick and its periodic work, and the worker command."""

from __future__ import annotations

import os
import stat
import time
from datetime import UTC, datetime

import pytest
from huey.storage import MemoryStorage, RedisStorage, SqliteStorage

from app import create_app
from app.config import test_settings as settings_for
from app.jobs import clock, huey, leases
from app.jobs.queue import job_context


def test_the_queue_is_a_private_sqlite_file_by_default(database_uri, tmp_path):
    app = create_app(
        settings_for(database_uri, WORKER_IMMEDIATE=False, WORKER_DB=str(tmp_path / "q/w.db"))
    )
    assert isinstance(huey.storage, SqliteStorage)
    assert huey.storage.filename == str(tmp_path / "q/w.db")
    assert stat.S_IMODE(os.stat(tmp_path / "q/w.db").st_mode) == 0o600
    assert huey.name == app.config["WORKER_QUEUE_NAME"] == "preview-service"


def test_the_default_queue_file_is_in_the_instance_folder(database_uri, tmp_path, monkeypatch):
    monkeypatch.setattr("app.INSTANCE_PATH", tmp_path / "inst")
    create_app(settings_for(database_uri, WORKER_IMMEDIATE=False))
    assert huey.storage.filename == str(tmp_path / "inst/worker.db")


def test_redis_url_puts_the_queue_in_redis(database_uri):
    create_app(
        settings_for(database_uri, WORKER_IMMEDIATE=False, REDIS_URL="redis://127.0.0.1:6379/0")
    )
    assert isinstance(huey.storage, RedisStorage)
    # A Redis gone silent holds whoever queues a job no longer than REDIS_TIMEOUT_SECONDS
    # (and the worker's 1-second wait for a job).
    connecting = huey.storage.pool.connection_kwargs
    assert (connecting["socket_connect_timeout"], connecting["socket_timeout"]) == (2.0, 3.0)


def test_the_tests_run_jobs_in_the_caller(app):
    assert huey.immediate
    assert isinstance(huey.storage, MemoryStorage)


def test_a_lease_is_held_once(app):
    with leases.held("x", 60) as first:
        assert first
        with leases.held("x", 60) as second:
            assert not second
    with leases.held("x", 60) as again:
        assert again


@pytest.mark.parametrize(
    ("lease", "taken_over"),
    [
        ({"host": leases.HOST, "pid": os.getpid(), "until": 60}, False),
        ({"host": leases.HOST, "pid": 2**22 + 7, "until": 60}, True),
        ({"host": "elsewhere", "pid": 1, "until": 60}, False),
        ({"host": "elsewhere", "pid": 1, "until": -1}, True),
    ],
    ids=["live here", "process gone", "live elsewhere", "heartbeat too old"],
)
def test_a_dead_holders_lease_is_taken_over(app, lease, taken_over):
    huey.put("lease.x", {**lease, "until": time.time() + lease["until"], "token": "theirs"})
    with leases.held("x", 60) as mine:
        assert mine == taken_over


@pytest.fixture
def work(monkeypatch):
    """The clock's lists of work, replaced by recorders."""
    done: dict[str, list] = {"tick": [], "minute": [], "day": []}

    def recorder(name):
        def record(now):
            done[name].append(now)

        record.__name__ = name
        return record

    monkeypatch.setattr(clock, "EVERY_TICK", [recorder("tick")])
    monkeypatch.setattr(clock, "EVERY_MINUTE", [recorder("minute")])
    monkeypatch.setattr(clock, "EVERY_DAY", [recorder("day")])
    return done


def test_a_tick_runs_the_tick_work_and_an_old_chain_stops(app, work):
    first = clock.start_clock()
    assert len(work["tick"]) == 1
    assert clock.tick_age() < 5
    second = clock.start_clock()
    clock.tick(first)  # the older chain's next tick does nothing
    assert len(work["tick"]) == 2
    clock.tick(second)
    assert len(work["tick"]) == 3


def test_the_minute_restarts_a_stopped_tick(app, work):
    clock.start_clock()
    clock.every_minute()
    assert (len(work["tick"]), len(work["minute"])) == (1, 1)  # the tick is recent
    huey.put(clock.BEAT, time.time() - 3600)
    clock.every_minute()
    assert (len(work["tick"]), len(work["minute"])) == (2, 2)


def test_failing_work_is_logged_and_the_rest_runs(app, caplog):
    def broken(now):
        raise RuntimeError("boom")

    def fine(now):
        return "ok"

    assert clock.run_all([broken, fine], datetime.now(UTC)) == {"fine": "ok"}
    assert "Worker job broken failed" in caplog.text


@pytest.mark.parametrize(
    ("task", "moment", "runs"),
    [
        (clock.every_minute, datetime(2026, 1, 1, 10, 41), True),
        (clock.every_day, datetime(2026, 1, 1, 3, 17), True),
        (clock.every_day, datetime(2026, 1, 1, 3, 18), False),
        (clock.every_day, datetime(2026, 1, 1, 4, 17), False),
    ],
)
def test_the_periodic_schedule(task, moment, runs):
    assert task.task_class().validate_datetime(moment) is runs


def test_the_clock_delivers_webhooks_each_tick_and_prunes_the_audit_and_marks_daily():
    assert clock.deliver_webhooks in clock.EVERY_TICK
    assert clock.prune_audit_records in clock.EVERY_DAY
    assert clock.prune_marks in clock.EVERY_DAY


def test_the_scheduled_work_runs_in_the_app(app, monkeypatch):
    seen = {}

    def run_once(now):
        seen.setdefault("w", now)
        return {"dispatched": 0, "attempted": 0}

    monkeypatch.setattr("app.jobs.clock.run_once", run_once)
    monkeypatch.setattr("app.jobs.clock.prune_audit", lambda now: seen.setdefault("a", now))
    now = datetime.now(UTC)
    with job_context():
        clock.run_all([clock.deliver_webhooks, clock.prune_audit_records], now)
    assert seen == {"w": now, "a": now}


def test_a_tick_drains_the_webhook_work_waiting(app, monkeypatch):
    """After a large load thousands of events wait: a tick goes on while rounds find work."""
    rounds = [{"dispatched": 500, "attempted": 0}, {"dispatched": 20, "attempted": 50},
              {"dispatched": 0, "attempted": 3}, {"dispatched": 0, "attempted": 0}]  # fmt: skip
    monkeypatch.setattr("app.jobs.clock.run_once", lambda now: rounds.pop(0))
    assert clock.deliver_webhooks(datetime.now(UTC)) == {"dispatched": 520, "attempted": 53}
    assert rounds == []


def test_the_worker_command_refuses_to_run_jobs_in_the_caller(runner):
    result = runner.invoke(args=["worker"])
    assert result.exit_code == 1
    assert "WORKER_IMMEDIATE" in result.output
