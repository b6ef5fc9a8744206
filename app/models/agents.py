"""Agents: the tenant's users who work tasks at the desk, their skill queues and sessions.

An agent is a provisioned user (`users`); these tables add what the desk needs: the skill
queues each agent works (and the ones a template gives new users), and signed-in desk
sessions kept on the server like the supervisors'.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, ForeignKey, Integer, String, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.types import UTCDateTime, utcnow


class AgentState(StrEnum):
    OFFLINE = "OFFLINE"
    AVAILABLE = "AVAILABLE"
    AWAY = "AWAY"


agent_skill_queues = Table(
    "agent_skill_queues",
    db.metadata,
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("skill_queue_id", ForeignKey("skill_queues.id", ondelete="CASCADE"), primary_key=True),
)

template_skill_queues = Table(
    "template_skill_queues",
    db.metadata,
    Column(
        "user_template_id", ForeignKey("user_templates.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("skill_queue_id", ForeignKey("skill_queues.id", ondelete="CASCADE"), primary_key=True),
)


class AgentSession(db.Model):
    """A signed-in desk session; the cookie carries a random token, only its SHA-256 is kept."""

    __tablename__ = "agent_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class AwayReason(db.Model):
    """A reason the tenant offers for being AWAY (Break, Lunch, Training…), chosen at the
    desk or with setAgentState's `reason`. Spans and the agent keep the name as it was."""

    __tablename__ = "away_reasons"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(40))
    # The desk offers the reasons in this order (lower first), then by name.
    sort_order: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
