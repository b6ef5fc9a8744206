"""What a tenant's identity provider provisions besides users (SCIM): its groups, their
members, and what a group's name means here (the skill queue its members work)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Integer, String, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.campaigns import SkillQueue
from app.models.types import UTCDateTime, new_resource_id, text_c, utcnow
from app.models.users import User

directory_group_members = Table(
    "directory_group_members",
    db.metadata,
    Column("group_id", ForeignKey("directory_groups.id", ondelete="CASCADE"), primary_key=True),
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True),
)


class DirectoryGroup(db.Model):
    """A group the identity provider pushed, by its display name (unique per tenant)."""

    __tablename__ = "directory_groups"
    __table_args__ = (
        UniqueConstraint("tenant_id", "display_name"),
        Index("ix_directory_groups_resource_id", "resource_id", unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    resource_id: Mapped[str] = mapped_column(String(36), default=new_resource_id)
    display_name: Mapped[str] = mapped_column(text_c(255))
    external_id: Mapped[str | None] = mapped_column(String(255))
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    members: Mapped[list[User]] = relationship(
        secondary=directory_group_members, order_by="User.login_user_id"
    )


class GroupMapping(db.Model):
    """What the members of a group of this name get: a skill queue they work, or a console
    role in the tenant (`role`, app.models.supervisors.Role). Set before or after the group
    is pushed; a group without one gives its members nothing."""

    __tablename__ = "group_mappings"
    __table_args__ = (UniqueConstraint("tenant_id", "group_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    group_name: Mapped[str] = mapped_column(text_c(255))
    skill_queue_id: Mapped[int | None] = mapped_column(
        ForeignKey("skill_queues.id", ondelete="CASCADE")
    )
    role: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    skill_queue: Mapped[SkillQueue | None] = relationship()
