"""The campaign's default country: an intake file may write its numbers in that country's
national format (`(415) 555-0101` in US) or with punctuation (`+1 (415) 555-0101`); the
load stores them in E.164 (`+14155550101`) and counts them normalised. Without one, a file's
numbers are E.164 already, as the Preview API's must be."""

from __future__ import annotations

from app.models import Campaign
from app.services import phone_numbers
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import InvalidInput
from app.services.fields import CAMPAIGN_DEFAULT_COUNTRY
from app.services.values import is_e164


def set_default_country(campaign: Campaign, code: str | None, *, actor: Actor) -> str | None:
    """Set the campaign's default country (empty: none); the code as stored."""
    wanted = (code or "").strip().upper() or None
    if wanted is not None and not phone_numbers.is_country(wanted):
        raise InvalidInput(
            f"default country '{code}' is not a country code (ISO 3166-1 alpha-2, e.g. US)",
            field=CAMPAIGN_DEFAULT_COUNTRY.said_as("default country"),
        )
    if wanted == campaign.default_country:
        return wanted
    before = {"defaultCountry": campaign.default_country}
    campaign.default_country = wanted
    change = Change("campaign.default_country_set", "campaign", str(campaign.id),
                    campaign.tenant_id, before, {"defaultCountry": wanted})  # fmt: skip
    record(actor, change)
    return wanted


def normalised(value: str, country: str | None) -> str | None:
    """A phone cell of an intake file in E.164, when the country's format reads it as a
    valid number and it was not E.164 already; else None (the cell stays as written)."""
    if country is None or is_e164(value):
        return None
    return phone_numbers.in_e164(value, country)
