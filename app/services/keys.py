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


def live_keys(tenant: Tenant, now: datetime | None = None) -> list[ApiKey]:
    """The tenant's keys that are accepted now: the current one and any still in grace."""
    now = now or utcnow()
    return list(
        db.session.scalars(
            select(ApiKey)
            .where(ApiKey.tenant_id == tenant.id)
            .where(or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > now))
            .order_by(ApiKey.id)
        )
    )


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


def key_matches(tenant: Tenant | None, presented: str) -> bool:
    """True when `presented` is a live key of the tenant; same work whether or not it exists."""
    presented_hash = hash_key(presented)
    hashes = [key.key_hash for key in live_keys(tenant)] if tenant else [_DUMMY_HASH]
    matched = False
    for stored in hashes:
        matched |= hmac.compare_digest(stored, presented_hash)
    return matched
