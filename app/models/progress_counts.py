"""A large campaign's Progress panel counts, taken at one moment and shown until they are
PROGRESS_SNAPSHOT_SECONDS old (app/services/delivery/progress_snapshots.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.types import UTCDateTime


class ProgressSnapshot(db.Model):
    """One campaign's counts at `taken_at`: per skill queue, the figures the Progress panel
    counts (`counts`), and why its kept-back tasks waited. `taking_until`: a process is
    counting again until then, and no other starts meanwhile."""

    __tablename__ = "progress_snapshots"

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    taken_at: Mapped[datetime] = mapped_column(UTCDateTime)
    counts: Mapped[dict] = mapped_column(JSON)
    taking_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
