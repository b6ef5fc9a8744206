"""API keys: issued at random, stored as SHA-256 hashes, checked in constant time.

A rotated-out key keeps working for a grace period longer than the hour a client may
cache a key, so clients pick up the new key without a failed call.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import bindparam, or_, select

from app.db.plain_reads import PlainRead
from app.extensions import db
from app.models import ApiKey, Tenant
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record

_DUMMY_HASH = hashlib.sha256(b"no such tenant").hexdigest()


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _at(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="milliseconds") if moment else None


def _new_key(tenant: Tenant, key: str | None) -> tuple[str, ApiKey]:
    key = key or secrets.token_urlsafe(32)
    row = ApiKey(tenant=tenant, key_hash=hash_key(key), prefix=key[:6])
    db.session.add(row)
    db.session.flush()  # its id names it in the trail
    return key, row


def issue_key(tenant: Tenant, key: str | None = None, *, actor: Actor) -> str:
    """Give the tenant a new current key and return it; only its hash is kept, and the
    trail records the key's id, never the key or its hash."""
    key, row = _new_key(tenant, key)
    record(actor, Change("api_key.issued", "api_key", str(row.id), tenant.id, after=_fields(row)))
    return key


def rotate_key(tenant: Tenant, grace: timedelta, *, actor: Actor) -> str:
    """Retire the current key after `grace` and issue a new one; the trail records the new
    key's id and the id and expiry of each key it retires."""
    ends = utcnow() + grace
    retired = []
    for old in tenant.api_keys:
        if old.expires_at is None:
            old.expires_at = ends
            retired.append({"id": old.id, "expiresAt": _at(ends)})
    key, row = _new_key(tenant, None)
    after = {**_fields(row), "retired": retired}
    record(actor, Change("api_key.rotated", "api_key", str(row.id), tenant.id, after=after))
    return key


def _fields(row: ApiKey) -> dict:
    """What the trail says of a key: its id and expiry, never any of the key itself."""
    return {"id": row.id, "expiresAt": _at(row.expires_at)}


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
    """The tenant whose live key this is, or None."""
    found = identify(platform, company, environment, presented)
    return db.session.get(Tenant, found.tenant_id) if found else None


class KeyOwner(NamedTuple):
    """Who presented a live key: the tenant's id and region, and the key's id."""

    tenant_id: int
    region: str
    key_id: int


_KEYS, _TENANTS = ApiKey.__table__, Tenant.__table__
# Every API request sends it: built once, read on the driver.
_LIVE_KEYS = PlainRead(
    select(_KEYS.c.key_hash, _TENANTS.c.id, _TENANTS.c.region, _KEYS.c.id)
    .join(_TENANTS, _TENANTS.c.id == _KEYS.c.tenant_id)
    .where(
        _TENANTS.c.platform == bindparam("platform"),
        _TENANTS.c.company_code == bindparam("company"),
        _TENANTS.c.environment == bindparam("environment"),
        or_(_KEYS.c.expires_at.is_(None), _KEYS.c.expires_at > bindparam("now")),
    )
)


def identify(platform: str, company: str, environment: str, presented: str) -> KeyOwner | None:
    """Whose live key this is (the key's id names who acts in the trail), or None.

    One query and the same comparisons whether the tenant exists or not, so the time an
    answer takes tells nothing about which tenants exist.
    """
    where = {"platform": platform, "company": company, "environment": environment}
    rows = _LIVE_KEYS.all(db.session, **where, now=utcnow())
    presented_hash = hash_key(presented)
    matched = None
    for stored, tenant_id, region, key_id in rows or [(_DUMMY_HASH, None, None, None)]:
        if hmac.compare_digest(stored, presented_hash) and tenant_id is not None:
            matched = KeyOwner(tenant_id, region, key_id)
    return matched
