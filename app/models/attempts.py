"""The attempt ledger: one row per delivery of a task to an agent, and what became of it.

A row is opened when a task is delivered and ended, in the same transaction, by whatever
ends the reservation (`EndedHow`). The call's columns stay empty until calls are placed
through the contact centre. Reports count from this table, so a deleted task's attempts
stay (their task becomes NULL, its id kept in `deleted_task_id`: the reports still count it
as a task attempted) and an attempt keeps the campaign and queue it was made in.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, false, text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.types import BigId, UTCDateTime


class CallResult(StrEnum):
    ANSWERED = "ANSWERED"
    NO_ANSWER = "NO_ANSWER"
    BUSY = "BUSY"
    INVALID_NUMBER = "INVALID_NUMBER"
    VOICEMAIL = "VOICEMAIL"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class EndedHow(StrEnum):
    CLOSED = "CLOSED"  # the agent closed the task with an outcome
    RELEASED = "RELEASED"  # the agent gave it back (skip, sign-out)
    LAPSED = "LAPSED"  # the clock ended an idle or silent reservation
    TAKEN_BACK = "TAKEN_BACK"  # a supervisor released it from the agent
    CHANGED_ELSEWHERE = "CHANGED_ELSEWHERE"  # status changed, moved or deleted meanwhile


class Attempt(db.Model):
    """One delivery of a task to an agent: its preview, its call, its wrap-up.

    Every change of the columns the reports count (`active_history`: the value replaced is
    known) moves the rollups (app/models/report_rollups.py) in the same flush."""

    __tablename__ = "attempts"
    __table_args__ = (
        # A task's attempts newest first (the task page), and its open one.
        Index("ix_attempts_task", "task_id", "delivered_at"),
        # A campaign's attempts by time (the reports' range edges), with the task: the
        # tasks attempted in a range are counted from the index alone.
        Index("ix_attempts_campaign_time", "campaign_id", "delivered_at", "task_id"),
        # A campaign's attempts task by task (the tasks attempted in a long range, counted
        # without sorting them on SQLite).
        Index("ix_attempts_campaign_task", "campaign_id", "task_id", "delivered_at"),
        # A campaign's open attempts and those ended late (the agents report's time in work).
        Index("ix_attempts_campaign_ended", "campaign_id", "ended_at"),
        # Calls the contact flow placed whose end the worker has yet to learn.
        Index("uq_attempts_call_id", "call_id", unique=True),
        Index("ix_attempts_calls_pending", "placed_by", "call_ended_at"),
        # The attempts of deleted tasks (few): the tasks attempted in a range count them.
        Index(
            "ix_attempts_deleted_task",
            "campaign_id",
            "delivered_at",
            "deleted_task_id",
            sqlite_where=text("deleted_task_id IS NOT NULL"),
            postgresql_where=text("deleted_task_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    task_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("tasks.id", ondelete="SET NULL"))
    # The task's id once the task is deleted (task_id is then NULL): no foreign key.
    deleted_task_id: Mapped[int | None] = mapped_column(BigId)
    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), active_history=True
    )
    skill_queue_id: Mapped[int | None] = mapped_column(
        ForeignKey("skill_queues.id", ondelete="SET NULL"), active_history=True
    )
    # The agent as users.id (no foreign key: a deleted user's attempts stay) and login.
    agent_id: Mapped[int] = mapped_column(Integer)
    agent_login: Mapped[str] = mapped_column(String(255), active_history=True)
    delivered_at: Mapped[datetime] = mapped_column(UTCDateTime, active_history=True)
    # The customer's zone when the task was delivered (the task's, else its campaign's
    # default): the best hours read the customer's clock of the moment of the attempt.
    time_zone: Mapped[str | None] = mapped_column(String(64), active_history=True)
    call_started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, active_history=True)
    # The call (startCall): its id as the Desk API names it, the phone item dialled and
    # its number, and who placed it (CallPlacement: the desk or the contact flow).
    call_id: Mapped[str | None] = mapped_column(String(36))
    phone_key: Mapped[str | None] = mapped_column(String(255))
    phone_number: Mapped[str | None] = mapped_column(String(64))
    placed_by: Mapped[str | None] = mapped_column(String(16))
    contact_id: Mapped[str | None] = mapped_column(String(255))
    connected_at: Mapped[datetime | None] = mapped_column(UTCDateTime, active_history=True)
    call_ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime, active_history=True)
    call_result: Mapped[str | None] = mapped_column(String(16))  # CallResult once a call ends
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, active_history=True)
    outcome: Mapped[str | None] = mapped_column(String(16), active_history=True)
    # The codes chosen at close: [{"key": ..., "value": ...}, ...] in the agent's order.
    work_codes: Mapped[list] = mapped_column(JSON, default=list, active_history=True)
    # The reports' rollups, kept by the ledger in the attempt's own transaction: a person was
    # reached (a code flagged contact, else an ANSWERED call), the campaign's goal was met (a
    # code flagged success). A flag changed later leaves attempts already made as they were.
    contact: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), active_history=True
    )
    success: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), active_history=True
    )
    # EndedHow; NULL while the attempt is open (the task still reserved for its agent).
    ended_how: Mapped[str | None] = mapped_column(String(20), active_history=True)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime, active_history=True)
    # The agent's note on the attempt, written when closing (at most NOTE_LIMIT characters).
    note: Mapped[str | None] = mapped_column(Text)

    @property
    def is_open(self) -> bool:
        return self.ended_how is None

    @property
    def preview_time(self) -> timedelta | None:
        """Delivery to the call's start; without a call, to the attempt's end."""
        until = self.call_started_at or self.ended_at
        return None if until is None else until - self.delivered_at

    @property
    def call_time(self) -> timedelta | None:
        """The call's start to its end."""
        if self.call_started_at is None or self.call_ended_at is None:
            return None
        return self.call_ended_at - self.call_started_at

    @property
    def wrap_up_time(self) -> timedelta | None:
        """The call's end to the close."""
        if self.call_ended_at is None or self.closed_at is None:
            return None
        return self.closed_at - self.call_ended_at


class AgentStateSpan(db.Model):
    """A stretch of time an agent spent in one desk state (AVAILABLE, AWAY, OFFLINE), written
    by the state change that starts it and ended by the next: the reports' time Available,
    Away and in work. Recorded from the first change after this table existed."""

    __tablename__ = "agent_state_spans"
    __table_args__ = (
        # An agent's spans by time (the agents report), and the open one.
        Index("ix_agent_state_spans_agent", "agent_id", "started_at"),
        Index("ix_agent_state_spans_tenant_time", "tenant_id", "started_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    # The agent as users.id (no foreign key: a deleted user's time stays) and login.
    agent_id: Mapped[int] = mapped_column(Integer)
    agent_login: Mapped[str] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(String(16))
    # AWAY's reason (an away reason's name as it was then); None: none chosen, or not AWAY.
    reason: Mapped[str | None] = mapped_column(String(40))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
