"""Supervisors who sign in to the web UI, and their role in each tenant they may see."""

from __future__ import annotations

import enum
from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import Boolean, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.tenants import Tenant
from app.models.types import UTCDateTime, utcnow


class Role(enum.StrEnum):
    """What a person may do in a tenant's console; each role holds the ones below it."""

    ANALYST = "analyst"  # reads: campaigns, tasks, reports, wallboard
    SUPERVISOR = "supervisor"  # runs the work: campaigns, tasks, intake, rules, agents
    ADMINISTRATOR = "administrator"  # keys, sign-in and SCIM, webhooks, people, audit

    @property
    def rank(self) -> int:
        return list(Role).index(self)

    def holds(self, needed: Role) -> bool:
        return self.rank >= needed.rank


class GivenBy(enum.StrEnum):
    """Who gave a role, and so who changes it: a person (an operator, an administrator),
    the console's identity provider (its groups at each sign-in), or the tenant's own
    identity provider (a SCIM role group the person is a member of, as a user)."""

    GRANT = "grant"
    CONSOLE_PROVIDER = "console-provider"
    SCIM = "scim"


class TenantRole(db.Model):
    """One supervisor's role in one tenant, and who gave it."""

    __tablename__ = "supervisor_tenants"

    supervisor_id: Mapped[int] = mapped_column(
        ForeignKey("supervisors.id", ondelete="CASCADE"), primary_key=True
    )
    tenant_id: Mapped[int] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    role: Mapped[Role] = mapped_column(
        String(16), default=Role.SUPERVISOR, server_default=Role.SUPERVISOR.value
    )
    given_by: Mapped[GivenBy] = mapped_column(
        String(16), default=GivenBy.GRANT, server_default=GivenBy.GRANT.value
    )

    tenant: Mapped[Tenant] = relationship(lazy="joined")


supervisor_tenants = TenantRole.__table__


class Supervisor(UserMixin, db.Model):
    """A person who runs the service from the browser: an administrator of every tenant,
    or of the tenants listed in `roles`, each with its role."""

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

    roles: Mapped[list[TenantRole]] = relationship(cascade="all, delete-orphan")

    @property
    def tenants(self) -> list[Tenant]:
        """The tenants listed in `roles` (none for an account of every tenant)."""
        return [grant.tenant for grant in self.roles]

    def role_in(self, tenant_id: int) -> Role | None:
        """The person's role in the tenant, None when they may not see it."""
        if self.all_tenants:
            return Role.ADMINISTRATOR
        return next((Role(g.role) for g in self.roles if g.tenant_id == tenant_id), None)

    def may_see(self, tenant: Tenant) -> bool:
        return self.role_in(tenant.id) is not None


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
