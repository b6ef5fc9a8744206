"""Column types shared by the models."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import BigInteger, DateTime, Integer, String, Text
from sqlalchemy.types import TypeDecorator

# SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL gets a 64-bit key.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> datetime:
    """The current time in UTC, truncated to milliseconds (the wire's precision)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def stamped(now: datetime | None) -> datetime:
    """The time to stamp a change with: `now` when the caller gives one (a controlled
    clock), else the clock read at this moment. Read it once the rows it stamps are
    locked: a request that waited for a lock must not date its change before the change
    it waited for (the ledger's attempts of a task never overlap)."""
    return now or utcnow()


class UTCDateTime(TypeDecorator):
    """A UTC instant: stored naive in UTC on every database, read back timezone-aware."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("UTCDateTime needs a timezone-aware datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect):
        return None if value is None else value.replace(tzinfo=UTC)


def text_c(length: int | None = None):
    """A string compared byte-wise on every database (PostgreSQL's "C" collation).

    Searches compare, sort and prefix-match these columns; without it PostgreSQL would
    follow the server's locale and give other answers than SQLite.
    """
    base = String(length) if length else Text()
    pg = String(length, collation="C") if length else Text(collation="C")
    return base.with_variant(pg, "postgresql")


def new_resource_id() -> str:
    """A resource's id as an identity provider keeps it: random, never reused."""
    return str(uuid.uuid4())
