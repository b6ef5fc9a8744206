"""Reading the audit trail: one entity's history, newest first, and what each change changed."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import islice
from typing import Any

from flask import current_app
from sqlalchemy import func, select

from app.db.pruning import delete_in_batches
from app.extensions import db
from app.models import AuditRecord


@dataclass(frozen=True)
class FieldChange:
    """One field a change changed: its value before and after (None: absent)."""

    name: str
    before: Any
    after: Any


@dataclass(frozen=True)
class HistoryPage:
    """A page of an entity's audit records, newest first, and how many there are in all."""

    records: list[AuditRecord]
    total: int


def _page(where: tuple, limit: int, offset: int) -> HistoryPage:
    """One page of the records matching `where`, newest first, and how many there are."""
    total = db.session.scalar(select(func.count()).select_from(AuditRecord).where(*where))
    records = db.session.scalars(
        select(AuditRecord)
        .where(*where)
        .order_by(AuditRecord.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return HistoryPage(list(records), total or 0)


def entity_history(
    tenant_id: int | None, entity_kind: str, entity_id: str, limit: int, offset: int = 0
) -> HistoryPage:
    """The audit records of one entity of the tenant, newest first (`ix_audit_records_entity`)."""
    where = (
        AuditRecord.tenant_id == tenant_id,
        AuditRecord.entity_kind == entity_kind,
        AuditRecord.entity_id == entity_id,
    )
    return _page(where, limit, offset)


def changed_fields(
    before: dict[str, Any] | None, after: dict[str, Any] | None
) -> list[FieldChange]:
    """The fields whose values differ, in the order the record names them (after's first)."""
    before, after = before or {}, after or {}
    names = list(after) + [name for name in before if name not in after]
    return [
        FieldChange(name, before.get(name), after.get(name))
        for name in names
        if before.get(name) != after.get(name)
    ]


# The tenant's trail, as the Users and API-keys pages and the export read it.

ACTOR_WORDS = {
    "api_key": "API key",
    "supervisor": "supervisor",
    "agent": "agent",
    "intake": "intake load",
    "operator": "operator",
    "system": "system",
    "provisioning": "identity provider, SCIM token",
}
# Records per query of an export or per delete of a prune: memory and locks stay bounded.
CHUNK = 1000


@dataclass(frozen=True)
class HistoryRow:
    """One audit record as a history table shows it: when, who, what, and what changed."""

    at: datetime
    who: str
    action: str
    subject: str
    changes: list[FieldChange]


def tenant_history(
    tenant_id: int, entity_kinds: tuple[str, ...], limit: int, offset: int = 0
) -> HistoryPage:
    """The audit records of the tenant's entities of these kinds, newest first: each kind's
    newest `offset + limit` read in order from `ix_audit_records_kind`, then merged (one
    query over all the kinds would walk the tenant's whole trail, a million task records
    among them, for the few it shows)."""
    of_tenant = AuditRecord.tenant_id == tenant_id
    total = db.session.scalar(
        select(func.count())
        .select_from(AuditRecord)
        .where(of_tenant, AuditRecord.entity_kind.in_(entity_kinds))
    )
    newest = [
        db.session.scalars(
            select(AuditRecord)
            .where(of_tenant, AuditRecord.entity_kind == kind)
            .order_by(AuditRecord.id.desc())
            .limit(offset + limit)
        ).all()
        for kind in dict.fromkeys(entity_kinds)
    ]
    merged = heapq.merge(*newest, key=lambda record: record.id, reverse=True)
    return HistoryPage(list(islice(merged, offset, offset + limit)), total)


def describe_actor(kind: str, actor_id: str, via: str | None = None) -> str:
    """Who acted, in the pages' words: "API key #3", "supervisor boss@example.com",
    "supervisor boss@example.com via bulk job 7"."""
    words = ACTOR_WORDS.get(kind, kind)
    numbered = kind in ("api_key", "provisioning")
    who = f"{words} #{actor_id}" if numbered else f"{words} {actor_id}"
    return f"{who} via {via}" if via else who


def history_rows(records: list[AuditRecord]) -> list[HistoryRow]:
    """The records as the `history_table` macro shows them."""
    return [
        HistoryRow(
            at=record.at,
            who=describe_actor(record.actor_kind, record.actor_id, record.actor_via),
            action=record.action,
            subject=f"{record.entity_kind.replace('_', ' ')} {record.entity_id}",
            changes=changed_fields(record.before, record.after),
        )
        for record in records
    ]


def wire_time(moment: datetime) -> str:
    """A UTC instant as the export writes it: ISO-8601 with milliseconds and a Z."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def export_records(
    tenant_id: int, since: datetime | None = None, until: datetime | None = None
) -> Iterator[dict[str, Any]]:
    """The tenant's audit records from `since` (inclusive) to `until` (exclusive), oldest
    first, one JSON-ready dict each; read CHUNK rows per query as plain rows (no ORM
    objects kept), so an export of any length runs in the same memory."""
    table = AuditRecord.__table__
    where = [table.c.tenant_id == tenant_id]
    if since is not None:
        where.append(table.c.at >= since)
    if until is not None:
        where.append(table.c.at < until)
    after_id = None
    while True:
        query = select(table).where(*where).order_by(table.c.id).limit(CHUNK)
        if after_id is not None:
            query = query.where(table.c.id > after_id)
        rows = db.session.execute(query).all()
        for row in rows:
            yield _exported(row)
        if len(rows) < CHUNK:
            return
        after_id = rows[-1].id


def _exported(row: Any) -> dict[str, Any]:
    # The table's column type turns the stored naive UTC back into an aware instant.
    return {
        "id": row.id,
        "at": wire_time(row.at),
        "actor": _actor(row),
        "action": row.action,
        "entity": {"kind": row.entity_kind, "id": row.entity_id},
        "before": row.before,
        "after": row.after,
    }


def _actor(row: Any) -> dict[str, str]:
    named = {"kind": row.actor_kind, "id": row.actor_id}
    return {**named, "via": row.actor_via} if row.actor_via else named


def prune_audit(now: datetime, retention_days: int | None = None) -> int:
    """Delete the audit records older than the retention (AUDIT_RETENTION_DAYS unless
    given; 0 keeps every record), a batch at a time (app/db/pruning.py); the number
    deleted."""
    if retention_days is None:
        retention_days = current_app.config["AUDIT_RETENTION_DAYS"]
    if retention_days <= 0:
        return 0
    cutoff = now - timedelta(days=retention_days)
    return delete_in_batches(
        db.session, AuditRecord, AuditRecord.at < cutoff, [AuditRecord.id], batch=CHUNK
    )


@dataclass(frozen=True)
class PagedHistory:
    """One page of a history table: its rows, its number and how many pages there are."""

    rows: list[HistoryRow]
    page: int
    pages: int


def paged_tenant_history(
    tenant_id: int, entity_kinds: tuple[str, ...], page: int, size: int
) -> PagedHistory:
    """Page `page` (from 1, kept within the pages there are) of `tenant_history`."""
    found, page, pages = page_within(
        lambda offset: tenant_history(tenant_id, entity_kinds, size, offset), page, size
    )
    return PagedHistory(history_rows(found.records), page, pages)


def page_within(
    read: Callable[[int], HistoryPage], page: int, size: int
) -> tuple[HistoryPage, int, int]:
    """Page `page` (from 1, kept within the pages there are) of what `read(offset)` reads
    `size` records at a time: that page, its number, and how many pages there are."""
    page = max(page, 1)
    found = read((page - 1) * size)
    pages = max(1, -(-found.total // size))
    if page > pages:
        page = pages
        found = read((page - 1) * size)
    return found, page, pages
