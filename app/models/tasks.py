"""Tasks (preview records), their data items and their work codes.

Data items live in their own table, indexed by (campaign, key, value) and by
(campaign, key, number), so a search criterion is an index range scan rather than a
scan over every task's data.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.campaigns import Campaign, SkillQueue
from app.models.types import BigId, UTCDateTime, text_c, utcnow


def _where(condition: str) -> dict:
    """A partial index on both databases: rows where the column is NULL are never searched."""
    return {"sqlite_where": text(condition), "postgresql_where": text(condition)}


class WorkedState(StrEnum):
    NOTWORKED = "NOTWORKED"
    WORKED = "WORKED"
    COMPLETED = "COMPLETED"
    REMOVED = "REMOVED"


class Task(db.Model):
    """One record of a campaign: what an agent previews and may call."""

    __tablename__ = "tasks"
    __table_args__ = (
        UniqueConstraint("campaign_id", "client_id"),
        Index("ix_tasks_campaign_order", "campaign_id", "id"),
        Index("ix_tasks_campaign_state", "campaign_id", "worked_state"),
        Index(
            "ix_tasks_campaign_next_work",
            "campaign_id",
            "next_earliest_work_at",
            **_where("next_earliest_work_at IS NOT NULL"),
        ),
        # Ending with hold_until, it finds the tasks held for an agent now without reading
        # the ones whose hold has ended.
        Index(
            "ix_tasks_campaign_agent",
            "campaign_id",
            "preferred_agent",
            "hold_until",
            **_where("preferred_agent IS NOT NULL"),
        ),
        # Delivery (app/services/delivery): a campaign's next new task, its next due
        # reschedule, and the holds the clock ends.
        Index("ix_tasks_delivery_new", "campaign_id", "id", **_where("worked_state = 'NOTWORKED'")),
        Index(
            "ix_tasks_delivery_due",
            "campaign_id",
            "next_earliest_work_at",
            "id",
            **_where("worked_state = 'WORKED'"),
        ),
        Index(
            "ix_tasks_delivery_untimed",
            "campaign_id",
            "id",
            **_where("worked_state = 'WORKED' AND next_earliest_work_at IS NULL"),
        ),
        Index("ix_tasks_hold", "hold_until", **_where("preferred_agent IS NOT NULL")),
        # The task an agent holds (few tasks are reserved at any time).
        Index("ix_tasks_reserved_by", "reserved_by_id", **_where("reserved_by_id IS NOT NULL")),
        # The zones a campaign's open tasks are in (calling windows), one probe per zone.
        Index(
            "ix_tasks_campaign_zone",
            "campaign_id",
            "time_zone",
            **_where("worked_state IN ('NOTWORKED', 'WORKED')"),
        ),
        # The sets of zones a campaign's open tasks spanning several are in, one probe each.
        Index(
            "ix_tasks_campaign_zones",
            "campaign_id",
            "zones",
            **_where("worked_state IN ('NOTWORKED', 'WORKED') AND zones != ''"),
        ),
        # The sets of regions a campaign's open tasks are in (regional calling rules).
        Index(
            "ix_tasks_campaign_regions",
            "campaign_id",
            "regions",
            **_where("worked_state IN ('NOTWORKED', 'WORKED') AND regions != ''"),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    record_id: Mapped[str] = mapped_column(String(36), unique=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    client_id: Mapped[str] = mapped_column(text_c(255))
    # The data key that carries client_id (clientIdFieldName when the task was added).
    client_id_field: Mapped[str] = mapped_column(String(255), default="Id")
    preferred_agent: Mapped[str | None] = mapped_column(text_c(255))
    # Deferred, so that deleting a tenant may remove its queues and tasks in any order.
    skill_queue_id: Mapped[int] = mapped_column(
        ForeignKey("skill_queues.id", deferrable=True, initially="DEFERRED")
    )
    time_zone: Mapped[str] = mapped_column(text_c(64))
    # Where the customer is: the regions of its State item and numbers, `,US-FL,US-GA,`
    # (app/services/regions.py); empty when none is known.
    regions: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Every zone the task is in when its numbers span several (`,America/Boise,America/
    # Los_Angeles,`; `time_zone` is the first of them); empty: `time_zone` alone.
    zones: Mapped[str] = mapped_column(Text, default="", server_default="")
    worked_state: Mapped[str] = mapped_column(text_c(16), default=WorkedState.NOTWORKED)
    work_attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_attempt_agent: Mapped[str | None] = mapped_column(String(255))
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    next_earliest_work_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Counts every change; a form carries the version it showed, so a save from a stale
    # page is refused instead of silently undoing a newer change.
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    # The desk: the agent (users.id) a delivered task is reserved for, and the reservation's
    # last activity (it lapses after OFFER_TIMEOUT_SECONDS without any). No foreign key, so
    # adding it never rebuilds this large table; deleting a user releases its reservations.
    reserved_by_id: Mapped[int | None] = mapped_column(Integer)
    reserved_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Until when the task is offered only to its preferred agent (set when the task becomes
    # available with a preferred agent); past it, the preference is cleared.
    hold_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # A supervisor took the task back from this agent (loginUserId): it is not offered to
    # them again until `passed_over_until`, so it goes to another agent of its queue.
    passed_over_agent: Mapped[str | None] = mapped_column(String(255))
    passed_over_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Why the service itself closed the task (e.g. "attempt limit reached"); none otherwise.
    close_reason: Mapped[str | None] = mapped_column(String(255))

    campaign: Mapped[Campaign] = relationship()
    skill_queue: Mapped[SkillQueue] = relationship(lazy="joined")
    items: Mapped[list[TaskItem]] = relationship(
        back_populates="task",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="TaskItem.position",
    )
    work_codes: Mapped[list[WorkCode]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="WorkCode.position"
    )


class TaskItem(db.Model):
    """A key/value data item shown to the agent; `number` holds the value when it is numeric.

    Keyed by (task, position): on SQLite the table is stored in that order (WITHOUT ROWID),
    so a task's items sit together and a bulk load maintains one fewer b-tree.
    """

    __tablename__ = "task_items"
    __table_args__ = (
        Index("ix_task_items_campaign_key_value", "campaign_id", "key", "value"),
        Index(
            "ix_task_items_campaign_key_number",
            "campaign_id",
            "key",
            "number",
            **_where("number IS NOT NULL"),
        ),
        {"sqlite_with_rowid": False},
    )

    task_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True
    )
    # Copied from the task so that criteria on a campaign's items need no join.
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(text_c(255))
    value: Mapped[str] = mapped_column(text_c())
    number: Mapped[float | None] = mapped_column(Float)
    display_order: Mapped[int | None] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    # A phone item's: whether its value is a number that exists (services/phone_numbers.py);
    # NULL for every other item.
    valid_number: Mapped[bool | None] = mapped_column(Boolean)

    task: Mapped[Task] = relationship(back_populates="items")


class WorkCode(db.Model):
    """A work code an agent set on completing the task: group (`key`) and code (`value`)."""

    __tablename__ = "work_codes"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    task_id: Mapped[int] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(String(255))
    position: Mapped[int] = mapped_column(Integer, default=0)
