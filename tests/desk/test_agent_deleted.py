"""An agent deleted while one of its Desk API requests is under way (the Users API's
delete-user from another host): the request answers as for an unknown agent and changes
nothing, never a server error.

PostgreSQL: the deletion holds the agent's row (another connection, uncommitted) while the
request, which read the agent before, waits for the row; the deletion then commits. SQLite
serialises whole write transactions, so the request reads the agent after the deletion.
"""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import select, text

from app.extensions import db
from app.models import Task, User
from app.models.types import utcnow
from tests.conftest import PLATFORM, sc_headers
from tests.delivery.delivery_support import add, available, make_agent
from tests.delivery.test_ledger_times import _waiting_on_a_lock


@pytest.mark.parametrize("action", ["nextTask", "setAgentState"])
def test_an_agent_deleted_during_its_request_is_told_it_is_no_user(
    app, client, tenant, acme, renewals, action
):
    if db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's write lock orders the deletion before the request")
    agent = make_agent(acme, "gone")
    add(renewals, "c1")
    available(agent, utcnow())
    agent_id = agent.id
    _tenant, key = tenant
    body = {
        "tenant": {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"},
        "agent": "gone",
        **({"state": "AWAY"} if action == "setAgentState" else {}),
    }
    deleting = db.engine.connect()  # the deletion, holding the agent's row until it commits
    deleting.execute(text("DELETE FROM users WHERE id = :id"), {"id": agent_id})
    answers: list = []

    headers = sc_headers("Acme", "prod", "us-east-1", key)

    def request() -> None:
        with app.app_context():
            answers.append(client.post(f"/desk-api/v1/{action}", json=body, headers=headers))

    racer = threading.Thread(target=request)
    racer.start()
    deadline = time.monotonic() + 10
    while not _waiting_on_a_lock(db.engine) and time.monotonic() < deadline:
        time.sleep(0.02)
    waited = _waiting_on_a_lock(db.engine)
    deleting.commit()
    deleting.close()
    racer.join(timeout=30)
    assert waited, "the request never waited for the agent's row"

    [response] = answers
    assert response.status_code == 200, response.data
    answer = response.get_json()
    assert answer["result"] == "INVALID_ARGUMENTS", answer
    assert "agent 'gone' is not a user of this environment" in answer["message"]
    db.session.expire_all()
    assert db.session.get(User, agent_id) is None
    task = db.session.scalar(select(Task).filter_by(client_id="c1"))
    assert task.reserved_by_id is None  # nothing reserved for an agent who is no more
