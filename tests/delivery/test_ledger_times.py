"""A request that waits for a lock stamps its change with the time it got the lock, not the
time it started (app/models/types.py `stamped`): two agents racing for one task leave
attempts that never overlap, however long the second waited.

PostgreSQL: the second agent's delivery waits on its own row's lock (held here by another
connection, as a parallel request of that agent would) while the first agent gives the task
back; it then takes the task. SQLite serialises whole write transactions (BEGIN IMMEDIATE
before the request's first read), so a waiting request has read no clock yet there.
"""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import select, text

from app.extensions import db
from app.models import Attempt, User
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import closing, offers
from tests.delivery.delivery_support import add, available, make_agent

pytestmark = pytest.mark.usefixtures("app")


def _waiting_on_a_lock(engine) -> bool:
    with engine.connect() as connection:
        return bool(
            connection.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    " AND datname = current_database()"
                )
            )
        )


def _deliver_in_a_thread(app, login: str, delivered: list, errors: list) -> threading.Thread:
    def run():
        try:
            with app.app_context():
                agent = db.session.scalar(select(User).where(User.login_user_id == login))
                offer = offers.next_task(agent, actor=Actor.agent(login))
                delivered.append(offer.task.record_id if offer.task else None)
                db.session.commit()
        except Exception as error:  # noqa: BLE001 - reported by the test
            errors.append(repr(error))

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_an_agent_who_waited_for_a_lock_never_starts_before_the_last_attempt_ended(
    app, acme, renewals
):
    if db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's write lock is taken before a request reads the clock")
    first, second = make_agent(acme, "first"), make_agent(acme, "second")
    task = add(renewals, "RACE-1")
    available(first, utcnow())
    available(second, utcnow())
    assert offers.next_task(first, actor=Actor.agent("first")).task.id == task.id
    db.session.commit()

    blocker = db.engine.connect()  # a parallel request of the second agent, holding its row
    blocker.execute(select(User.id).where(User.login_user_id == "second").with_for_update())
    delivered: list = []
    errors: list = []
    racer = _deliver_in_a_thread(app, "second", delivered, errors)
    deadline = time.monotonic() + 10
    while not _waiting_on_a_lock(db.engine) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _waiting_on_a_lock(db.engine), errors

    # Meanwhile the first agent gives the task back (after the second one's request began).
    closing.release_task(first, task.record_id, actor=Actor.agent("first"))
    db.session.commit()
    blocker.rollback()
    blocker.close()
    racer.join(timeout=30)
    assert errors == [] and delivered == [task.record_id]

    db.session.expire_all()
    attempts = db.session.scalars(
        select(Attempt).where(Attempt.task_id == task.id).order_by(Attempt.id)
    ).all()
    assert [a.agent_id for a in attempts] == [first.id, second.id]
    assert attempts[0].ended_at is not None
    assert attempts[1].delivered_at >= attempts[0].ended_at
    db.session.refresh(task)
    assert task.reserved_at >= attempts[0].ended_at
    assert task.last_attempt_at == attempts[1].delivered_at
