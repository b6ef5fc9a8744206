"""Times on the wire: epoch milliseconds in requests and answers, and the spec's time format
(`CCYY-MM-DD HH:MM:SS.mmm`, UTC) in task records and event bodies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.services.errors import OUT_OF_RANGE, InvalidInput
from app.services.fields import Field

# Year 1970 to the end of year 9999, the range a UTC timestamp column holds everywhere.
MAX_EPOCH_MS = 253402300799999
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def from_epoch_ms(value: int, field: Field) -> datetime:
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


def epoch_ms(moment: datetime | None) -> int | None:
    """`to_epoch_ms`, None staying None."""
    return None if moment is None else to_epoch_ms(moment)


def sent_time(value: int | None, field: Field) -> datetime | InvalidInput | None:
    """`from_epoch_ms` for a door: a `values.SentTime`, the refusal returned for the service
    to raise when it reaches its check of the field (`values.checked_time`); None when no
    time was sent."""
    if value is None:
        return None
    try:
        return from_epoch_ms(value, field)
    except InvalidInput as refusal:
        return refusal


def format_time(moment: datetime | None) -> str | None:
    """UTC as `CCYY-MM-DD HH:MM:SS.mmm`, the spec's time format."""
    if moment is None:
        return None
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"
