"""Bulk jobs: one action (status, transfer, preferred agent, delete) on every task a
campaign's search matched, confirmed by a supervisor and run by the worker in batches."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.campaigns import Campaign
from app.models.types import BigId, UTCDateTime, utcnow


class BulkState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class BulkAction(StrEnum):
    STATUS = "status"
    TRANSFER = "transfer"
    PREFERRED_AGENT = "preferred_agent"
    DELETE = "delete"


class BulkJob(db.Model):
    """What was confirmed (who, when, which campaign, criteria, action and its fields, how
    many tasks) and how far the worker has come (counts, resume point, state)."""

    __tablename__ = "bulk_jobs"

    id: Mapped[int] = mapped_column(primary_key=True)
    # The confirmation page's own token: confirming it again (a reload, a second tab) finds
    # this job instead of starting another.
    token: Mapped[str | None] = mapped_column(String(36), unique=True)
    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), index=True
    )
    actor_kind: Mapped[str] = mapped_column(String(16))
    actor_id: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # [[key, condition, value], ...] as the search form sent them, AND-ed.
    criteria: Mapped[list] = mapped_column(JSON, default=list)
    action: Mapped[str] = mapped_column(String(32))
    fields: Mapped[dict] = mapped_column(JSON, default=dict)
    confirmed: Mapped[int] = mapped_column(Integer, default=0)
    # The set confirmed: tasks matching the criteria with ids up to this one (0: none).
    last_confirmed_id: Mapped[int] = mapped_column(BigId, default=0)
    done: Mapped[int] = mapped_column(Integer, default=0)
    acted: Mapped[int] = mapped_column(Integer, default=0)
    skipped: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    # The resume point: every task up to this id has been dealt with.
    last_task_id: Mapped[int] = mapped_column(BigId, default=0)
    state: Mapped[str] = mapped_column(String(16), default=BulkState.QUEUED)
    message: Mapped[str | None] = mapped_column(Text)

    campaign: Mapped[Campaign] = relationship()

    @property
    def finished(self) -> bool:
        return self.state in (BulkState.DONE, BulkState.FAILED)

    @property
    def percent(self) -> int:
        if self.finished:
            return 100
        return min(99, int(100 * self.done / self.confirmed)) if self.confirmed else 0


class BulkFailure(db.Model):
    """A task the job could not act on, and why; written with the batch it belongs to."""

    __tablename__ = "bulk_failures"
    __table_args__ = (Index("ix_bulk_failures_job", "job_id", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("bulk_jobs.id", ondelete="CASCADE"))
    task_id: Mapped[int] = mapped_column(BigId)
    record_id: Mapped[str] = mapped_column(String(36))
    client_id: Mapped[str] = mapped_column(String(255))
    reason: Mapped[str] = mapped_column(Text)
