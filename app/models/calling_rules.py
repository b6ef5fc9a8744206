"""Regional calling rules: when the tenant may call customers in a region (ISO 3166-2,
`US-FL`), in the customer's local time.

- `CallingRule`: in `region`, calls only between `opens_at` and `closes_at` (minutes after
  local midnight; none: any hour) on the weekdays `days` (none: every day), never on the
  weekdays `no_calls_on`, never on the region's public holidays when `holidays`; and, when
  it has one, a contact limit of its own (`limit`: a limit counting only the region's tasks).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.contact_limits import ContactLimit
from app.models.types import UTCDateTime, utcnow


class CallingRule(db.Model):
    __tablename__ = "calling_rules"

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    region: Mapped[str] = mapped_column(String(8))
    opens_at: Mapped[int | None] = mapped_column(Integer)
    closes_at: Mapped[int | None] = mapped_column(Integer)
    # Weekdays as `mon,tue`: those the hours hold on (empty: every day), those never called.
    days: Mapped[str] = mapped_column(String(32), default="", server_default="")
    no_calls_on: Mapped[str] = mapped_column(String(32), default="", server_default="")
    holidays: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    limit_id: Mapped[int | None] = mapped_column(
        ForeignKey("contact_limits.id", ondelete="SET NULL")
    )
    # Where the rule comes from: the law it follows, as the pack or the supervisor says.
    source: Mapped[str] = mapped_column(String(255), default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    limit: Mapped[ContactLimit | None] = relationship()
