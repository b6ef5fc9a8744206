"""A tenant's contact limits, and the data item that names a person across its campaigns.

A limit is at most `max` calls placed (or contacts made) within a rolling window (`30m`,
`24h`, `7d`: 1 minute to 90 days) to the same number, the same person or the same task,
across every campaign of the tenant or within one campaign. Bad input is refused whole
(nothing added), naming the field at fault; the same limit twice is refused. Every change
leaves its audit record and its event (`contact_limit.added`, `contact_limit.removed`,
`tenant.person_key_set`) in the caller's transaction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from app.extensions import db
from app.models import Campaign, ContactLimit, Tenant
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.campaigns.catalogue import find_campaign
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import (
    CONTACT_LIMIT_CAMPAIGN,
    CONTACT_LIMIT_COUNTING,
    CONTACT_LIMIT_ID,
    CONTACT_LIMIT_MAX,
    CONTACT_LIMIT_PER,
    CONTACT_LIMIT_WITHIN,
    TENANT_PERSON_KEY,
    Field,
)

PERS = ("number", "person", "task")
COUNTINGS = ("calls", "contacts")
MAX_COUNT = 1000
MAX_MINUTES = 90 * 24 * 60
UNITS = {"m": 1, "h": 60, "d": 24 * 60}
DURATION = re.compile(r"(\d{1,6})([mhd])", re.IGNORECASE)
MAX_PERSON_KEY = 255


@dataclass(frozen=True)
class NewLimit:
    """A limit as typed (the CLI's options, the page's form): checked by `add_limit`."""

    max: str | int | None
    within: str | None
    per: str | None
    counting: str | None = "calls"
    campaign: str | None = None
    # Only tasks in this region (a regional calling rule's limit), checked by its door.
    region: str | None = None


def parse_count(value: str | int | None) -> int:
    text = str(value if value is not None else "").strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_COUNT:
        raise InvalidInput(
            f"max must be a whole number from 1 to {MAX_COUNT:,} (not '{text}')",
            field=CONTACT_LIMIT_MAX.said_as("max"),
        )
    return int(text)


def parse_duration(value: str | None) -> int:
    """Minutes of a duration such as `30m`, `24h` or `7d` (at most 90 days)."""
    text = (value or "").strip()
    found = DURATION.fullmatch(text)
    if found is None:
        raise InvalidInput(
            f"within must be a duration such as 30m, 24h or 7d (minutes, hours or days), "
            f"not '{text[:20]}'",
            field=CONTACT_LIMIT_WITHIN.said_as("within"),
        )
    minutes = int(found[1]) * UNITS[found[2].lower()]
    if not 1 <= minutes <= MAX_MINUTES:
        raise InvalidInput(
            f"within must be from 1 minute to 90 days (not {text})",
            field=CONTACT_LIMIT_WITHIN.said_as("within"),
        )
    return minutes


def _choice(value: str | None, choices: tuple[str, ...], field: Field) -> str:
    text = (value or "").strip().lower()
    if text not in choices:
        raise InvalidInput(
            f"{field} must be one of {', '.join(choices)} (not '{(value or '')[:20]}')",
            field=field,
        )
    return text


def _campaign(tenant: Tenant, name: str | None) -> Campaign | None:
    name = (name or "").strip()
    if not name:
        return None
    campaign = find_campaign(tenant, name)
    if campaign is None:
        raise InvalidInput(
            f"campaign '{name[:100]}' is not a campaign of {tenant.label}",
            field=CONTACT_LIMIT_CAMPAIGN.said_as("campaign"),
        )
    return campaign


def duration_words(minutes: int) -> str:
    """`90 minutes`, `24 hours` (a day is said in hours), `7 days`."""
    if minutes % UNITS["d"] == 0 and minutes > UNITS["d"]:
        amount, unit = minutes // UNITS["d"], "day"
    elif minutes % UNITS["h"] == 0:
        amount, unit = minutes // UNITS["h"], "hour"
    else:
        amount, unit = minutes, "minute"
    return f"{amount} {unit}{'' if amount == 1 else 's'}"


def limit_words(limit: ContactLimit) -> str:
    """`at most 7 calls within 7 days per person, across every campaign`."""
    what = limit.counting[:-1] if limit.max_count == 1 else limit.counting
    where = (
        f"in campaign {limit.campaign.name}" if limit.campaign is not None
        else "across every campaign"
    )  # fmt: skip
    region = f", for tasks in {limit.region}" if limit.region else ""
    return (
        f"at most {limit.max_count} {what} within {duration_words(limit.within_minutes)} "
        f"per {limit.per}, {where}{region}"
    )


def _facts(limit: ContactLimit) -> dict[str, Any]:
    return {
        "id": limit.id,
        "max": limit.max_count,
        "withinMinutes": limit.within_minutes,
        "per": limit.per,
        "counting": limit.counting,
        "campaignName": limit.campaign.name if limit.campaign is not None else None,
        "region": limit.region,
        "words": limit_words(limit),
    }


def list_limits(tenant: Tenant) -> list[ContactLimit]:
    """The tenant's limits, oldest first."""
    return list(
        db.session.scalars(
            select(ContactLimit)
            .where(ContactLimit.tenant_id == tenant.id)
            .order_by(ContactLimit.id)
        )
    )


def add_limit(tenant: Tenant, new: NewLimit, *, actor: Actor) -> ContactLimit:
    """Add the limit (checked whole: a refusal adds nothing)."""
    limit = ContactLimit(
        tenant_id=tenant.id,
        max_count=parse_count(new.max),
        within_minutes=parse_duration(new.within),
        per=_choice(new.per, PERS, CONTACT_LIMIT_PER.said_as("per")),
        counting=_choice(
            new.counting or "calls", COUNTINGS, CONTACT_LIMIT_COUNTING.said_as("counting")
        ),
        region=new.region,
    )
    limit.campaign = _campaign(tenant, new.campaign)
    same = next((old for old in list_limits(tenant) if _same(old, limit)), None)
    if same is not None:
        raise Conflict(f"contact limit {same.id} is the same limit: {limit_words(same)}")
    db.session.add(limit)
    db.session.flush()
    facts = _facts(limit)
    record(actor, _change("contact_limit.added", tenant, limit, after=facts))
    return limit


def _same(old: ContactLimit, new: ContactLimit) -> bool:
    fields = ("max_count", "within_minutes", "per", "counting", "region")
    return all(getattr(old, f) == getattr(new, f) for f in fields) and old.campaign_id == (
        new.campaign.id if new.campaign is not None else None
    )


def find_limit(tenant: Tenant, limit_id: int | str) -> ContactLimit:
    """The tenant's limit of this id; NotFound otherwise."""
    text = str(limit_id).strip()
    limit = db.session.get(ContactLimit, int(text)) if text.isdigit() else None
    if limit is None or limit.tenant_id != tenant.id:
        raise NotFound(f"{tenant.label} has no contact limit {text[:20]}", field=CONTACT_LIMIT_ID)
    return limit


def remove_limit(tenant: Tenant, limit_id: int | str, *, actor: Actor) -> ContactLimit:
    """Remove the limit: calls it held back may be placed at once."""
    limit = find_limit(tenant, limit_id)
    facts = _facts(limit)
    db.session.delete(limit)
    record(actor, _change("contact_limit.removed", tenant, limit, before=facts))
    return limit


def _change(action: str, tenant: Tenant, limit: ContactLimit, **sides) -> Change:
    facts = sides.get("after") or sides.get("before")
    return Change(
        action,
        "contact_limit",
        str(limit.id),
        tenant.id,
        event_type=action,
        event_data={"limit": facts},
        **sides,
    )


def set_person_key(tenant: Tenant, key: str | None, *, actor: Actor) -> bool:
    """Name the data item that identifies a person across campaigns (empty: none, a person
    is a clientId); False when it already was so (nothing recorded)."""
    key = (key or "").strip() or None
    if key is not None and len(key) > MAX_PERSON_KEY:
        raise InvalidInput(
            f"person key must be at most {MAX_PERSON_KEY} characters",
            field=TENANT_PERSON_KEY.said_as("person key"),
        )
    before = tenant.person_key
    if before == key:
        return False
    tenant.person_key = key
    change = Change(
        "tenant.person_key_set",
        "tenant",
        str(tenant.id),
        tenant.id,
        before={"personKey": before},
        after={"personKey": key},
        event_type="tenant.person_key_set",
        event_data={"personKey": key, "before": before},
    )
    record(actor, change)
    return True
