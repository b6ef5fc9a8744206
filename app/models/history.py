"""What happened: the audit trail, the outbox of events, and the webhooks that carry them.

An audit record and its event are written in the transaction of the change they describe,
so there is never a change without its trace nor a trace of a change that did not happen.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.types import BigId, UTCDateTime, utcnow


class AuditRecord(db.Model):
    """One change: when, who (the actor), what (an entity), and its fields before and after."""

    __tablename__ = "audit_records"
    __table_args__ = (
        Index("ix_audit_records_entity", "tenant_id", "entity_kind", "entity_id", "id"),
        Index("ix_audit_records_tenant", "tenant_id", "id"),
        # A page of a few kinds' history (the Users page: users and templates), newest first.
        Index("ix_audit_records_kind", "tenant_id", "entity_kind", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    # No foreign key: the trail outlives what it describes, even a deleted tenant.
    tenant_id: Mapped[int | None] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    actor_kind: Mapped[str] = mapped_column(String(16))
    actor_id: Mapped[str] = mapped_column(String(255))
    # What acted for the actor (a bulk job they confirmed); none when they acted themselves.
    actor_via: Mapped[str | None] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(64))
    entity_kind: Mapped[str] = mapped_column(String(32))
    entity_id: Mapped[str] = mapped_column(String(255))
    before: Mapped[dict | None] = mapped_column(JSON)
    after: Mapped[dict | None] = mapped_column(JSON)


class Event(db.Model):
    """An event in the outbox, in the order it happened; `subject` orders a task's events."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_tenant", "tenant_id", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    # The webhook-id: unique, so a receiver can drop a delivery it already has.
    event_id: Mapped[str] = mapped_column(String(40), unique=True)
    tenant_id: Mapped[int | None] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(64))
    subject: Mapped[str | None] = mapped_column(String(255))
    payload: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Set once deliveries were made for every endpoint that wants it.
    dispatched_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)


class WebhookEndpoint(db.Model):
    """Where a tenant wants to hear its events, signed with the endpoint's own secret."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(2048))
    # Standard Webhooks secret (whsec_…): needed as such to sign, never logged or audited.
    secret: Mapped[str] = mapped_column(String(255))
    event_types: Mapped[list[str]] = mapped_column(JSON, default=list)  # empty: every type
    description: Mapped[str] = mapped_column(String(255), default="")
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_reason: Mapped[str | None] = mapped_column(Text)
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class WebhookDelivery(db.Model):
    """One event for one endpoint: attempted until delivered, with backoff."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        UniqueConstraint("endpoint_id", "event_id"),
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        # "Is an earlier delivery of this subject still open for this endpoint?" is asked of
        # every due delivery: a range probe here, not a scan of the endpoint's backlog.
        Index("ix_webhook_deliveries_order", "endpoint_id", "subject", "event_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    endpoint_id: Mapped[int] = mapped_column(ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    event_id: Mapped[int] = mapped_column(BigId, ForeignKey("events.id", ondelete="CASCADE"))
    # The event's subject, copied so that the ordering question needs no join with events.
    subject: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_status_code: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    endpoint: Mapped[WebhookEndpoint] = relationship()
    event: Mapped[Event] = relationship()
