"""API keys: issued at random, stored as SHA-256 hashes, checked in constant time.

A rotated-out key keeps working for a grace period longer than the hour a client may
cache a key, so clients pick up the new key without a failed call.

A key has a purpose: the JSON APIs (API), or the tenant's SCIM endpoints (SCIM, the bearer
token an identity provider sends). Each opens only its own door, and each purpose has its
own current key, rotated on its own.
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
API, SCIM = "api", "scim"
# What the trail calls a key of each purpose.
_KIND = {API: "api_key", SCIM: "scim_token"}


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _at(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="milliseconds") if moment else None


def _new_key(tenant: Tenant, key: str | None, purpose: str) -> tuple[str, ApiKey]:
    key = key or secrets.token_urlsafe(32)
    row = ApiKey(tenant=tenant, key_hash=hash_key(key), prefix=key[:6], purpose=purpose)
    db.session.add(row)
    db.session.flush()  # its id names it in the trail
    return key, row


def issue_key(tenant: Tenant, key: str | None = None, *, actor: Actor, purpose: str = API) -> str:
    """Give the tenant a new current key and return it; only its hash is kept, and the
    trail records the key's id, never the key or its hash."""
    key, row = _new_key(tenant, key, purpose)
    kind = _KIND[purpose]
    record(actor, Change(f"{kind}.issued", kind, str(row.id), tenant.id, after=_fields(row)))
    return key


def rotate_key(tenant: Tenant, grace: timedelta, *, actor: Actor, purpose: str = API) -> str:
    """Retire the current key (of the purpose) after `grace` and issue a new one; the trail
    records the new key's id and the id and expiry of each key it retires."""
    ends = utcnow() + grace
    retired = []
    for old in tenant.api_keys:
        if old.expires_at is None and old.purpose == purpose:
            old.expires_at = ends
            retired.append({"id": old.id, "expiresAt": _at(ends)})
    key, row = _new_key(tenant, None, purpose)
    after = {**_fields(row), "retired": retired}
    kind = _KIND[purpose]
    record(actor, Change(f"{kind}.rotated", kind, str(row.id), tenant.id, after=after))
    return key


def _fields(row: ApiKey) -> dict:
    """What the trail says of a key: its id and expiry, never any of the key itself."""
    return {"id": row.id, "expiresAt": _at(row.expires_at)}


def key_states(
    tenant: Tenant, now: datetime | None = None, purpose: str = API
) -> list[tuple[ApiKey, str]]:
    """Every key of the tenant (of the purpose), newest first, with its state: current,
    previous or expired."""
    now = now or utcnow()
    states = []
    mine = [k for k in tenant.api_keys if k.purpose == purpose]
    for key in sorted(mine, key=lambda k: k.id, reverse=True):
        if key.expires_at is None:
            state = "current"
        elif key.expires_at > now:
            state = "previous"
        else:
            state = "expired"
        states.append((key, state))
    return states


def key_matches(tenant: Tenant, presented: str, purpose: str = API) -> bool:
    """True when `presented` is a live key of the tenant (of the purpose)."""
    found = authenticate(
        tenant.platform, tenant.company_code, tenant.environment, presented, purpose
    )
    return found == tenant


def authenticate(
    platform: str, company: str, environment: str, presented: str, purpose: str = API
) -> Tenant | None:
    """The tenant whose live key (of the purpose) this is, or None."""
    found = identify(platform, company, environment, presented, purpose)
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
        _KEYS.c.purpose == bindparam("purpose"),
        or_(_KEYS.c.expires_at.is_(None), _KEYS.c.expires_at > bindparam("now")),
    )
)


def identify(
    platform: str, company: str, environment: str, presented: str, purpose: str = API
) -> KeyOwner | None:
    """Whose live key this is (the key's id names who acts in the trail), or None.

    One query and the same comparisons whether the tenant exists or not, so the time an
    answer takes tells nothing about which tenants exist.
    """
    where = {
        "platform": platform,
        "company": company,
        "environment": environment,
        "purpose": purpose,
    }
    rows = _LIVE_KEYS.all(db.session, **where, now=utcnow())
    presented_hash = hash_key(presented)
    matched = None
    for stored, tenant_id, region, key_id in rows or [(_DUMMY_HASH, None, None, None)]:
        if hmac.compare_digest(stored, presented_hash) and tenant_id is not None:
            matched = KeyOwner(tenant_id, region, key_id)
    return matched
