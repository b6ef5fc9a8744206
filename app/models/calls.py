"""The call ledger: one row per call placed, each kept with its attempt.

A call is placed within an attempt (a delivery of a task to an agent); a redial inside one
attempt (Call again, or another of the task's numbers) is a second call, and both are kept,
each with its phone item and number, its start, connection, end and result. The attempt
keeps the columns of its last call (the reports and the API read them there); this table
is what counts every call and what the task's numbers are rotated by.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.types import BigId, UTCDateTime


class Call(db.Model):
    """One call of an attempt: its id (the Desk API's callId), number, times and result."""

    __tablename__ = "calls"
    __table_args__ = (
        # The Desk API's callId: an event names its call by it, after a redial too.
        Index("uq_calls_call_id", "call_id", unique=True),
        # An attempt's calls, oldest first (taskAttempts).
        Index("ix_calls_attempt", "attempt_id", "started_at"),
        # A task's calls (the number called last, the numbers found invalid).
        Index("ix_calls_task", "task_id", "started_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    attempt_id: Mapped[int] = mapped_column(BigId, ForeignKey("attempts.id", ondelete="CASCADE"))
    # NULL once the task is deleted (its attempt keeps the task's id).
    task_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("tasks.id", ondelete="SET NULL"))
    call_id: Mapped[str] = mapped_column(String(36))
    phone_key: Mapped[str] = mapped_column(String(255))
    phone_number: Mapped[str] = mapped_column(String(64))
    # Who placed it (CallPlacement: the desk or the contact flow) and the contact centre's
    # contact id, when known.
    placed_by: Mapped[str | None] = mapped_column(String(16))
    contact_id: Mapped[str | None] = mapped_column(String(255))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    connected_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    result: Mapped[str | None] = mapped_column(String(16))  # CallResult once it ends
    # Why the contact rules allowed it, as they stood when it was placed (written once:
    # app/services/dialer/evidence.py); NULL for calls placed before evidence was kept.
    evidence: Mapped[dict[str, Any] | None] = mapped_column(JSON)
