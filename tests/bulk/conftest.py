"""Fixtures for bulk jobs: a campaign of tasks, small batches, and what the trail holds."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Campaign, Event, Task
from app.services.actors import Actor
from app.services.search.criteria import Condition, Criterion
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.admin.conftest import make_supervisor, session_for
from tests.conftest import SETUP

BOSS = Actor.supervisor("boss@example.com")
BATCH = 7


@pytest.fixture
def settings(settings, request, tmp_path):
    """Batches of BATCH tasks; with the param "queued", jobs wait in a queue of their own
    instead of running where they are queued."""
    param = getattr(request, "param", {})
    if param == "queued":
        param = {"WORKER_IMMEDIATE": False, "WORKER_DB": str(tmp_path / "w.db")}
    return {**settings, "BULK_BATCH": BATCH, **param}


@pytest.fixture
def signed_in(client, acme):
    """The client, signed in as a supervisor who sees every tenant (made after Acme)."""
    return session_for(client, make_supervisor())


def add_tasks(campaign: Campaign, count: int, plan=lambda n: "Basic", start: int = 0) -> list:
    """`count` tasks C0000…, each with a Name and a Plan item; committed."""
    tasks = []
    for n in range(start, start + count):
        items = [ItemInput("Name", f"Customer {n}"), ItemInput("Plan", plan(n))]
        task, _ = add_or_update_task(campaign, f"C{n:04d}", items, actor=SETUP)
        tasks.append(task)
    db.session.commit()
    return tasks


def plan_is(value: str) -> list[Criterion]:
    return [Criterion("Plan", Condition.EQUALS, value)]


def records(action: str) -> list[AuditRecord]:
    return list(
        db.session.scalars(
            select(AuditRecord).where(AuditRecord.action == action).order_by(AuditRecord.id)
        )
    )


def events(kind: str) -> int:
    return db.session.scalar(select(func.count(Event.id)).where(Event.type == kind)) or 0


def states(campaign: Campaign) -> dict[str, str]:
    rows = db.session.execute(
        select(Task.client_id, Task.worked_state).where(Task.campaign_id == campaign.id)
    )
    return dict(rows.all())
