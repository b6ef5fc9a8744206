"""Value rules shared by every action: phone numbers, time zones, numbers, epoch times."""

from __future__ import annotations

import math
import re
import zoneinfo
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from app.services.errors import OUT_OF_RANGE, InvalidInput
from app.services.fields import Field

E164 = re.compile(r"\+[1-9][0-9]{1,14}")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# Year 1970 to the end of year 9999, the range a UTC timestamp column holds everywhere.
MAX_EPOCH_MS = 253402300799999
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


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


def parse_number(value: str) -> float | None:
    """The value as a finite number when it is written as one, else None."""
    if not value or value[0] not in "+-.0123456789" or not _NUMBER.fullmatch(value):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def from_epoch_ms(value: int, field: str) -> datetime:
    """A UTC datetime from epoch milliseconds, refusing values no database can hold."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{field} must be a whole number of milliseconds", field=field)
    if not 0 <= value <= MAX_EPOCH_MS:
        raise InvalidInput(
            f"{field} must be between 0 and {MAX_EPOCH_MS}", field=field, kind=OUT_OF_RANGE
        )
    return EPOCH + timedelta(milliseconds=value)


def to_epoch_ms(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(milliseconds=1)


# A time a door read from the wire: the datetime, or the refusal its conversion met. The
# door converts; the service raises the refusal only when it reaches its check of that
# field (`checked_time`), so the order of refusals is the service's own, and a time the
# request turns out not to use is never refused.
SentTime = datetime | InvalidInput


def sent_time(value: int | None, field: str) -> SentTime | None:
    """`from_epoch_ms` for a door: the refusal returned, for the service to raise; None
    when no time was sent."""
    if value is None:
        return None
    try:
        return from_epoch_ms(value, field)
    except InvalidInput as refusal:
        return refusal


def checked_time(value: SentTime, field: str) -> datetime:
    """The time as stored (UTC, to the millisecond, in the range every database holds),
    or its refusal."""
    if isinstance(value, InvalidInput):
        raise value
    return from_epoch_ms(to_epoch_ms(value), field)


def format_time(moment: datetime | None) -> str | None:
    """UTC as `CCYY-MM-DD HH:MM:SS.mmm`, the spec's time format."""
    if moment is None:
        return None
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"
