"""Rate-limit counters shared by every worker and host that uses the same database."""

from __future__ import annotations

from sqlalchemy import Float, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db


class RateLimitCounter(db.Model):
    """One fixed-window counter: how many hits `key` had in the window ending at `expires_at`."""

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
    # Epoch seconds; a counter past it counts from zero again.
    expires_at: Mapped[float] = mapped_column(Float, index=True)
