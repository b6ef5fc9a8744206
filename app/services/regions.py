"""Where a customer is: the regions (ISO 3166-2 subdivisions, `US-FL`) of a task.

A task is in the region of its `State` data item (`US-FL`, or a US state or Canadian
province code such as `FL`, or its name, `Florida`) and in the region of each of its phone
numbers (the area code's, from libphonenumber's geocoding data: `+1 305…` is Florida). When
they disagree the task is in every one of them, so the strictest rule of them applies. A
value that names no region adds none. The regions are stored with the task as
`,US-FL,US-GA,` (commas around each, so one region is found by `LIKE '%,US-FL,%'`).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import phonenumbers
import pycountry
from phonenumbers import geocoder
from sqlalchemy import ColumnElement, text

from app.extensions import db
from app.models import Task
from app.services.values import is_phone_key

STATE_KEY = "state"
# The countries whose two-letter subdivision codes a bare `FL` or `ON` may be.
BARE_CODE_COUNTRIES = ("US", "CA")


@lru_cache(maxsize=1)
def _subdivisions() -> dict[str, str]:
    """Every subdivision code (`US-FL`) → itself, and each name in lower case of the US and
    Canada (`florida`, `ontario`) → its code."""
    found: dict[str, str] = {}
    for subdivision in pycountry.subdivisions:
        found[subdivision.code.upper()] = subdivision.code.upper()
    for country in BARE_CODE_COUNTRIES:
        for subdivision in pycountry.subdivisions.get(country_code=country) or ():
            found[subdivision.name.lower()] = subdivision.code.upper()
    return found


def is_region(code: str) -> bool:
    """Whether the text is an ISO 3166-2 subdivision code (`US-FL`)."""
    return code.strip().upper() in _subdivisions()


def region_of_state(value: str) -> str | None:
    """The region a `State` value names: `US-FL`, `FL` (US first, then Canada), `Florida`."""
    text = value.strip()
    if not text:
        return None
    known = _subdivisions()
    if (found := known.get(text.upper())) is not None and "-" in text:
        return found
    if len(text) <= 3 and text.isalpha():
        for country in BARE_CODE_COUNTRIES:
            if (found := known.get(f"{country}-{text.upper()}")) is not None:
                return found
    return known.get(text.lower())


@lru_cache(maxsize=4096)
def region_of_number(value: str) -> str | None:
    """The region of a number's area code (`+13055550100` → `US-FL`), or None."""
    try:
        parsed = phonenumbers.parse(value, None)
    except phonenumbers.NumberParseException:
        return None
    country = phonenumbers.region_code_for_number(parsed)
    place = geocoder.description_for_number(parsed, "en")
    if not country or not place:
        return None
    known = _subdivisions()
    if ", " in place:  # "San Francisco, CA"
        return known.get(f"{country}-{place.rsplit(', ', 1)[1].upper()}")
    found = known.get(place.lower())
    return found if found is not None and found.startswith(f"{country}-") else None


def regions_of(items: Iterable) -> list[str]:
    """A task's regions, sorted, each once: its State item's and its numbers'."""
    found = set()
    for item in items:
        key, value = item.key.strip().lower(), item.value or ""
        if key == STATE_KEY:
            region = region_of_state(value)
        elif is_phone_key(item.key) and value:
            region = region_of_number(value)
        else:
            continue
        if region is not None:
            found.add(region)
    return sorted(found)


def in_region(region: str) -> ColumnElement[bool]:
    """SQL on `tasks`: the task is in the region."""
    return Task.regions.contains(f",{region},", autoescape=True)


# The sets of regions of a campaign's open tasks, one probe of the partial index
# `ix_tasks_campaign_regions` per set (none at all for a campaign whose tasks have none).
REGION_SETS_PRESENT = text(
    "WITH RECURSIVE present(regions) AS ("
    " SELECT (SELECT regions FROM tasks WHERE campaign_id = :campaign"
    "  AND worked_state IN ('NOTWORKED', 'WORKED') AND regions != '' ORDER BY regions LIMIT 1)"
    " UNION ALL"
    " SELECT (SELECT regions FROM tasks WHERE campaign_id = :campaign"
    "  AND worked_state IN ('NOTWORKED', 'WORKED') AND regions != ''"
    "  AND regions > present.regions ORDER BY regions LIMIT 1)"
    " FROM present WHERE present.regions IS NOT NULL"
    ") SELECT regions FROM present WHERE regions IS NOT NULL"
)


def regions_present(campaign_id: int) -> frozenset[str]:
    """Every region an open task of the campaign is in."""
    sets = db.session.scalars(REGION_SETS_PRESENT, {"campaign": campaign_id})
    return frozenset(region for stored in sets for region in stored.split(",") if region)
