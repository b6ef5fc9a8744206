"""Helpers for the delivery tests: agents with queues, tasks, a controlled clock."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Campaign, Event, SkillQueue, Task, Tenant, User
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import agent_state, offers
from app.services.delivery.offers import Offer
from app.services.people.users import NewUser, add_user
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from app.services.tenants import setup as tenants
from tests.conftest import SETUP

HOLD, OFFER_TIMEOUT, IDLE = 60, 300, 120


@pytest.fixture
def settings(settings):
    """Short desk timings, so that a test's clock passes them in a few steps."""
    return {
        **settings,
        "PREFERRED_AGENT_HOLD_SECONDS": HOLD,
        "OFFER_TIMEOUT_SECONDS": OFFER_TIMEOUT,
        "AGENT_IDLE_SECONDS": IDLE,
    }


def make_agent(tenant: Tenant, login: str, queues: tuple[str, ...] = ("Sales",)) -> User:
    """A committed user of the tenant working `queues` (OFFLINE)."""
    if tenants.find_user_template(tenant, "Agent") is None:
        tenants.create_user_template(tenant, "Agent", actor=SETUP)
    user = add_user(tenant, NewUser(login, login.title(), "Agent", "Agent"), actor=SETUP)
    user.skill_queues = list(
        db.session.scalars(
            select(SkillQueue).where(SkillQueue.tenant_id == tenant.id, SkillQueue.name.in_(queues))
        )
    )
    db.session.commit()
    return user


def available(agent: User, now: datetime) -> User:
    agent_state.set_agent_state(agent, "AVAILABLE", actor=Actor.agent(agent.login_user_id), now=now)
    db.session.commit()
    return agent


def add(campaign: Campaign, client_id: str, **fields) -> Task:
    """A committed task of the campaign (added now, by the real clock)."""
    items = [ItemInput("Name", client_id.title()), ItemInput("Phone", "+14155550100")]
    task, _ = add_or_update_task(campaign, client_id, items, actor=SETUP, **fields)
    db.session.commit()
    return task


def offer(agent: User, now: datetime) -> Offer:
    """Ask for the agent's next task at `now` (a heartbeat first, as a live desk sends)."""
    agent_state.heartbeat(agent, now)
    found = offers.next_task(agent, actor=Actor.agent(agent.login_user_id), now=now)
    db.session.commit()
    return found


def client_id(found: Offer) -> str | None:
    return found.task.client_id if found.task else None


def stored(client_id: str) -> Task:
    db.session.expire_all()
    return db.session.scalar(select(Task).filter_by(client_id=client_id))


def events(kind: str) -> list[dict]:
    db.session.expire_all()
    rows = db.session.scalars(select(Event).where(Event.type == kind).order_by(Event.id))
    return [row.payload["data"] for row in rows]


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def start() -> datetime:
    """The test's clock starts a moment after the real one (tasks were added by it)."""
    return utcnow() + timedelta(seconds=1)
