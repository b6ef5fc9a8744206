"""Supervisors who sign in to the web UI, and the tenants each may see."""

from __future__ import annotations

from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import Boolean, Column, ForeignKey, String, Table
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.tenants import Tenant
from app.models.types import UTCDateTime, utcnow

supervisor_tenants = Table(
    "supervisor_tenants",
    db.metadata,
    Column("supervisor_id", ForeignKey("supervisors.id", ondelete="CASCADE"), primary_key=True),
    Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True),
)


class Supervisor(UserMixin, db.Model):
    """A person who runs the service from the browser: every tenant, or the ones listed."""

    __tablename__ = "supervisors"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(255), unique=True)
    # Empty for a supervisor who signs in only through the console's identity provider.
    password_hash: Mapped[str] = mapped_column(String(255))
    # Once the console has an identity provider, only break-glass accounts sign in with a
    # password; everyone else signs in through the provider.
    break_glass: Mapped[bool] = mapped_column(Boolean, default=False)
    # Made and kept by the console's identity provider (its tenants follow the groups at
    # each sign-in): the provider's issuer and subject.
    sso_subject: Mapped[str | None] = mapped_column(String(512), unique=True, index=True)
    all_tenants: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    tenants: Mapped[list[Tenant]] = relationship(secondary=supervisor_tenants)

    def may_see(self, tenant: Tenant) -> bool:
        return self.all_tenants or any(t.id == tenant.id for t in self.tenants)


class LoginSession(db.Model):
    """A signed-in browser session, kept on the server so that signing out ends it.

    The cookie carries a random token; only its SHA-256 is stored.
    """

    __tablename__ = "login_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    supervisor_id: Mapped[int] = mapped_column(
        ForeignKey("supervisors.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
