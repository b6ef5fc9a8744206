"""Phone numbers as the world numbers them, read with Google's libphonenumber data (the
`phonenumbers` package): whether a value is a number that exists (`+99999` is E.164 in
form, and no number); a number written in a country's national format, in E.164.

A task keeps its phone values as sent; whether each is a valid number is stored beside it
(`task_items.valid_number`, written with the item), so delivery's SQL can pass over a
number that can never be dialled.
"""

from __future__ import annotations

from functools import lru_cache

import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberFormat, geocoder
from phonenumbers import timezone as number_zones


def _parsed(text: str, country: str | None) -> phonenumbers.PhoneNumber | None:
    """The valid number `text` stands for (read in `country`'s national format unless it
    starts with `+`), or None."""
    try:
        number = phonenumbers.parse(text, country.upper() if country else None)
    except NumberParseException:
        return None
    return number if phonenumbers.is_valid_number(number) else None


@lru_cache(maxsize=65536)
def is_valid(value: str) -> bool:
    """Whether the E.164 value is a number that exists (its country, its length, its
    ranges), as libphonenumber's metadata says."""
    return _parsed(value, None) is not None


def in_e164(value: str, country: str | None) -> str | None:
    """The number `value` in E.164: as it is when it already is a valid `+` number, else
    read in `country`'s national format (`(415) 555-0101` in US); None when it cannot be
    read as a valid number."""
    number = _parsed(value.strip(), country)
    return None if number is None else phonenumbers.format_number(number, PhoneNumberFormat.E164)


def is_country(code: str) -> bool:
    """Whether `code` is a region libphonenumber numbers (ISO 3166-1 alpha-2, `US`)."""
    return code.upper() in phonenumbers.SUPPORTED_REGIONS


UNKNOWN_ZONE = "Etc/Unknown"


@lru_cache(maxsize=65536)
def zones_of(value: str) -> tuple[str, ...]:
    """The IANA zones a valid number may be in, as libphonenumber's data says (a Boise
    number: America/Boise and America/Los_Angeles); none for a number it cannot place on
    the map (a toll-free or other non-geographic number, whose "zones" span a continent:
    the task keeps its campaign's default zone)."""
    number = _parsed(value, None)
    if number is None or not geocoder.description_for_number(number, "en"):
        return ()
    found = number_zones.time_zones_for_number(number)
    return tuple(sorted(zone for zone in found if zone != UNKNOWN_ZONE))
