"""Intake loads: one row per file loaded into a campaign, with its progress and counts."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import Boolean, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.campaigns import Campaign
from app.models.types import UTCDateTime, utcnow

# A million-row file loads in minutes; an unfinished load this old was cut off.
INTERRUPTED_AFTER = timedelta(hours=2)


class LoadStatus(StrEnum):
    QUEUED = "queued"
    CHECKING = "checking"
    LOADING = "loading"
    DONE = "done"
    REFUSED = "refused"
    FAILED = "failed"


class IntakeLoad(db.Model):
    """A file loaded (or being loaded, or refused) into a campaign."""

    __tablename__ = "intake_loads"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), index=True
    )
    file_name: Mapped[str] = mapped_column(String(255))
    source: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default=LoadStatus.QUEUED)
    dry_run: Mapped[bool] = mapped_column(Boolean, default=False)
    all_or_nothing: Mapped[bool] = mapped_column(Boolean, default=False)
    rows_total: Mapped[int] = mapped_column(Integer, default=0)
    rows_done: Mapped[int] = mapped_column(Integer, default=0)
    added: Mapped[int] = mapped_column(Integer, default=0)
    updated: Mapped[int] = mapped_column(Integer, default=0)
    rejected: Mapped[int] = mapped_column(Integer, default=0)
    superseded: Mapped[int] = mapped_column(Integer, default=0)
    # Phone numbers of the rows written that were read in the campaign's default country.
    normalised: Mapped[int] = mapped_column(Integer, default=0)
    message: Mapped[str | None] = mapped_column(Text)
    report_path: Mapped[str | None] = mapped_column(String(1024))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Who started it, as the audit trail names an actor; none for loads from before it was kept.
    started_by_kind: Mapped[str | None] = mapped_column(String(16))
    started_by_id: Mapped[str | None] = mapped_column(String(255))
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    campaign: Mapped[Campaign] = relationship()

    @property
    def interrupted(self) -> bool:
        """Unfinished long past any load's time: its process stopped (a worker restart)."""
        unfinished = self.status not in (LoadStatus.DONE, LoadStatus.REFUSED, LoadStatus.FAILED)
        return unfinished and utcnow() - self.created_at > INTERRUPTED_AFTER

    @property
    def finished(self) -> bool:
        return self.interrupted or self.status in (
            LoadStatus.DONE,
            LoadStatus.REFUSED,
            LoadStatus.FAILED,
        )

    @property
    def percent(self) -> int:
        if self.finished:
            return 100
        return int(100 * self.rows_done / self.rows_total) if self.rows_total else 0
