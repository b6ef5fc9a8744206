"""API keys: issued at random, stored as SHA-256 hashes, checked in constant time.

A rotated-out key keeps working for a grace period longer than the hour a client may
cache a key, so clients pick up the new key without a failed call.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from sqlalchemy import or_, select

from app.extensions import db
from app.models import ApiKey, Tenant
from app.models.types import utcnow

_DUMMY_HASH = hashlib.sha256(b"no such tenant").hexdigest()


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def issue_key(tenant: Tenant, key: str | None = None) -> str:
    """Give the tenant a new current key and return it; only its hash is kept."""
    key = key or secrets.token_urlsafe(32)
    db.session.add(ApiKey(tenant=tenant, key_hash=hash_key(key), prefix=key[:6]))
    return key


def rotate_key(tenant: Tenant, grace: timedelta) -> str:
    """Retire the current key after `grace` and issue a new one."""
    ends = utcnow() + grace
    for key in tenant.api_keys:
        if key.expires_at is None:
            key.expires_at = ends
    return issue_key(tenant)


def key_states(tenant: Tenant, now: datetime | None = None) -> list[tuple[ApiKey, str]]:
    """Every key of the tenant, newest first, with its state: current, previous or expired."""
    now = now or utcnow()
    states = []
    for key in sorted(tenant.api_keys, key=lambda k: k.id, reverse=True):
        if key.expires_at is None:
            state = "current"
        elif key.expires_at > now:
            state = "previous"
        else:
            state = "expired"
        states.append((key, state))
    return states


def key_matches(tenant: Tenant, presented: str) -> bool:
    """True when `presented` is a live key of the tenant."""
    return (
        authenticate(tenant.platform, tenant.company_code, tenant.environment, presented) == tenant
    )


def authenticate(platform: str, company: str, environment: str, presented: str) -> Tenant | None:
    """The tenant whose live key this is, or None.

    One query and the same comparisons whether the tenant exists or not, so the time an
    answer takes tells nothing about which tenants exist.
    """
    rows = db.session.execute(
        select(ApiKey.key_hash, ApiKey.tenant_id)
        .join(Tenant, Tenant.id == ApiKey.tenant_id)
        .where(
            Tenant.platform == platform,
            Tenant.company_code == company,
            Tenant.environment == environment,
            or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > utcnow()),
        )
    ).all()
    presented_hash = hash_key(presented)
    matched = None
    for stored, tenant_id in rows or [(_DUMMY_HASH, None)]:
        if hmac.compare_digest(stored, presented_hash):
            matched = tenant_id
    return db.session.get(Tenant, matched) if matched is not None else None
