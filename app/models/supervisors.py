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
    password_hash: Mapped[str] = mapped_column(String(255))
    all_tenants: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    tenants: Mapped[list[Tenant]] = relationship(secondary=supervisor_tenants)

    def may_see(self, tenant: Tenant) -> bool:
        return self.all_tenants or any(t.id == tenant.id for t in self.tenants)
