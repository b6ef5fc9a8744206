"""Values a page shows once: what a form made (a new key, a secret, an invitation link,
an import's report) is held here for the page its redirect leads to (post/redirect/get).

`keep` stores the value under a random ticket and returns a `Claim` for the browser's
session; `take` hands the value back once and deletes it, so a reload shows it no more
and never makes it again. The server keeps only the ticket's SHA-256; a secret is stored
XORed with a one-time pad of its own length that only the claim carries, so neither the
database nor the session cookie alone holds it. Whatever is not taken within `LIFETIME`
is dropped.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select

from app.db.transactions import take_write_lock
from app.extensions import db
from app.models import ShownOnce

LIFETIME = timedelta(minutes=10)


@dataclass(frozen=True)
class Claim:
    """What the browser's session holds: the ticket, and the pad of a masked secret."""

    ticket: str
    pad: str = ""  # hex; empty when the value is stored as it is

    def as_list(self) -> list[str]:
        return [self.ticket, self.pad]

    @classmethod
    def from_list(cls, value) -> Claim | None:
        parts = value if isinstance(value, list | tuple) else ()
        if len(parts) == 2 and all(isinstance(part, str) for part in parts):
            return cls(parts[0], parts[1])
        return None


def _digest(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


def _xor(data: bytes, pad: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, pad, strict=True))


def keep(value: str, *, secret: bool, now: datetime) -> Claim:
    """Hold `value` for one showing (in the caller's transaction); what has waited past
    `LIFETIME` is swept out on the way."""
    db.session.execute(delete(ShownOnce).where(ShownOnce.created_at <= now - LIFETIME))
    ticket = secrets.token_urlsafe(32)
    if secret:
        data = value.encode()
        pad = secrets.token_bytes(len(data))
        stored, claim = _xor(data, pad).hex(), Claim(ticket, pad.hex())
    else:
        stored, claim = value, Claim(ticket)
    db.session.add(ShownOnce(id=_digest(ticket), payload=stored, created_at=now))
    return claim


def take(claim: Claim, *, now: datetime) -> str | None:
    """The value held for `claim`, once (the caller commits); None when it was shown
    already, has expired, or the claim is not one."""
    take_write_lock(db.session)
    key = _digest(claim.ticket)
    row = db.session.execute(
        select(ShownOnce.payload, ShownOnce.created_at).where(ShownOnce.id == key)
    ).one_or_none()
    if row is None:
        return None
    if db.session.execute(delete(ShownOnce).where(ShownOnce.id == key)).rowcount != 1:
        return None  # another request took it first
    if now - row.created_at >= LIFETIME:
        return None
    if not claim.pad:
        return row.payload
    try:
        return _xor(bytes.fromhex(row.payload), bytes.fromhex(claim.pad)).decode()
    except ValueError:  # a pad of another length, or not hex: not this value's claim
        return None
