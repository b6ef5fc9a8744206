"""Claiming due webhook deliveries behind a backlog (a receiver that was down during a load),
and how long one tenant's event waits behind another tenant's slow receiver.

python -m bench.webhooks          # 20,000 and 80,000 pending (BENCH_WEBHOOK_BACKLOG to change)
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import timedelta
from pathlib import Path

BACKLOGS = [int(n) for n in os.environ.get("BENCH_WEBHOOK_BACKLOG", "20000,80000").split(",")]
CLAIM = 50
PER_ENDPOINT = 50  # the default WEBHOOK_PER_ENDPOINT
SLOW_SECONDS = float(os.environ.get("BENCH_WEBHOOK_SLOW_SECONDS", 3))
SLOW_EVENTS = 40


def _claim_behind(backlog: int, database: Path) -> float:
    """Seconds to claim CLAIM deliveries of one endpoint with `backlog` pending, two per subject."""
    from sqlalchemy import insert, select

    from app import create_app
    from app.config import test_settings
    from app.extensions import db
    from app.models import Event, WebhookDelivery, WebhookEndpoint
    from app.models.types import utcnow
    from app.services.actors import Actor
    from app.services.tenants import setup as tenants
    from app.services.webhooks.due_deliveries import claim_due

    app = create_app(test_settings(f"sqlite:///{database}"))
    with app.app_context():
        db.create_all()
        tenant = tenants.create_tenant(
            "AWS Connect", "Bench", "prod", "us-east-1", "saml", actor=Actor.operator()
        )
        db.session.flush()
        endpoint = WebhookEndpoint(tenant_id=tenant.id, url="http://127.0.0.1:9/", secret="x")
        db.session.add(endpoint)
        db.session.flush()
        now, subjects = utcnow(), backlog // 2
        db.session.execute(
            insert(Event),
            [
                {"event_id": f"msg_{n}", "tenant_id": tenant.id, "type": "task.added",
                 "subject": f"task-{n % subjects}", "payload": {}, "created_at": now}
                for n in range(backlog)
            ],
        )  # fmt: skip
        events = db.session.execute(select(Event.id, Event.subject).order_by(Event.id)).all()
        db.session.execute(
            insert(WebhookDelivery),
            [
                {"endpoint_id": endpoint.id, "event_id": event_id, "subject": subject,
                 "status": "pending", "attempts": 0, "next_attempt_at": now}
                for event_id, subject in events
            ],
        )  # fmt: skip
        db.session.commit()
        started = time.perf_counter()
        claimed = claim_due(now + timedelta(seconds=1), CLAIM, timedelta(seconds=60), PER_ENDPOINT)
        seconds = time.perf_counter() - started
        assert len(claimed) == min(CLAIM, PER_ENDPOINT)
    return seconds


def _slow_receiver(delay: float):
    """A local receiver answering every POST after `delay` seconds, and its URL."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server name
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            time.sleep(delay if self.path == "/slow" else 0)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _fairness(database: Path) -> float:
    """Seconds from another tenant's event to its delivery, while the worker works through
    SLOW_EVENTS events of a receiver answering in SLOW_SECONDS (the worker's tick loop)."""
    import threading

    from sqlalchemy import select

    from app import create_app
    from app.config import test_settings
    from app.extensions import db
    from app.models import Event, WebhookDelivery
    from app.services.actors import Actor
    from app.services.audit.trail import Change, record
    from app.services.tenants import setup as tenants
    from app.services.webhooks import run_once
    from app.services.webhooks.endpoints import create_endpoint

    app = create_app(test_settings(f"sqlite:///{database}", WEBHOOK_ALLOW_NETWORKS="127.0.0.0/8"))
    server, base = _slow_receiver(SLOW_SECONDS)

    def emit(tenant, subject: str) -> None:
        change = Change("task.added", "task", subject, tenant.id, event_type="task.added",
                        event_data={"previewRecordID": subject}, subject=subject)  # fmt: skip
        record(Actor.system("bench"), change)
        db.session.commit()

    with app.app_context():
        db.create_all()
        slow, quick = (
            tenants.create_tenant(
                "AWS Connect", name, "prod", "us-east-1", "saml", actor=Actor.operator()
            )  # fmt: skip
            for name in ("Slow", "Quick")
        )
        create_endpoint(slow, base + "/slow", actor=Actor.operator())
        create_endpoint(quick, base + "/quick", actor=Actor.operator())
        db.session.commit()
        for n in range(SLOW_EVENTS):
            emit(slow, f"slow-{n}")
        stop = False

        def worker() -> None:  # the tick: rounds one after another
            with app.app_context():
                while not stop:
                    if not run_once()["attempted"]:
                        time.sleep(0.05)
                db.session.remove()

        thread = threading.Thread(target=worker)
        thread.start()
        time.sleep(SLOW_SECONDS / 2)  # the slow receiver's first answer is on its way
        emit(quick, "quick-1")
        sent = time.perf_counter()
        event = db.session.scalar(select(Event.id).where(Event.subject == "quick-1"))
        while True:
            status = db.session.scalar(
                select(WebhookDelivery.status).where(WebhookDelivery.event_id == event)
            )
            db.session.rollback()  # no lock held between looks
            if status == "delivered":
                break
            time.sleep(0.02)
        waited = time.perf_counter() - sent
        stop = True
        thread.join()
        server.shutdown()
    return waited


def main() -> None:
    print(f"webhooks: claiming a round ({CLAIM}, at most {PER_ENDPOINT} of one endpoint) of")
    print("due deliveries of one endpoint behind a backlog, SQLite")
    print(f"{'pending':>10} {'claim ms':>9}")
    for backlog in BACKLOGS:
        with tempfile.TemporaryDirectory() as folder:
            seconds = _claim_behind(backlog, Path(folder) / "bench.db")
        print(f"{backlog:>10,} {seconds * 1000:>9.0f}")
    with tempfile.TemporaryDirectory() as folder:
        waited = _fairness(Path(folder) / "bench.db")
    print(
        f"webhooks: another tenant's event behind {SLOW_EVENTS} events of a receiver "
        f"answering in {SLOW_SECONDS:g} s: delivered {waited:.1f} s after it happened"
    )


if __name__ == "__main__":
    main()
