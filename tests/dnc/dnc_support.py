"""Helpers for the do-not-call tests: the list as stored, and its audit records."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Tenant
from app.models.dnc import DncNumber
from app.services.dnc import numbers as dnc
from tests.conftest import SETUP

E164 = "+14155550123"
OTHER = "+14155550199"


def listed(tenant: Tenant) -> dict[str, str]:
    """The tenant's list as stored: {number: note}."""
    db.session.expire_all()
    rows = db.session.execute(
        select(DncNumber.number, DncNumber.note).where(DncNumber.tenant_id == tenant.id)
    )
    return dict(rows.all())


def trail(action: str) -> list[AuditRecord]:
    db.session.expire_all()
    query = select(AuditRecord).where(AuditRecord.action == action).order_by(AuditRecord.id)
    return list(db.session.scalars(query))


def put(tenant: Tenant, *numbers: str, note: str = "test") -> None:
    """List numbers and commit."""
    dnc.add_numbers(tenant, numbers, note, actor=SETUP)
    db.session.commit()
