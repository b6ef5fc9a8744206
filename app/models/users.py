"""People: supervisors of the UI, provisioned users, their templates, the local instance."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.campaigns import SkillQueue
from app.models.tenants import Tenant
from app.models.types import UTCDateTime, new_resource_id, text_c, utcnow


class PhoneType(StrEnum):
    SOFT_PHONE = "SOFT_PHONE"
    DESK_PHONE = "DESK_PHONE"


class UserTemplate(db.Model):
    """A named template for new users, and what it stands for in the contact-centre instance."""

    __tablename__ = "user_templates"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(text_c(255))
    security_profile_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    routing_profile_id: Mapped[str | None] = mapped_column(String(255))
    hierarchy_group_id: Mapped[str | None] = mapped_column(String(255))
    phone_type: Mapped[str] = mapped_column(String(16), default=PhoneType.SOFT_PHONE)
    auto_accept: Mapped[bool] = mapped_column(Boolean, default=False)
    after_contact_work_seconds: Mapped[int] = mapped_column(Integer, default=0)
    desk_phone_number: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    tenant: Mapped[Tenant] = relationship()
    # Skill queues given to the users made from this template.
    default_skill_queues: Mapped[list[SkillQueue]] = relationship(
        secondary="template_skill_queues", order_by="SkillQueue.name"
    )


class User(db.Model):
    """A provisioned user; `connect_user_id` is set once it exists in the instance too."""

    __tablename__ = "users"
    __table_args__ = (
        UniqueConstraint("tenant_id", "login_user_id"),
        Index("ix_users_resource_id", "resource_id", unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    login_user_id: Mapped[str] = mapped_column(text_c(255))
    first_name: Mapped[str] = mapped_column(String(255))
    last_name: Mapped[str] = mapped_column(String(255))
    primary_email: Mapped[str | None] = mapped_column(String(320))
    secondary_email: Mapped[str | None] = mapped_column(String(320))
    user_template_id: Mapped[int] = mapped_column(
        ForeignKey("user_templates.id", deferrable=True, initially="DEFERRED"), index=True
    )
    connect_user_id: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # The desk: a password the agent set through an invitation, and the agent's state.
    password_hash: Mapped[str | None] = mapped_column(String(255))
    invite_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    invite_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    desk_state: Mapped[str] = mapped_column(String(16), default="OFFLINE", server_default="OFFLINE")
    desk_state_since: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Why the agent is AWAY (one of the tenant's away reasons, by name); None: no reason
    # chosen, or not AWAY.
    desk_state_reason: Mapped[str | None] = mapped_column(String(40))
    # The desk's last heartbeat: silent past AGENT_IDLE_SECONDS counts as offline.
    last_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The agent's own IANA zone: the desk shows times in it (UTC when none).
    time_zone: Mapped[str | None] = mapped_column(String(64))
    # Provisioning by an identity provider (SCIM): the resource's id (never reused; set for
    # every user, nullable only because rows from before it were filled by the migration),
    # a deactivated user keeps its record and cannot sign in; the provider's own id for it;
    # a version that each change raises (the resource's ETag) and when it last changed.
    resource_id: Mapped[str] = mapped_column(String(36), nullable=True, default=new_resource_id)
    active: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")
    external_id: Mapped[str | None] = mapped_column(String(255))
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The provider's e-mail entries as it sent them ([{value, type, primary}]; None: made
    # by the User API, whose two addresses are the entries), and its department (which
    # named the user template when it was created).
    email_entries: Mapped[list[dict] | None] = mapped_column(JSON)
    # Every e-mail address of the user, lower case, as `,a@x.com,b@y.com,`: what a
    # provider's filter on emails.value reads.
    email_index: Mapped[str] = mapped_column(Text, default="", server_default="")
    department: Mapped[str | None] = mapped_column(String(255))

    tenant: Mapped[Tenant] = relationship()
    template: Mapped[UserTemplate] = relationship()
    skill_queues: Mapped[list[SkillQueue]] = relationship(
        secondary="agent_skill_queues", order_by="SkillQueue.name"
    )


class LocalInstanceUser(db.Model):
    """A user of the embedded contact-centre instance, kept in the service's own database."""

    __tablename__ = "local_instance_users"
    __table_args__ = (UniqueConstraint("tenant_id", "username"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(36), unique=True)
    username: Mapped[str] = mapped_column(text_c(255))
    first_name: Mapped[str] = mapped_column(String(255))
    last_name: Mapped[str] = mapped_column(String(255))
    email: Mapped[str | None] = mapped_column(String(320))
    security_profile_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    routing_profile_id: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
