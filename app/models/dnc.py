"""The tenant's do-not-call list: E.164 numbers no agent is offered to dial."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.types import UTCDateTime, text_c, utcnow


class DncNumber(db.Model):
    __tablename__ = "dnc_numbers"
    __table_args__ = (UniqueConstraint("tenant_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    number: Mapped[str] = mapped_column(text_c(16))
    # Where it came from: "supervisor", "import", "work code", "cli"...
    note: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
