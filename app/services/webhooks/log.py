"""An endpoint's delivery log, newest first, replaying one delivery of it, and replaying the
tenant's events from a time (those from before the endpoint existed, or while disabled)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import and_, func, insert, or_, select

from app.extensions import db
from app.models import Event, WebhookDelivery, WebhookEndpoint
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import WEBHOOK_REPLAY_SINCE
from app.services.webhooks.dispatch import PENDING, SENDING
from app.services.webhooks.endpoints import record_change

# How this module's refusals name their fields.
SINCE = WEBHOOK_REPLAY_SINCE.said_as("since")


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


def parse_since(text: str | None, now: datetime | None = None) -> datetime:
    """A replay's start: ISO 8601 (`2026-03-01T09:00`, UTC unless an offset is given), not
    in the future."""
    text = (text or "").strip()
    try:
        since = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        raise InvalidInput(
            "since must be a date and time such as 2026-03-01T09:00 (UTC)", field=SINCE
        ) from None
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    if since > (now or utcnow()):
        raise InvalidInput("since must not be in the future", field=SINCE)
    return since.astimezone(UTC)


def replay_since(
    endpoint: WebhookEndpoint, since: datetime, *, actor: Actor, now: datetime | None = None
) -> int:
    """Queue for the endpoint every event of its tenant of a type it wants that happened
    from `since` on and that it has no delivery of (events from before it was created, or
    while it was disabled), to go out oldest first; how many. Events it already has keep
    their delivery (replay one of those from the log)."""
    now = now or utcnow()
    # One replay of an endpoint at a time (two would queue the same events twice).
    db.session.scalar(
        select(WebhookEndpoint.id).where(WebhookEndpoint.id == endpoint.id).with_for_update()
    )
    has_one = (
        select(WebhookDelivery.id)
        .where(
            WebhookDelivery.endpoint_id == endpoint.id,
            WebhookDelivery.event_id == Event.id,
        )
        .exists()
    )
    wanted = [
        Event.tenant_id == endpoint.tenant_id,
        Event.created_at >= since,
        ~has_one,
        # Not one the dispatcher is still to give it: those are its own, in due course.
        or_(Event.dispatched_at.is_not(None), Event.created_at < endpoint.created_at),
    ]
    if endpoint.event_types:
        wanted.append(Event.type.in_(endpoint.event_types))
    missing = db.session.execute(
        select(Event.id, Event.subject).where(and_(*wanted)).order_by(Event.id)
    ).all()
    if missing:
        db.session.execute(
            insert(WebhookDelivery),
            [
                {"endpoint_id": endpoint.id, "event_id": event_id, "subject": subject,
                 "status": PENDING, "attempts": 0, "next_attempt_at": now}
                for event_id, subject in missing
            ],
        )  # fmt: skip
    added = len(missing)
    record_change(
        actor,
        "webhook_endpoint.replayed_since",
        endpoint,
        None,
        {"since": since.isoformat(timespec="seconds"), "events": added},
    )
    return added
