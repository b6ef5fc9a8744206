"""Redis gone and back (a redis-server of the test's own, stopped and started again on its
port): the APIs, sign-in and the desk keep answering, rate limits fall back to a count of
each process's own with one log line, an intake file is refused and not kept (or left in
the drop) rather than queued behind an error page, and everything counts and queues in
Redis again by itself once it is back."""

from __future__ import annotations

import io
import logging
import time
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis
from limits import parse
from limits.storage import storage_from_string

from app.extensions import db
from app.jobs import leases
from app.jobs.intake import sweep_intake
from app.models import IntakeLoad
from app.models.types import utcnow
from app.services.intake.folder_drop import FolderDrop
from app.services.intake.runs import NO_WORKER
from app.services.intake.watch import watch_once
from app.web.rate_limit_failover import RETRY_SECONDS, ApiCounts
from tests.admin.conftest import (
    PASSWORD,
    RequestClient,
    make_supervisor,
    page,
    session_for,
    sign_in,
)
from tests.desk.desk_support import desk_sign_in, make_agent
from tests.intake.conftest import tasks_of
from tests.jobs.conftest import run_queued_jobs

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
    [gone] = outage_lines(caplog, "app.web.rate_limit_failover")
    assert "unreachable" in gone and "ConnectionError" in gone

    private_redis.start()  # empty: what it counted before is lost
    assert search(api) == 429  # not tried again yet: still counted here
    clock.now += RETRY_SECONDS
    assert [search(api) for _ in range(API_LIMIT + 1)] == [200] * API_LIMIT + [429]
    assert list(counted_in(private_redis).values()) == [API_LIMIT]
    assert "answers again" in outage_lines(caplog, "app.web.rate_limit_failover")[-1]
    assert len(outage_lines(caplog, "app.web.rate_limit_failover")) == 2


def test_only_an_answer_of_redis_ends_the_per_process_count(private_redis, caplog):
    """A lease taken before the outage still serves its hits, but is no sign that Redis is
    back: only a write that Redis answers switches the count back to it."""
    clock, item = Clock(), parse("1000 per minute")  # leases of 10 hits
    counts = ApiCounts(clock=clock)
    storage = storage_from_string(private_redis.url, key_prefix="outage")
    assert counts.hit(storage, item, "api", "7")[0] and counts.hit(storage, item, "api", "8")[0]
    private_redis.stop()
    assert all(counts.hit(storage, item, "api", "7")[0] for _ in range(10))  # its lease, then here
    assert counts.down_since is not None
    clock.now += RETRY_SECONDS
    assert counts.hit(storage, item, "api", "8")[0]  # from tenant 8's lease: Redis not asked
    assert counts.down_since is not None
    private_redis.start()
    clock.now += RETRY_SECONDS
    assert counts.hit(storage, item, "api", "7")[0]
    assert counts.down_since is None
    lines = outage_lines(caplog, "app.web.rate_limit_failover")
    assert ["unreachable" in lines[0], "answers again" in lines[1], len(lines)] == [True, True, 2]


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
    # Counted in Redis again: once for the client's address, once for the account.
    assert list(counted_in(private_redis).values()) == [1, 1]


# --- Intake files while the job queue is gone ----------------------------------------------

FILE = "Id,Name\nA,Ann\nB,Bob\n"


@pytest.fixture
def intake_app(app, tmp_path):
    """The app, keeping loads' files under this test's tmp_path."""
    app.instance_path = str(tmp_path / "instance")
    return app


def loads_kept(app) -> tuple[list[IntakeLoad], list[str]]:
    """The loads recorded, and the files kept in the intake folder."""
    folder = Path(app.instance_path) / "intake"
    files = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    db.session.expire_all()
    return list(db.session.scalars(db.select(IntakeLoad))), files


def upload(client, campaign):
    url = f"/tenants/{campaign.tenant_id}/campaigns/{campaign.id}/intake"
    return client.post(url, data={"file": (io.BytesIO(FILE.encode()), "tasks.csv")})


def test_an_upload_while_the_queue_is_gone_is_refused_and_not_kept(
    intake_app, client, renewals, private_redis
):
    supervisor = session_for(client, make_supervisor())
    private_redis.stop()
    refused = upload(supervisor, renewals)
    assert refused.status_code == 302  # not an error page
    campaign_page = f"/tenants/{renewals.tenant_id}/campaigns/{renewals.id}"
    assert refused.location == campaign_page
    assert NO_WORKER in page(supervisor, refused.location).get_text(" ", strip=True)
    assert loads_kept(intake_app) == ([], [])

    private_redis.start()
    # Nothing of the refused upload runs later, even once a sweep would take it up.
    assert run_queued_jobs() == 0
    assert sweep_intake(utcnow() + timedelta(hours=1)) == {"requeued": 0, "moved_aside": 0}
    assert tasks_of(renewals) == {}
    # Uploaded again, it is queued once and loaded once.
    accepted = upload(supervisor, renewals)
    assert accepted.status_code == 302 and "/loads/" in accepted.location
    assert run_queued_jobs() == 1
    assert set(tasks_of(renewals)) == {"A", "B"}
    [load], _ = loads_kept(intake_app)
    assert (load.status, load.added) == ("done", 2)


def test_a_dropped_file_waits_in_the_drop_while_the_queue_is_gone(
    intake_app, renewals, private_redis, tmp_path
):
    folder = tmp_path / "drop" / "Acme" / "prod" / "Renewals"
    folder.mkdir(parents=True)
    for name in ("first.csv", "second.csv"):
        (folder / name).write_text(FILE, encoding="utf-8")
    drop = FolderDrop(tmp_path / "drop")
    private_redis.stop()
    [waiting] = watch_once(drop)
    assert (waiting.file, waiting.status) == ("first.csv", "waiting")
    assert sorted(p.name for p in folder.iterdir()) == ["first.csv", "second.csv"]  # unclaimed
    assert loads_kept(intake_app) == ([], [])

    private_redis.start()
    assert [(o.file, o.status) for o in watch_once(drop)] == [
        ("first.csv", "queued"),
        ("second.csv", "queued"),
    ]
    assert run_queued_jobs() == 2
    assert sorted(p.name for p in (folder / "done").iterdir())[0].endswith("first.csv")
    assert set(tasks_of(renewals)) == {"A", "B"}


def test_a_running_jobs_lease_is_kept_alive_through_the_outage(app, private_redis):
    """A running load's heartbeat outlives Redis gone and back (its keys lost with it):
    the lease is stored again, so no other worker takes the load over while it runs."""
    seconds = 0.6  # a beat every 0.2 s
    with leases.held("intake.x", seconds) as mine:
        assert mine
        private_redis.stop()
        time.sleep(seconds)  # beats fail meanwhile
        private_redis.start()  # empty: the lease is gone
        deadline = time.monotonic() + 5
        while not leases.is_held("intake.x") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert leases.is_held("intake.x")
    assert leases.current("intake.x") is None  # released at the end
