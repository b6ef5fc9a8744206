"""Searching a tenant's whole audit trail: by who acted, what was done, and when; newest
first, a page at a time (its CSV: app/services/reports/trail_csv.py).

`who` matches an actor whose id contains it without regard to case ("boss@" finds
supervisor boss@democo.example, "3" API key #3 among others) or whose kind it is
("system", "operator"); `action` an action that is it or starts with it ("user." finds
every change of a user). The times are from (inclusive) and to (exclusive), in UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, func, or_, select

from app.extensions import db
from app.models import AuditRecord
from app.services.errors import InvalidInput
from app.services.fields import AUDIT_ACTION, AUDIT_UNTIL, AUDIT_WHO

MAX_TEXT = 255


@dataclass(frozen=True)
class TrailQuery:
    """What a search asks of the trail (empty: anything)."""

    who: str = ""
    action: str = ""
    since: datetime | None = None
    until: datetime | None = None

    def checked(self) -> TrailQuery:
        for value, field, words in ((self.who, AUDIT_WHO, "who"),
                                    (self.action, AUDIT_ACTION, "what")):  # fmt: skip
            if len(value) > MAX_TEXT:
                raise InvalidInput(f"{words} is longer than {MAX_TEXT} characters", field=field)
        if self.since and self.until and self.since >= self.until:
            raise InvalidInput("the end must come after the start", field=AUDIT_UNTIL)
        return TrailQuery(self.who.strip(), self.action.strip(), self.since, self.until)


def where_of(tenant_id: int, query: TrailQuery) -> list[ColumnElement[bool]]:
    where = [AuditRecord.tenant_id == tenant_id]
    if query.who:
        where.append(
            or_(
                func.lower(AuditRecord.actor_id).contains(query.who.lower(), autoescape=True),
                AuditRecord.actor_kind == query.who.lower(),
            )
        )
    if query.action:
        where.append(AuditRecord.action.startswith(query.action, autoescape=True))
    if query.since is not None:
        where.append(AuditRecord.at >= query.since)
    if query.until is not None:
        where.append(AuditRecord.at < query.until)
    return where


def count_trail(tenant_id: int, query: TrailQuery) -> int:
    """How many records the query selects."""
    where = where_of(tenant_id, query.checked())
    return db.session.scalar(select(func.count()).select_from(AuditRecord).where(*where)) or 0


def search_trail(
    tenant_id: int, query: TrailQuery, limit: int, offset: int = 0
) -> list[AuditRecord]:
    """The records the query selects, newest first: `limit` of them from `offset`."""
    where = where_of(tenant_id, query.checked())
    newest = select(AuditRecord).where(*where).order_by(AuditRecord.id.desc())
    return list(db.session.scalars(newest.offset(offset).limit(limit)))
