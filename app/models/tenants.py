"""Tenants (platform, company, environment) and their API keys."""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum

from sqlalchemy import Boolean, ForeignKey, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.types import UTCDateTime, utcnow

# Any AWS region name (a caller's secrets manager, an Amazon Connect instance).
AWS_REGION = re.compile(r"[a-z]{2}(-gov)?-[a-z]+-[0-9]{1,2}")
# The regions where the service runs, one of which is each tenant's.
REGIONS = (
    "us-east-1",
    "us-west-2",
    "ca-central-1",
    "eu-west-2",
    "eu-central-1",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-northeast-1",
    "ap-northeast-2",
    "af-south-1",
)


class AuthMode(StrEnum):
    """How the tenant's contact-centre instance signs users in."""

    SAML = "saml"
    DIRECTORY = "directory"
    INTERNAL = "internal"


class InstanceKind(StrEnum):
    """Where the tenant's contact-centre users live."""

    LOCAL = "local"
    AMAZON_CONNECT = "amazon-connect"


class Tenant(db.Model):
    """One environment of one company on the platform."""

    __tablename__ = "tenants"
    __table_args__ = (UniqueConstraint("platform", "company_code", "environment"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform: Mapped[str] = mapped_column(String(64))
    company_code: Mapped[str] = mapped_column(String(128))
    environment: Mapped[str] = mapped_column(String(128))
    region: Mapped[str] = mapped_column(String(32))
    auth_mode: Mapped[str] = mapped_column(String(16))
    instance_kind: Mapped[str] = mapped_column(String(16), default=InstanceKind.LOCAL)
    connect_instance_id: Mapped[str | None] = mapped_column(String(100))
    connect_region: Mapped[str | None] = mapped_column(String(32))
    # The Contact Control Panel embedded in the desk (Amazon Connect only): its https URL,
    # e.g. https://example.my.connect.aws/ccp-v2/; none: the desk dials with tel: links.
    connect_ccp_url: Mapped[str | None] = mapped_column(String(255))
    # Whether agents may sign in to the desk with a password of ours; a tenant whose
    # identity provider signs everyone in may switch it off.
    local_agent_passwords: Mapped[bool] = mapped_column(Boolean, default=True)
    # The data item that names the person across campaigns (an account or customer
    # number), which contact limits per person count by; none: a person is a clientId.
    person_key: Mapped[str | None] = mapped_column(String(255))
    # The user template of a user an identity provider creates (SCIM) without naming one.
    provisioning_template: Mapped[str | None] = mapped_column(String(255))
    # Whether a user an identity provider creates is created in the contact-centre
    # instance too (as createInAmazonConnect asks of the User API).
    provisioning_in_instance: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false()
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    api_keys: Mapped[list[ApiKey]] = relationship(
        back_populates="tenant", cascade="all, delete-orphan", order_by="ApiKey.id"
    )

    @property
    def label(self) -> str:
        return f"{self.company_code}/{self.environment}"


class ApiKey(db.Model):
    """A hashed API key; a rotated-out key carries the time it stops working."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # What the key opens: the JSON APIs ("api") or the tenant's SCIM endpoints ("scim").
    purpose: Mapped[str] = mapped_column(String(8), default="api", server_default="api")

    tenant: Mapped[Tenant] = relationship(back_populates="api_keys")
