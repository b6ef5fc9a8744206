"""Assertions and tokens already accepted: each is accepted once, until it expires."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import delete, select

from app.extensions import db
from app.models import SeenAssertion


def first_use(issuer: str, assertion_id: str, expires_at: datetime, now: datetime) -> bool:
    """Record that the issuer's assertion `assertion_id` was used; False when it was used
    before (a replay). The caller's transaction holds the record: two hosts accepting the
    same assertion at once collide on its key, and one of them fails."""
    db.session.execute(delete(SeenAssertion).where(SeenAssertion.expires_at < now))
    digest = hashlib.sha256(f"{issuer}\x00{assertion_id}".encode()).hexdigest()
    if db.session.scalar(select(SeenAssertion.digest).where(SeenAssertion.digest == digest)):
        return False
    db.session.add(SeenAssertion(digest=digest, expires_at=max(expires_at, now)))
    db.session.flush()
    return True
