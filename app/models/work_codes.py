"""Work-code groups: the codes an agent picks when closing a task, assigned to skill queues.

A task's chosen codes are stored on the task itself (`tasks.WorkCode`: key = group name,
value = code name), so a renamed, disabled or deleted code never changes an old task.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.types import UTCDateTime, text_c, utcnow

queue_work_code_groups = Table(
    "queue_work_code_groups",
    db.metadata,
    Column("skill_queue_id", ForeignKey("skill_queues.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "work_code_group_id",
        ForeignKey("work_code_groups.id", ondelete="CASCADE"),
        primary_key=True,
    ),
)


class WorkCodeGroup(db.Model):
    __tablename__ = "work_code_groups"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(text_c(255))
    # A closing must carry a code of every required group of the task's queue.
    required: Mapped[bool] = mapped_column(Boolean, default=False)
    # Several codes of the group at once, or exactly one.
    multiple: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    codes: Mapped[list[WorkCodeChoice]] = relationship(
        cascade="all, delete-orphan",
        order_by="(WorkCodeChoice.sort_order, WorkCodeChoice.name)",
        back_populates="group",
    )
    skill_queues = relationship(
        "SkillQueue", secondary=queue_work_code_groups, order_by="SkillQueue.name"
    )


class WorkCodeChoice(db.Model):
    """A code of a group, with the outcome it implies (COMPLETE, RESCHEDULE, REMOVE or none)."""

    __tablename__ = "work_code_choices"
    __table_args__ = (UniqueConstraint("group_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(
        ForeignKey("work_code_groups.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(text_c(255))
    description: Mapped[str] = mapped_column(Text, default="")
    sort_order: Mapped[int] = mapped_column(Integer, default=0)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    outcome: Mapped[str | None] = mapped_column(String(16))
    # RESCHEDULE: the delay offered to the agent (who may change it).
    reschedule_minutes: Mapped[int | None] = mapped_column(Integer)
    # Choosing it puts the task's phone numbers on the tenant's do-not-call list.
    adds_to_dnc: Mapped[bool] = mapped_column(Boolean, default=False)
    # Choosing it revokes the consent of the task's phone numbers, in every campaign.
    revokes_consent: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The call result (CallResult) after which the desk preselects this code, e.g. BUSY.
    suggested_for: Mapped[str | None] = mapped_column(String(16))
    # The reports: choosing it means a person was reached (`contact`), the campaign's goal
    # was met (`success`).
    contact: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    success: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    group: Mapped[WorkCodeGroup] = relationship(back_populates="codes")
