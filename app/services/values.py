"""Value rules shared by every action: phone numbers, time zones, numbers, times as stored."""

from __future__ import annotations

import math
import re
import zoneinfo
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import lru_cache

from app.services.errors import OUT_OF_RANGE, InvalidInput
from app.services.fields import Field

E164 = re.compile(r"\+[1-9][0-9]{1,14}")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@lru_cache(maxsize=4096)
def is_phone_key(key: str) -> bool:
    """Keys containing the word phone, in any case, hold dialable numbers."""
    return "phone" in key.lower()


def is_e164(value: str) -> bool:
    return E164.fullmatch(value) is not None


# Files of a zoneinfo folder that are no time zone of the world: the host's own setting,
# the POSIX rules template, tzdata's "Factory" placeholder and the alternative trees.
NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})
NOT_ZONE_TREES = ("posix/", "right/")


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    """The zone names of the IANA database, its backward-compatible links (`US/Eastern`)
    included: an update can never turn a name a client used into a refusal."""
    return frozenset(
        name
        for name in zoneinfo.available_timezones()
        if name not in NOT_ZONES and not name.startswith(NOT_ZONE_TREES)
    )


def time_zones() -> list[str]:
    """Every accepted zone name, sorted, for pickers."""
    return sorted(_zones())


def is_time_zone(name: str) -> bool:
    """True for a zone name of the IANA Time Zone Database (not `localtime`, `Factory`)."""
    return name in _zones()


def require_time_zone(name: str, field: Field) -> str:
    """The zone name, or a refusal about `field`: named first by its `said` words, else by
    "time zone" (the refusal then said whole)."""
    if not is_time_zone(name):
        named = field.said or "time zone"
        raise InvalidInput(f"{named} '{name}' is not an IANA time zone name", field=field)
    return name


def require_e164(value: str, field: Field) -> str:
    """The number without surrounding blanks when it is E.164; a refusal about `field`
    (named "number" in its message) otherwise."""
    number = value.strip()
    if not is_e164(number):
        raise InvalidInput(
            f"number '{value}' is not an E.164 number (+ then 2 to 15 digits, e.g. +14155550123)",
            field=field.said_as("number"),
        )
    return number


def parse_number(value: str) -> float | None:
    """The value as a finite number when it is written as one, else None."""
    if not value or value[0] not in "+-.0123456789" or not _NUMBER.fullmatch(value):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


# A time a door read from the wire: the datetime, or the refusal its reading met. The door
# reads it (app/wire/times.py `sent_time`); the service raises the refusal only when it
# reaches its check of that field (`checked_time`), so the order of refusals is the
# service's own, and a time the request turns out not to use is never refused.
SentTime = datetime | InvalidInput

# The range of times a UTC timestamp column holds everywhere: year 1970 to the end of 9999,
# to the millisecond.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
_LAST = LATEST.replace(microsecond=999999)


def checked_time(value: SentTime, field: Field) -> datetime:
    """The time as stored (UTC, to the millisecond, in the range every database holds),
    or its refusal."""
    if isinstance(value, InvalidInput):
        raise value
    if not EARLIEST <= value <= _LAST:
        raise InvalidInput(
            f"{field} must be between {moment_text(EARLIEST)} and {moment_text(LATEST)} UTC",
            field=field,
            kind=OUT_OF_RANGE,
        )
    moment = value.astimezone(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def moment_text(moment: datetime) -> str:
    """A moment as text for people (a refusal's message) and for stamps of what a form
    showed: `CCYY-MM-DD HH:MM:SS.mmm` (UTC)."""
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def wrapped(values: Iterable[str]) -> str:
    """A list as a text column keeps it for a LIKE to find one whole element: `,A,B,`, or
    empty for none (a task's regions and its zones)."""
    values = list(values)
    return f",{','.join(values)}," if values else ""


def unwrapped(text: str | None) -> list[str]:
    """The elements of a `wrapped` list, in order."""
    return [value for value in (text or "").split(",") if value]
