"""From the outbox to the endpoints: each new event becomes one delivery per enabled
endpoint of its tenant that wants its type and existed when it happened, in the order the
events happened. An endpoint added while the worker was down does not get the backlog of
older events: those only by a replay from a time it asks for (`log.replay_since`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from app.extensions import db
from app.models import Event, WebhookDelivery, WebhookEndpoint
from app.services.webhooks.event_types import wants

# A delivery's states; it is still to be made (open) while pending or sending.
PENDING, SENDING, DELIVERED, FAILED = "pending", "sending", "delivered", "failed"
OPEN = (PENDING, SENDING)


def locked(query):
    """Rows another worker holds are skipped, not waited for (PostgreSQL). SQLite has one
    writer at a time: every writing transaction begins with the write lock (app.db.transactions)."""
    if db.session.get_bind().dialect.name == "postgresql":
        return query.with_for_update(skip_locked=True)
    return query


def dispatch_events(now: datetime, batch: int = 500) -> int:
    """Fan out up to `batch` undispatched events, oldest first; commits; how many."""
    events = list(
        db.session.scalars(
            locked(
                select(Event).where(Event.dispatched_at.is_(None)).order_by(Event.id).limit(batch)
            )
        )
    )
    if not events:
        db.session.rollback()
        return 0
    tenants = {event.tenant_id for event in events if event.tenant_id is not None}
    endpoints: dict[int, list[WebhookEndpoint]] = {}
    for endpoint in db.session.scalars(
        select(WebhookEndpoint)
        .where(WebhookEndpoint.tenant_id.in_(tenants), WebhookEndpoint.enabled.is_(True))
        .order_by(WebhookEndpoint.id)
    ):
        endpoints.setdefault(endpoint.tenant_id, []).append(endpoint)
    rows = [
        {
            "endpoint_id": endpoint.id,
            "event_id": event.id,
            "subject": event.subject,
            "status": PENDING,
            "attempts": 0,
            "next_attempt_at": now,
        }
        for event in events
        for endpoint in endpoints.get(event.tenant_id, [])
        if wants(endpoint.event_types, event.type) and event.created_at >= endpoint.created_at
    ]
    if rows:
        db.session.execute(WebhookDelivery.__table__.insert(), rows)
    for event in events:
        event.dispatched_at = now
    db.session.commit()
    return len(events)
