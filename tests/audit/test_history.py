"""The trace of a change: an audit record and an event, in the change's own transaction."""

from __future__ import annotations

from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Event
from app.services.actors import Actor
from app.services.audit.reading import tenant_history
from app.services.audit.trail import Change, record

CHANGE = Change(
    action="task.updated",
    entity_kind="task",
    entity_id="rec-1",
    tenant_id=7,
    before={"workedState": "NOTWORKED", "password": "hunter2hunter2"},
    after={"workedState": "COMPLETED", "secret": "whsec_x"},
    event_type="task.updated",
    event_data={"previewRecordID": "rec-1", "token": "t"},
    subject="rec-1",
)


def _count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def test_a_change_leaves_an_audit_record_and_an_event_without_secrets(app):
    record(Actor.supervisor("boss@example.com"), CHANGE)
    db.session.commit()
    audit = db.session.scalar(select(AuditRecord))
    assert (audit.actor_kind, audit.actor_id, audit.action) == (
        "supervisor",
        "boss@example.com",
        "task.updated",
    )
    assert audit.before == {"workedState": "NOTWORKED"}
    assert audit.after == {"workedState": "COMPLETED"}
    event = db.session.scalar(select(Event))
    assert event.event_id.startswith("msg_") and event.subject == "rec-1"
    assert event.payload["type"] == "task.updated"
    assert event.payload["data"] == {
        "previewRecordID": "rec-1",
        "actor": {"kind": "supervisor", "id": "boss@example.com"},
    }


def test_a_rolled_back_change_leaves_neither(app):
    record(Actor.system("preferred-agent-hold"), CHANGE)
    db.session.rollback()
    assert (_count(AuditRecord), _count(Event)) == (0, 0)


def test_a_change_nobody_needs_to_hear_of_leaves_no_event(app):
    record(Actor.operator(), Change("campaign.added", "campaign", "1", 7, after={"name": "X"}))
    db.session.commit()
    assert (_count(AuditRecord), _count(Event)) == (1, 0)


def test_a_few_kinds_history_is_merged_newest_first_and_paged_among_other_kinds(app):
    kinds = ("user", "task", "user_template", "task", "task", "user", "dnc_number", "user")
    for n, kind in enumerate(kinds * 3):
        db.session.add(
            AuditRecord(
                tenant_id=7 if n % 5 else 8,
                actor_kind="operator",
                actor_id="ops",
                action=f"{kind}.added",
                entity_kind=kind,
                entity_id=str(n),
            )
        )
    db.session.commit()
    shown = ("user", "user_template")
    expected = list(
        db.session.scalars(
            select(AuditRecord.id)
            .where(AuditRecord.tenant_id == 7, AuditRecord.entity_kind.in_(shown))
            .order_by(AuditRecord.id.desc())
        )
    )
    for offset in range(0, len(expected) + 2):
        page = tenant_history(7, shown, 3, offset)
        assert [r.id for r in page.records] == expected[offset : offset + 3]
        assert page.total == len(expected)
