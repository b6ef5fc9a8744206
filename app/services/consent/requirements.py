"""Which of a campaign's numbers need a consent in force to be dialled.

A campaign requires consent for none of its numbers (the default), for all of them, or for
the numbers under some phone keys (`Mobile Phone, Cell`: a key is matched without regard to
case or surrounding blanks). A number that needs consent and has none in force is held back
by the contact rule NO_CONSENT; the others are dialled as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, func, or_, select

from app.extensions import db
from app.models import Campaign, TaskItem
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import InvalidInput
from app.services.fields import CAMPAIGN_CONSENT

NONE, ALL, KEYS = "none", "all", "keys"
MAX_KEYS = 20


@dataclass(frozen=True)
class Requirement:
    """What a campaign requires: NONE, ALL, or KEYS with the keys (lower case)."""

    mode: str
    keys: tuple[str, ...] = ()

    def covers(self, key: str) -> bool:
        """Whether a number under this phone key needs consent."""
        if self.mode == ALL:
            return True
        return self.mode == KEYS and key.strip().lower() in self.keys


def requirement_of(campaign: Campaign) -> Requirement:
    keys = tuple(k.strip().lower() for k in campaign.consent_keys.split(",") if k.strip())
    return Requirement(campaign.consent_required, keys if campaign.consent_required == KEYS else ())


def requirement_text(campaign: Campaign) -> str:
    """`every number`, `the numbers under Mobile Phone, Cell`, or `no number`."""
    if campaign.consent_required == ALL:
        return "every number"
    if campaign.consent_required == KEYS:
        return f"the numbers under {campaign.consent_keys}"
    return "no number"


def set_requirement(
    campaign: Campaign, require: str | None = None, keys: Iterable[str] = (), *, actor: Actor
) -> Requirement:
    """Require consent for all of the campaign's numbers or none (`require`), or for the
    numbers under `keys`; one of the two, not both."""
    named = list(dict.fromkeys(k.strip() for k in keys if k.strip()))
    if (require is None) == (not named):
        raise InvalidInput("say all or none, or the phone keys", field=CAMPAIGN_CONSENT)
    if require is not None and require not in (ALL, NONE):
        raise InvalidInput(
            f"consent required '{require}' is not all or none",
            field=CAMPAIGN_CONSENT.said_as("consent required"),
        )
    if len(named) > MAX_KEYS or any("," in k or len(k) > 255 for k in named):
        raise InvalidInput(
            f"give at most {MAX_KEYS} phone keys, each without a comma", field=CAMPAIGN_CONSENT
        )
    mode = require or KEYS
    before = {"consentRequired": campaign.consent_required, "consentKeys": campaign.consent_keys}
    campaign.consent_required, campaign.consent_keys = mode, ", ".join(named)
    after = {"consentRequired": mode, "consentKeys": campaign.consent_keys}
    if after != before:
        change = Change("campaign.consent_required_set", "campaign", str(campaign.id),
                        campaign.tenant_id, before, after)  # fmt: skip
        record(actor, change)
    return requirement_of(campaign)


def requiring(tenant_id: int) -> dict[int, Requirement]:
    """The tenant's campaigns (every tenant's for 0) that require consent: id → requirement."""
    query = select(Campaign).where(Campaign.consent_required != NONE)
    if tenant_id:
        query = query.where(Campaign.tenant_id == tenant_id)
    return {c.id: requirement_of(c) for c in db.session.scalars(query)}


def required_condition(campaigns: dict[int, Requirement]) -> ColumnElement[bool] | None:
    """SQL on `task_items`: the item's campaign requires consent for its key; None when no
    campaign does."""
    if not campaigns:
        return None
    every = [cid for cid, r in campaigns.items() if r.mode == ALL]
    parts = [TaskItem.campaign_id.in_(every)] if every else []
    for cid, requirement in campaigns.items():
        if requirement.mode == KEYS and requirement.keys:
            key = func.lower(func.trim(TaskItem.key))
            parts.append((TaskItem.campaign_id == cid) & key.in_(requirement.keys))
    return or_(*parts) if parts else None
