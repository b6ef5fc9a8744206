"""Helpers for the contact limits' tests: a limit added as the operator would, the trail."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, ContactLimit, ContactMark, Event, Tenant
from app.services.contact_limits import limits
from tests.conftest import SETUP


def add_limit(tenant: Tenant, max_, within, per, counting="calls", campaign=None) -> ContactLimit:
    limit = limits.add_limit(
        tenant, limits.NewLimit(max_, within, per, counting, campaign), actor=SETUP
    )
    db.session.commit()
    return limit


def stored_limits() -> list[ContactLimit]:
    db.session.expire_all()
    return list(db.session.scalars(select(ContactLimit).order_by(ContactLimit.id)))


def marks(kind: str | None = None) -> list[tuple[str, str]]:
    """(scope key, kind) of every mark, oldest first."""
    db.session.expire_all()
    query = select(ContactMark).order_by(ContactMark.id)
    if kind is not None:
        query = query.where(ContactMark.kind == kind)
    return [(m.scope_key, m.kind) for m in db.session.scalars(query)]


def trail(action: str) -> list[AuditRecord]:
    db.session.expire_all()
    return list(
        db.session.scalars(
            select(AuditRecord).where(AuditRecord.action == action).order_by(AuditRecord.id)
        )
    )


def events(kind: str) -> list[dict]:
    db.session.expire_all()
    rows = db.session.scalars(select(Event).where(Event.type == kind).order_by(Event.id))
    return [row.payload["data"] for row in rows]
