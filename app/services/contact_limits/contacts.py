"""The contact marks: an attempt counted a contact (as the reports count one: a chosen
work code flagged contact, or a call that ended ANSWERED, app/services/calls/ledger.py)
marks its number (that of its call), its person and its task, once, in the transaction
that made it a contact, whichever door did (a close, a call's end after the close, a
release after a conversation).

A contact once marked stays counted: a redial of the attempt that makes the ledger forget
an answered call (the attempt's call columns are those of its last call) does not undo the
conversation that took place.

The app factory installs the listener on the app's session (`keep_contact_marks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import event, select
from sqlalchemy.orm import Session, scoped_session, selectinload

from app.extensions import db
from app.models import Attempt, Call, Campaign, ContactMark, Task, Tenant
from app.models.types import utcnow
from app.services.contact_limits.counts import CALL, CONTACT, mark, person_of, scope_key


def _became_contact(instance: object) -> bool:
    if not isinstance(instance, Attempt) or not instance.contact:
        return False
    history = db.inspect(instance).attrs.contact.history
    return bool(history.added) and bool(history.added[0])


def _keys(number: str | None, task: Task | None, person_key: str | None) -> list[str]:
    """The scopes a call to `number` of `task` counts for: its number, person and task."""
    keys = [scope_key("number", number)] if number else []
    if task is not None:
        keys += [scope_key("person", person_of(task, person_key)), scope_key("task", task.id)]
    return keys


def _contact_at(attempt: Attempt) -> datetime:
    moments = [attempt.connected_at, attempt.call_ended_at, attempt.closed_at]
    return max((moment for moment in moments if moment is not None), default=None) or utcnow()


def mark_contact(session: Session, attempt: Attempt) -> None:
    """Mark the attempt's contact, unless it is marked already."""
    marked = session.scalar(
        select(ContactMark.id)
        .where(ContactMark.attempt_id == attempt.id, ContactMark.kind == CONTACT)
        .limit(1)
    )
    if marked is not None:
        return
    tenant_id, person_key = session.execute(
        select(Campaign.tenant_id, Tenant.person_key)
        .join(Tenant, Tenant.id == Campaign.tenant_id)
        .where(Campaign.id == attempt.campaign_id)
    ).one()
    task = session.get(Task, attempt.task_id) if attempt.task_id is not None else None
    keys = _keys(attempt.phone_number, task, person_key)
    mark(session, tenant_id, keys, CONTACT, attempt.campaign_id, _contact_at(attempt), attempt.id)


def mark_written(tenant: Tenant, campaign_ids: Sequence[int]) -> None:
    """The marks of calls and contacts written as plain rows (the demo's past), as placing
    each call and making each contact would have left them."""
    written = select(Attempt).where(Attempt.campaign_id.in_(campaign_ids))
    attempts = list(db.session.scalars(written))
    calls: dict[int, list[Call]] = {}
    for call in db.session.scalars(
        select(Call).join(Attempt).where(Attempt.campaign_id.in_(campaign_ids))
    ):
        calls.setdefault(call.attempt_id, []).append(call)
    task_ids = {attempt.task_id for attempt in attempts if attempt.task_id is not None}
    tasks = {
        task.id: task
        for task in db.session.scalars(
            select(Task).where(Task.id.in_(task_ids)).options(selectinload(Task.items))
        )
    }
    for attempt in attempts:
        task = tasks.get(attempt.task_id)
        for call in calls.get(attempt.id, ()):
            keys = _keys(call.phone_number, task, tenant.person_key)
            mark(db.session, tenant.id, keys, CALL, attempt.campaign_id, call.started_at)
        if attempt.contact:
            keys = _keys(attempt.phone_number, task, tenant.person_key)
            at = _contact_at(attempt)
            mark(db.session, tenant.id, keys, CONTACT, attempt.campaign_id, at, attempt.id)


def _mark_contacts(session: Session, _context) -> None:
    """After a flush (ids known, the history still the flush's): the attempts it made a
    contact."""
    became = [i for i in (*session.new, *session.dirty) if _became_contact(i)]
    for attempt in became:
        mark_contact(session, attempt)


def keep_contact_marks(session: scoped_session) -> None:
    """Mark contacts with every flush of `session` (the app's): installed once."""
    if not event.contains(session, "after_flush", _mark_contacts):
        event.listen(session, "after_flush", _mark_contacts)
