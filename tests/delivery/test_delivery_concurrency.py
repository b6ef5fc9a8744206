"""The concurrency proof: 20 agents pulling at once from gunicorn with 4 workers never
receive the same task, and no task is left reserved (SQLite and PostgreSQL alike)."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
import requests
from sqlalchemy import func, select

from app.extensions import db
from app.models import Event, Task
from tests.conftest import PLATFORM, sc_headers
from tests.delivery.delivery_support import add, make_agent
from tests.servers import gunicorn

WORKERS, AGENTS, TASKS = 4, 20, 60
DESK = "/desk-api/v1/"


@pytest.fixture
def server(app, database_uri, tmp_path):
    # The proof is about who gets which task, not latency: on a loaded 2-core machine twenty
    # agents may queue on SQLite's write lock longer than the default busy timeout.
    env = {"SQLITE_BUSY_TIMEOUT_MS": "60000"}
    log = tmp_path / "gunicorn.log"
    with gunicorn(database_uri, log, WORKERS, "desk-concurrency", env=env) as live:
        yield live


def _agent_works(base: str, headers: dict, login: str, barrier, delivered: list, errors: list):
    """Become available, then take and complete tasks until there are none."""
    tenant = {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"}
    with requests.Session() as http:

        def call(action: str, **fields) -> dict:
            body = {"tenant": tenant, "agent": login, **fields}
            response = http.post(base + DESK + action, json=body, headers=headers, timeout=60)
            assert response.status_code == 200, response.text
            return response.json()

        try:
            assert call("setAgentState", state="AVAILABLE")["result"] == "SUCCESS"
            barrier.wait()
            while (answer := call("nextTask"))["task"] is not None:
                record_id = answer["task"]["previewRecordID"]
                delivered.append(record_id)
                closed = call("closeTask", previewRecordID=record_id, outcome="COMPLETE")
                assert closed["result"] == "SUCCESS", closed
            assert answer["result"] == "SUCCESS", answer
        except Exception as error:  # noqa: BLE001 - reported by the test
            errors.append(f"{login}: {error!r}")
            barrier.abort()


@pytest.mark.server
def test_twenty_agents_pulling_at_once_never_share_a_task(server, tenant, renewals, winback):
    acme, key = tenant
    logins = [f"agent{n:02d}" for n in range(AGENTS)]
    for login in logins:
        make_agent(acme, login, queues=("Sales", "Support"))
    for n in range(TASKS):
        add(renewals if n % 2 else winback, f"T{n:03d}")
    headers = sc_headers("Acme", "prod", "us-east-1", key)
    barrier = threading.Barrier(AGENTS, timeout=60)
    delivered: list[str] = []
    errors: list[str] = []
    threads = [
        threading.Thread(
            target=_agent_works, args=(server.url, headers, login, barrier, delivered, errors)
        )
        for login in logins
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == [], server.log_tail()
    assert not any(thread.is_alive() for thread in threads)
    assert [rid for rid, n in Counter(delivered).items() if n > 1] == []
    assert len(delivered) == TASKS
    db.session.expire_all()
    states = dict(
        db.session.execute(
            select(Task.worked_state, func.count()).group_by(Task.worked_state)
        ).all()
    )
    reserved = db.session.scalar(select(func.count()).where(Task.reserved_by_id.is_not(None)))
    deliveries = db.session.scalar(select(func.count()).where(Event.type == "task.delivered"))
    db.session.rollback()
    assert states == {"COMPLETED": TASKS}
    assert reserved == 0
    assert deliveries == TASKS
