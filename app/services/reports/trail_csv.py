"""The records of a search of a tenant's audit trail (app/services/audit/search.py) as CSV,
oldest first, every cell guarded like every CSV."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord
from app.services.audit.reading import CHUNK, describe_actor, wire_time
from app.services.audit.search import TrailQuery, where_of
from app.services.csv_files import GuardedWriter

CSV_HEADER = ("at", "who", "action", "entity", "entity id", "before", "after")


def trail_csv(tenant_id: int, query: TrailQuery) -> Iterator[str]:
    """Every record the query selects as CSV, oldest first, CHUNK records per read."""
    where = where_of(tenant_id, query.checked())
    buffer = io.StringIO()
    writer = GuardedWriter(buffer)
    writer.writerow(CSV_HEADER)
    after_id = None
    while True:
        # Plain rows, not ORM objects: an export of any length runs in the same memory.
        chunk = select(*AuditRecord.__table__.c).where(*where).order_by(AuditRecord.id)
        if after_id is not None:
            chunk = chunk.where(AuditRecord.id > after_id)
        rows = db.session.execute(chunk.limit(CHUNK)).all()
        for r in rows:
            writer.writerow((
                wire_time(r.at), describe_actor(r.actor_kind, r.actor_id, r.actor_via), r.action,
                r.entity_kind, r.entity_id, _json(r.before), _json(r.after),
            ))  # fmt: skip
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        if len(rows) < CHUNK:
            return
        after_id = rows[-1].id


def _json(value) -> str:
    return "" if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
