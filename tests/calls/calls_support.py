"""Helpers for the calls' tests: an agent holding a task with phone items, the clock."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, AuditRecord, Campaign, Event, Task, User
from app.services.actors import Actor
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.conftest import SETUP
from tests.delivery.delivery_support import available, offer, start

S = timedelta(seconds=1)
PHONE, MOBILE = "+14155550100", "+14155550199"


def add_phones(campaign: Campaign, client_id: str, **items: str) -> Task:
    """A committed task of the campaign with a Name and these items (default: Phone)."""
    items = items or {"Phone": PHONE}
    data = [ItemInput("Name", client_id.title())] + [ItemInput(k, v) for k, v in items.items()]
    task, _ = add_or_update_task(campaign, client_id, data, actor=SETUP)
    db.session.commit()
    return task


def as_agent(agent: User) -> Actor:
    return Actor.agent(agent.login_user_id)


def attempts() -> list[Attempt]:
    db.session.expire_all()
    return list(db.session.scalars(select(Attempt).order_by(Attempt.id)))


def events(kind: str) -> list[dict]:
    db.session.expire_all()
    rows = db.session.scalars(select(Event).where(Event.type == kind).order_by(Event.id))
    return [row.payload["data"] for row in rows]


def audit(action: str) -> list[AuditRecord]:
    db.session.expire_all()
    return list(
        db.session.scalars(
            select(AuditRecord).where(AuditRecord.action == action).order_by(AuditRecord.id)
        )
    )


def deliver(agent: User, now: datetime | None = None) -> tuple[Task, datetime]:
    """The agent, AVAILABLE, receives the next task at `now` (default: the test's clock)."""
    now = now or start()
    available(agent, now)
    found = offer(agent, now)
    assert found.task is not None, found.reason
    return found.task, now


class FakeInstance:
    """A contact centre whose placing of a call answers `answer` (a contact id) or raises it."""

    def __init__(self, answer: str | Exception) -> None:
        self.answer, self.calls = answer, []

    def start_outbound_call(self, call):
        self.calls.append(call)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer
