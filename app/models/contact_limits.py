"""Contact limits: how often a tenant's number, person or task may be called, and the
marks that count the calls placed and the contacts made.

- `ContactLimit`: at most `max_count` calls (or contacts) within the rolling
  `within_minutes`, per number, person or task, across every campaign of the tenant or
  within one (`campaign_id`).
- `ContactMark`: one call placed (or one contact made) to one scope (`number:+1415...`,
  `person:ACC-1`, `task:42`), written in the transaction of the call (or of the attempt
  counted a contact). A limit counts its scope's marks of its window by an index range.
- `ContactScope`: one row per scope a limit has counted, locked (PostgreSQL) by the call
  that counts it, so calls to one number from several hosts count one after another.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.campaigns import Campaign
from app.models.types import BigId, UTCDateTime, text_c, utcnow


class ContactLimit(db.Model):
    __tablename__ = "contact_limits"

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    max_count: Mapped[int] = mapped_column(Integer)
    within_minutes: Mapped[int] = mapped_column(Integer)
    # What is counted per: "number", "person" or "task"; and what: "calls" or "contacts".
    per: Mapped[str] = mapped_column(String(16))
    counting: Mapped[str] = mapped_column(String(16))
    # Only this campaign's calls (the limit goes with the campaign); NULL: every campaign.
    campaign_id: Mapped[int | None] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    # Only tasks in this region (ISO 3166-2, `US-FL`): a regional calling rule's limit.
    region: Mapped[str | None] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    campaign: Mapped[Campaign | None] = relationship()


class ContactMark(db.Model):
    __tablename__ = "contact_marks"
    __table_args__ = (
        # A scope's marks of one kind by time, with their campaign: a window's count is
        # one range of this index.
        Index("ix_contact_marks_scope", "tenant_id", "scope_key", "kind", "at", "campaign_id"),
        # The contact marks of an attempt (an attempt is counted one contact, once): over
        # the marks that name one alone. A call's marks name none; counted in the index,
        # their NULLs would make the planners scan the table for one attempt's marks.
        Index(
            "ix_contact_marks_attempt",
            "attempt_id",
            sqlite_where=text("attempt_id IS NOT NULL"),
            postgresql_where=text("attempt_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    scope_key: Mapped[str] = mapped_column(text_c(300))
    # "call" or "contact".
    kind: Mapped[str] = mapped_column(String(8))
    # The campaign the call was made in (no foreign key: a campaign deleted keeps the
    # tenant's counts).
    campaign_id: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The attempt whose call or contact it counts (no foreign key: marks outlive attempts).
    attempt_id: Mapped[int | None] = mapped_column(BigId)


class ContactScope(db.Model):
    __tablename__ = "contact_scopes"

    tenant_id: Mapped[int] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    scope_key: Mapped[str] = mapped_column(text_c(300), primary_key=True)
    # When a call last counted it.
    counted_at: Mapped[datetime] = mapped_column(UTCDateTime)
