"""The tenant's consent ledger: per E.164 number, each consent given and each revoked, as
it happened, never changed afterwards.

- `ConsentRecord`: one consent given (when, its source, optionally only for one campaign
  and a purpose) or revoked (when, how, and by whom it was recorded). A number's consent is
  in force at a moment for a campaign when its latest record up to that moment that counts
  for the campaign is a consent given: a revocation counts for every campaign of the
  tenant, a consent given for one campaign counts for that campaign alone.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.campaigns import Campaign
from app.models.types import UTCDateTime, text_c, utcnow

GIVEN = "given"
REVOKED = "revoked"


class ConsentRecord(db.Model):
    __tablename__ = "consent_records"
    __table_args__ = (Index("ix_consent_records_number", "tenant_id", "number", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    number: Mapped[str] = mapped_column(text_c(16))
    # GIVEN or REVOKED.
    action: Mapped[str] = mapped_column(String(8))
    # When it was given or revoked (may be before it was recorded: a signed form, a letter).
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Where a consent came from ("web form 2026-03"), or how it was revoked ("by phone").
    source: Mapped[str] = mapped_column(String(255), default="")
    # A consent given for this campaign only (NULL: every campaign); never on a revocation.
    campaign_id: Mapped[int | None] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    purpose: Mapped[str] = mapped_column(String(255), default="")
    # Who recorded it (an actor's kind and id: operator, supervisor, agent, import).
    recorded_by: Mapped[str] = mapped_column(String(255), default="")
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    campaign: Mapped[Campaign | None] = relationship()
