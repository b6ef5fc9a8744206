"""Identity providers: who signs a tenant's agents in (SAML 2.0, OpenID Connect or a
directory over LDAP), and who signs supervisors in to the console; the assertions already
used, so that none is accepted twice."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.tenants import Tenant
from app.models.types import UTCDateTime, utcnow


class ProviderKind(StrEnum):
    SAML = "saml"
    OIDC = "oidc"
    LDAP = "ldap"


class IdentityProvider(db.Model):
    """A tenant's identity provider for the desk, or (no tenant) the console's.

    `settings` holds what the kind needs (app/services/sso/providers.py documents each
    key); `sealed_secret` a secret the service must show the provider (an OpenID client
    secret, a directory's service password), sealed with a key derived from SECRET_KEY,
    never shown back.
    """

    __tablename__ = "identity_providers"

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int | None] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), unique=True
    )
    kind: Mapped[str] = mapped_column(String(8))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    sealed_secret: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    tenant: Mapped[Tenant | None] = relationship()


class SeenAssertion(db.Model):
    """An assertion (SAML) or token (OpenID) already accepted, by a digest of its issuer and
    id, kept until it would have expired anyway: a replay finds it and is refused."""

    __tablename__ = "sso_seen_assertions"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
