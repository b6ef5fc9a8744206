"""Real worker processes, killed with SIGKILL mid-job: an intake load still ends as an
uninterrupted one would, and an event is delivered once the worker is back; the same jobs
with the queue in Redis."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from huey.storage import RedisStorage
from sqlalchemy import func, select
from standardwebhooks import Webhook

from app.db.transactions import transaction_mode
from app.extensions import db
from app.jobs import huey
from app.jobs.queue import init_app
from app.models import Event, IntakeLoad, LoadStatus, Task, WebhookDelivery
from app.services.intake.runs import copy_of, report_file, start_load
from tests.conftest import SETUP
from tests.intake.conftest import read_report
from tests.jobs.live import wait_for, worker_settings, workers
from tests.webhooks.conftest import emit, make_endpoint

pytestmark = pytest.mark.server

ROWS = 30_000  # six batches: long enough to be caught mid-way
BAD_EVERY = 1000


@pytest.fixture
def settings(settings, tmp_path):
    return {**settings, **worker_settings(tmp_path)}


def big_file(path: Path, rows: int) -> Path:
    """`rows` new clientIds; every BAD_EVERYth names an unknown skill queue."""
    with path.open("w", encoding="utf-8") as out:
        out.write("Id,Name,Plan,skillQueue\n")
        for n in range(rows):
            queue = "Nowhere" if n % BAD_EVERY == BAD_EVERY - 1 else ""
            out.write(f"C{n:07d},Customer {n},Gold,{queue}\n")
    return path


def progress_of(load_id: str) -> tuple[str, int, int]:
    """The load's status and rows done as committed (another connection, reading only: it
    never waits for the worker's write lock on SQLite)."""
    with transaction_mode(read_only=True), db.engine.connect() as other:
        row = other.execute(
            select(IntakeLoad.status, IntakeLoad.rows_done, IntakeLoad.rows_total).where(
                IntakeLoad.id == load_id
            )
        ).one()
    return tuple(row)


def assert_loaded_once(load: IntakeLoad, rows: int) -> None:
    """The counts, report, tasks and events of an uninterrupted load of big_file(rows)."""
    db.session.expire_all()
    bad = rows // BAD_EVERY
    assert (load.status, load.rows_total, load.rows_done) == (LoadStatus.DONE, rows, rows)
    assert (load.added, load.updated, load.rejected, load.superseded) == (rows - bad, 0, bad, 0)
    report = read_report(report_file(load))
    assert [(r["line"], r["clientId"], r["outcome"]) for r in report] == [
        (str(n + 2), f"C{n:07d}", "rejected") for n in range(BAD_EVERY - 1, rows, BAD_EVERY)
    ]
    assert db.session.scalar(select(func.count()).select_from(Task)) == rows - bad
    added_events = select(func.count()).select_from(Event).where(Event.type == "task.added")
    assert db.session.scalar(added_events) == rows - bad  # no batch written twice
    finished = select(func.count()).select_from(Event).where(Event.type == "intake.load_finished")
    assert db.session.scalar(finished) == 1


def load_killed_mid_way(pool, campaign, path: Path) -> str:
    """Queue a load of `path`, SIGKILL the worker running it mid-way, start another; the
    load's id once it is done."""
    first = pool.start()
    load_id = start_load(
        campaign, path.name, "upload", copy_of(path), actor=SETUP, in_worker=True
    ).id
    db.session.rollback()  # this test holds no transaction while the workers write

    def mid_way():
        status, done, total = progress_of(load_id)
        return status == LoadStatus.LOADING and 0 < done < total - 10_000  # two batches to go

    wait_for(mid_way, 90, "the load to be mid-way", pool)
    pool.kill(first)
    status, cut_at, total = progress_of(load_id)
    assert status == LoadStatus.LOADING and cut_at < total

    pool.start()  # takes up the load its killed predecessor left
    wait_for(lambda: progress_of(load_id)[0] == LoadStatus.DONE, 120, "the load", pool)
    return load_id


def test_an_intake_load_survives_its_worker_killed_mid_load(
    app, settings, database_uri, renewals, tmp_path
):
    path = big_file(tmp_path / "big.csv", ROWS)
    with workers(database_uri, tmp_path, settings) as pool:
        load_id = load_killed_mid_way(pool, renewals, path)
    assert_loaded_once(db.session.get(IntakeLoad, load_id), ROWS)


@dataclass
class Receiver:
    """A local webhook receiver; it checks every signature, and while `hold` is clear it
    keeps each request waiting (a delivery in flight)."""

    secret: str = ""
    received: list[dict] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)
    hold: threading.Event = field(default_factory=threading.Event)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                headers = {k.lower(): v for k, v in self.headers.items()}
                payload = Webhook(receiver.secret).verify(body, headers)
                receiver.received.append({"id": headers["webhook-id"], "payload": payload})
                receiver.arrived.set()
                receiver.hold.wait(30)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *_args) -> None:
                pass

        return Handler


@contextmanager
def receiving() -> Iterator[tuple[Receiver, str]]:
    receiver = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), receiver.handler())
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver, f"http://127.0.0.1:{server.server_address[1]}/hooks"
    finally:
        receiver.hold.set()
        server.shutdown()
        server.server_close()


def delivery_status() -> str:
    with transaction_mode(read_only=True), db.engine.connect() as other:
        return other.scalar(select(WebhookDelivery.status))


def delivered_after_a_kill(pool, tenant) -> None:
    """An event whose delivery is in flight when its worker is SIGKILLed reaches the
    receiver once a worker is back, with the same webhook-id and a valid signature."""
    with receiving() as (receiver, url):
        endpoint = make_endpoint(tenant, url, types=("task.updated",))
        receiver.secret = endpoint.secret
        first = pool.start()
        emit(tenant, "task.updated", "rec-9", note="after the outage")
        db.session.rollback()
        if not receiver.arrived.wait(60):
            pytest.fail(f"no delivery arrived\n{pool.logs()}")
        pool.kill(first)  # mid-delivery: the receiver has not answered
        assert delivery_status() == "sending"
        receiver.hold.set()  # the receiver answers from now on
        pool.start()
        wait_for(lambda: delivery_status() == "delivered", 60, "the delivery", pool)
    [event_id] = {one["id"] for one in receiver.received}
    assert len(receiver.received) == 2  # at least once: the same event, sent again
    assert receiver.received[-1]["payload"]["type"] == "task.updated"
    assert db.session.scalar(select(Event.event_id)) == event_id


def test_an_event_is_delivered_after_its_worker_is_killed_mid_delivery(
    app, settings, database_uri, acme, tmp_path
):
    with workers(database_uri, tmp_path, settings) as pool:
        delivered_after_a_kill(pool, acme)


def test_the_same_jobs_with_the_queue_in_redis(
    app, database_uri, renewals, acme, tmp_path, redis_url
):
    queue = f"test-{uuid.uuid4().hex[:12]}"
    settings = worker_settings(tmp_path, redis_url=redis_url, queue=queue)
    app.config.update(settings)
    init_app(app)
    assert isinstance(huey.storage, RedisStorage)
    path = big_file(tmp_path / "big.csv", ROWS)
    try:
        with workers(database_uri, tmp_path, settings) as pool:
            delivered_after_a_kill(pool, acme)
            load_id = load_killed_mid_way(pool, renewals, path)
    finally:
        huey.storage.flush_all()
    assert_loaded_once(db.session.get(IntakeLoad, load_id), ROWS)


def test_a_worker_takes_jobs_again_once_redis_is_back(
    app, database_uri, renewals, tmp_path, private_redis
):
    """A worker whose Redis goes away and comes back (empty) goes on by itself: the next
    load queued is run, without a restart."""
    settings = worker_settings(tmp_path, redis_url=private_redis.url, queue="outage")
    app.config.update(settings)
    init_app(app)
    path = big_file(tmp_path / "small.csv", 2000)
    db.session.rollback()  # this test holds no transaction while the worker starts
    with workers(database_uri, tmp_path, settings) as pool:
        worker = pool.start()
        wait_for(lambda: huey.get("clock.beat", peek=True), 30, "the worker's first tick", pool)
        private_redis.stop()
        time.sleep(2)  # the worker meets the outage (refused connections) for a while
        private_redis.start()
        load_id = start_load(
            renewals, path.name, "upload", copy_of(path), actor=SETUP, in_worker=True
        ).id
        db.session.rollback()
        wait_for(lambda: progress_of(load_id)[0] == LoadStatus.DONE, 60, "the load", pool)
        assert worker.poll() is None  # the same worker, still running
    assert_loaded_once(db.session.get(IntakeLoad, load_id), 2000)
