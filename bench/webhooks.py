"""Claiming due webhook deliveries behind a backlog (a receiver that was down during a load).

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


def _claim_behind(backlog: int, database: Path) -> float:
    """Seconds to claim CLAIM deliveries of one endpoint with `backlog` pending, two per subject."""
    from sqlalchemy import insert, select

    from app import create_app
    from app.config import test_settings
    from app.extensions import db
    from app.models import Event, WebhookDelivery, WebhookEndpoint
    from app.models.types import utcnow
    from app.services import tenants
    from app.services.actors import Actor
    from app.services.webhooks.delivery import claim_due

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
        claimed = claim_due(now + timedelta(seconds=1), CLAIM, timedelta(seconds=60))
        seconds = time.perf_counter() - started
        assert len(claimed) == CLAIM
    return seconds


def main() -> None:
    print(f"webhooks: claiming {CLAIM} due deliveries of one endpoint behind a backlog, SQLite")
    print(f"{'pending':>10} {'claim ms':>9}")
    for backlog in BACKLOGS:
        with tempfile.TemporaryDirectory() as folder:
            seconds = _claim_behind(backlog, Path(folder) / "bench.db")
        print(f"{backlog:>10,} {seconds * 1000:>9.0f}")


if __name__ == "__main__":
    main()
