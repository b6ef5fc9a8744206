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

from sqlalchemy import event, select
from sqlalchemy.orm import Session, scoped_session

from app.extensions import db
from app.models import Attempt, Campaign, ContactMark, Task, Tenant
from app.models.types import utcnow
from app.services.contact_limits.counts import CONTACT, mark, person_of, scope_key


def _became_contact(instance: object) -> bool:
    if not isinstance(instance, Attempt) or not instance.contact:
        return False
    history = db.inspect(instance).attrs.contact.history
    return bool(history.added) and bool(history.added[0])


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
    keys = []
    if attempt.phone_number:
        keys.append(scope_key("number", attempt.phone_number))
    task = session.get(Task, attempt.task_id) if attempt.task_id is not None else None
    if task is not None:
        keys.append(scope_key("person", person_of(task, person_key)))
        keys.append(scope_key("task", task.id))
    moments = [attempt.connected_at, attempt.call_ended_at, attempt.closed_at]
    at = max((moment for moment in moments if moment is not None), default=None) or utcnow()
    mark(session, tenant_id, keys, CONTACT, attempt.campaign_id, at, attempt.id)


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
