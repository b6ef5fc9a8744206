"""The trace every change leaves: one audit record and, when others should hear of it, one
event in the outbox, both in the session of the change itself (the caller commits).

A failed request rolls back its change, its audit record and its event together, so the
trail and the events never tell of something that did not happen.

A change hands its fields as domain values: a snapshot (app/services/snapshots.py) or a
dict whose times are datetimes. This is the one writer that serialises them, in the wire
format (app/wire/bodies.py), as it writes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from app.db.bulk_inserts import bulk_insert, driver_value
from app.extensions import db
from app.models import AuditRecord, Event
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.record_ids import new_record_id
from app.wire.bodies import Fields, dumps, event_body, fields

# Fields that never enter the trail or an event, whatever entity they belong to.
SECRET_FIELDS = frozenset({"secret", "password", "password_hash", "key", "key_hash", "token"})


@dataclass(frozen=True)
class Change:
    """One change of one entity, as the trail records it."""

    action: str  # e.g. "task.updated"
    entity_kind: str  # task, user, api_key, campaign, skill_queue, webhook_endpoint…
    entity_id: str
    tenant_id: int | None
    before: Fields | None = None
    after: Fields | None = None
    # The event others hear of, when there is one: its type, its data and what orders it.
    event_type: str | None = None
    event_data: Fields | None = field(default=None)
    subject: str | None = None
    # Fields the event tells beside its data (a bulk job's id, a transfer's source); kept
    # apart so that data given as `after` or `before` is shown once for the record and event.
    event_extra: Mapping[str, Any] | None = None


def _clean(value: Fields | None) -> dict[str, Any] | None:
    if value is None:
        return None
    shown = fields(value)
    if SECRET_FIELDS.isdisjoint(shown):  # the usual case: no copy (bulk loads make many)
        return shown
    return {name: one for name, one in shown.items() if name not in SECRET_FIELDS}


def new_event_id() -> str:
    """A webhook-id: `msg_` and a time-ordered UUID, never given out twice."""
    return "msg_" + new_record_id().replace("-", "")


def record(actor: Actor, change: Change, at: datetime | None = None) -> None:
    """Add the change's audit record and its event (if any) to the current session."""
    record_all(actor, [change], at)


AUDIT_COLUMNS = (
    "tenant_id", "at", "actor_kind", "actor_id", "actor_via", "action", "entity_kind",
    "entity_id", "before", "after",
)  # fmt: skip
EVENT_COLUMNS = ("event_id", "tenant_id", "type", "subject", "payload", "created_at")


def _json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else dumps(value)


class Trace(NamedTuple):
    """Changes' audit records and events as rows ready to insert (`prepare`, then `write`)."""

    audit_rows: list[tuple]
    event_rows: list[tuple]


def record_all(actor: Actor, changes: list[Change], at: datetime | None = None) -> None:
    """Add many changes' records and events at once: one driver-level executemany each, so
    a bulk load's thousands of records cost little beside the tasks they describe."""
    if changes:
        write(prepare(actor, changes, at))


def prepare(actor: Actor, changes: list[Change], at: datetime | None = None) -> Trace:
    """The changes' records and events as rows, every field shown and serialised: made
    before a write lock is taken, so that only the INSERTs (`write`) are done under it."""
    at = at or utcnow()
    stamp = driver_value(db.session, AuditRecord.__table__.c.at)(at)
    kind, who, via = actor.kind.value, actor.id, actor.via
    by = _actor(actor)
    audit_rows, event_rows = [], []
    for change in changes:
        before, after = _clean(change.before), _clean(change.after)
        audit_rows.append(
            (
                change.tenant_id,
                stamp,
                kind,
                who,
                via,
                change.action,
                change.entity_kind,
                change.entity_id,
                _json(before),
                _json(after),
            )
        )
        if not change.event_type:
            continue
        body = event_body(change.event_type, _event_data(change, before, after, by), at)
        event_rows.append(
            (
                new_event_id(),
                change.tenant_id,
                change.event_type,
                change.subject,
                _json(body),
                stamp,
            )
        )
    return Trace(audit_rows, event_rows)


def _event_data(
    change: Change, before: dict[str, Any] | None, after: dict[str, Any] | None, by: dict
) -> dict[str, Any]:
    """The event's data: most often the after (or before) snapshot itself, shown once for
    the record and the event, then the change's extra fields and who acted."""
    if change.event_data is change.after:
        data = after
    elif change.event_data is change.before:
        data = before
    else:
        data = _clean(change.event_data)
    return {**(data or {}), **(change.event_extra or {}), "actor": by}


def write(trace: Trace) -> None:
    """Add the prepared records and events to the current session."""
    bulk_insert(db.session, AuditRecord.__table__, AUDIT_COLUMNS, trace.audit_rows)
    bulk_insert(db.session, Event.__table__, EVENT_COLUMNS, trace.event_rows)


def _actor(actor: Actor) -> dict[str, str]:
    named = {"kind": actor.kind.value, "id": actor.id}
    return {**named, "via": actor.via} if actor.via else named
