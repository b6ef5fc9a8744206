"""An endpoint's delivery log, newest first, and replaying one delivery of it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from app.extensions import db
from app.models import Event, WebhookDelivery, WebhookEndpoint
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.errors import Conflict, NotFound
from app.services.webhooks.dispatch import PENDING, SENDING
from app.services.webhooks.endpoints import record_change


@dataclass(frozen=True)
class LogLine:
    """One delivery as the log shows it."""

    delivery: WebhookDelivery
    event_id: str
    event_type: str
    subject: str | None
    created_at: datetime


def count_deliveries(endpoint: WebhookEndpoint) -> int:
    return db.session.scalar(
        select(func.count())
        .select_from(WebhookDelivery)
        .where(WebhookDelivery.endpoint_id == endpoint.id)
    )


def list_deliveries(endpoint: WebhookEndpoint, limit: int, offset: int = 0) -> list[LogLine]:
    """The endpoint's deliveries, newest event first."""
    rows = db.session.execute(
        select(WebhookDelivery, Event.event_id, Event.type, Event.subject, Event.created_at)
        .join(Event, Event.id == WebhookDelivery.event_id)
        .where(WebhookDelivery.endpoint_id == endpoint.id)
        .order_by(WebhookDelivery.event_id.desc(), WebhookDelivery.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return [LogLine(*row) for row in rows]


def replay_delivery(
    endpoint: WebhookEndpoint, delivery_id: int, *, actor: Actor, now: datetime | None = None
) -> WebhookDelivery:
    """Deliver the same event again (same webhook-id), with a fresh retry schedule."""
    now = now or utcnow()
    delivery = db.session.get(WebhookDelivery, delivery_id)
    if delivery is None or delivery.endpoint_id != endpoint.id:
        raise NotFound(f"delivery {delivery_id} does not exist")
    if delivery.status == SENDING and delivery.next_attempt_at and delivery.next_attempt_at > now:
        raise Conflict("This delivery is being sent right now; replay it once it is done.")
    before = {"status": delivery.status, "attempts": delivery.attempts}
    delivery.status, delivery.attempts, delivery.next_attempt_at = PENDING, 0, now
    delivery.delivered_at = None
    record_change(
        actor,
        "webhook_delivery.replayed",
        endpoint,
        {**before, "eventId": delivery.event.event_id},
        {"status": PENDING},
    )
    return delivery
