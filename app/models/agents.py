"""Agents: the tenant's users who work tasks at the desk, their skill queues and sessions.

An agent is a provisioned user (`users`); these tables add what the desk needs: the skill
queues each agent works (and the ones a template gives new users), and signed-in desk
sessions kept on the server like the supervisors'.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, ForeignKey, String, Table
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
