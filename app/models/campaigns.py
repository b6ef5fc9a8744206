"""Campaigns and the skill queues that deliver their tasks."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Boolean, ForeignKey, Integer, String, Text, UniqueConstraint, true
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.tenants import Tenant
from app.models.types import UTCDateTime, text_c, utcnow

DEFAULT_CLIENT_ID_FIELD = "Id"


class CampaignType(StrEnum):
    PREVIEW = "preview"
    PROGRESSIVE = "progressive"


class CallPlacement(StrEnum):
    """Who places a campaign's calls: the agent's desk (the softphone, the CCP or a `tel:`
    link), or the contact centre's contact flow (Amazon Connect's StartOutboundVoiceContact)."""

    DESK = "desk"
    CONTACT_FLOW = "contact-flow"


# The preview countdown after which the desk dials by itself (progressive dialling).
AUTO_DIAL_SECONDS = (5, 300)


class CampaignStatus(StrEnum):
    """Where a campaign is in its life: delivering, paused (delivers nothing, still takes
    tasks) or archived (delivers nothing, takes no new tasks, hidden from lists)."""

    ACTIVE = "ACTIVE"
    PAUSED = "PAUSED"
    ARCHIVED = "ARCHIVED"


class SkillQueue(db.Model):
    """A queue of the tenant's contact-centre instance, addressed by its case-sensitive name."""

    __tablename__ = "skill_queues"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(text_c(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Hours of operation (app/services/schedules/hours.py): none means always open.
    schedule_id: Mapped[int | None] = mapped_column(
        ForeignKey("schedules.id", ondelete="SET NULL"), index=True
    )
    # Seconds of wrap-up (the call's end to the close) after which the desk warns the agent;
    # None: no limit. The desk never closes a task by itself.
    wrap_up_limit_seconds: Mapped[int | None] = mapped_column(Integer)

    tenant: Mapped[Tenant] = relationship()
    schedule = relationship("Schedule")
    work_code_groups = relationship(
        "WorkCodeGroup",
        secondary="queue_work_code_groups",
        order_by="WorkCodeGroup.name",
        viewonly=True,
    )


class Campaign(db.Model):
    """A Preview or Progressive campaign with its default skill queue and time zone."""

    __tablename__ = "campaigns"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    type: Mapped[str] = mapped_column(String(16), default=CampaignType.PREVIEW)
    default_skill_queue_id: Mapped[int] = mapped_column(
        ForeignKey("skill_queues.id", deferrable=True, initially="DEFERRED"), index=True
    )
    default_time_zone: Mapped[str] = mapped_column(String(64))
    client_id_field_name: Mapped[str] = mapped_column(String(255), default=DEFAULT_CLIENT_ID_FIELD)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # The desk: when an agent last received one of its tasks; campaigns sharing a queue
    # take turns, least recently delivered from first (app/services/delivery).
    last_delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # A calling window read in each task's own zone (minutes after local midnight; a window
    # whose end is not after its start crosses midnight); none means any time.
    window_opens_at: Mapped[int | None] = mapped_column(Integer)
    window_closes_at: Mapped[int | None] = mapped_column(Integer)
    # Attempts after which a reschedule closes the task COMPLETED instead; none means no limit.
    max_attempts: Mapped[int | None] = mapped_column(Integer)
    # The country whose national format intake files may write its numbers in (ISO 3166-1
    # alpha-2, `US`); none: the files' numbers are E.164 already.
    default_country: Mapped[str | None] = mapped_column(String(2))
    # Whose numbers need a consent in force to be dialled: "none", "all" phone items, or
    # "keys": the phone items named in `consent_keys` (comma-separated, as written).
    # Where a task's zones come from when its data names none: "default" (the campaign's
    # default zone) or "number" (every zone its numbers may be in).
    zone_from: Mapped[str] = mapped_column(String(8), default="default", server_default="default")
    consent_required: Mapped[str] = mapped_column(String(8), default="none", server_default="none")
    consent_keys: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Its life cycle (app/services/campaigns/life_cycle.py): who last changed the status, and when.
    status: Mapped[str] = mapped_column(
        String(16), default=CampaignStatus.ACTIVE.value, server_default=CampaignStatus.ACTIVE.value
    )
    status_changed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    status_changed_by_kind: Mapped[str | None] = mapped_column(String(16))
    status_changed_by_id: Mapped[str | None] = mapped_column(String(255))
    # Dialling (app/services/calls): seconds of preview after which the desk dials by itself
    # (none: the agent dials), and whether the agent may skip (release) a task.
    auto_dial_seconds: Mapped[int | None] = mapped_column(Integer)
    can_skip: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    # CallPlacement; with Amazon Connect, the outbound queue (its ARN), and for calls the
    # contact flow places, the flow's id and the caller id (E.164) shown to the customer.
    call_placement: Mapped[str] = mapped_column(
        String(16), default=CallPlacement.DESK.value, server_default=CallPlacement.DESK.value
    )
    connect_queue_arn: Mapped[str | None] = mapped_column(String(255))
    connect_contact_flow_id: Mapped[str | None] = mapped_column(String(100))
    connect_caller_id: Mapped[str | None] = mapped_column(String(32))

    tenant: Mapped[Tenant] = relationship()
    default_skill_queue: Mapped[SkillQueue] = relationship()
