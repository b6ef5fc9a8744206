"""The proof that a limit holds across app hosts: 10 agents start a call at the same moment,
through two gunicorn servers on one database, to one number whose limit is 3: exactly 3
calls are placed, 7 refused (PostgreSQL's row lock per scope; SQLite's write turn)."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest
import requests
from sqlalchemy import func, select

from app.extensions import db
from app.models import Attempt, ContactMark
from tests.calls.calls_support import PHONE, add_phones
from tests.conftest import PLATFORM, sc_headers
from tests.contact_limits.limits_support import add_limit
from tests.delivery.delivery_support import make_agent
from tests.servers import gunicorn

AGENTS, LIMIT = 10, 3
DESK = "/desk-api/v1/"
TENANT = {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"}


@pytest.fixture
def servers(app, database_uri, tmp_path):
    """Two app hosts (two gunicorn servers of 2 workers each) on the test's database."""
    env = {"SQLITE_BUSY_TIMEOUT_MS": "60000"}
    with ExitStack() as stack:
        yield [
            stack.enter_context(
                gunicorn(database_uri, tmp_path / f"host{n}.log", 2, "limits", env=env)
            )
            for n in (1, 2)
        ]


def _post(http, base, headers, action, **fields) -> dict:
    body = {"tenant": TENANT, **fields}
    response = http.post(base + DESK + action, json=body, headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.server
def test_ten_calls_at_once_to_a_number_limited_to_three_place_three(servers, tenant, renewals):
    acme, key = tenant
    headers = sc_headers("Acme", "prod", "us-east-1", key)
    logins = [f"agent{n:02d}" for n in range(AGENTS)]
    for login in logins:
        make_agent(acme, login)
    for n in range(AGENTS):
        add_phones(renewals, f"c{n}", Phone=PHONE)
    add_limit(acme, LIMIT, "24h", "number")
    held = {}
    with requests.Session() as http:
        for n, login in enumerate(logins):
            base = servers[n % 2].url
            _post(http, base, headers, "setAgentState", agent=login, state="AVAILABLE")
            answer = _post(http, base, headers, "nextTask", agent=login)
            held[login] = answer["task"]["previewRecordID"]
    barrier = threading.Barrier(AGENTS, timeout=60)
    answers: list[dict] = []
    errors: list[str] = []

    def start_call(n: int, login: str) -> None:
        try:
            with requests.Session() as own:
                barrier.wait()
                answer = _post(own, servers[n % 2].url, headers, "startCall", agent=login,
                               previewRecordID=held[login])  # fmt: skip
                answers.append(answer)
        except Exception as error:  # noqa: BLE001 - reported by the test
            errors.append(f"{login}: {error!r}")
            barrier.abort()

    threads = [
        threading.Thread(target=start_call, args=(n, login)) for n, login in enumerate(logins)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == [], servers[0].log_tail() + servers[1].log_tail()
    assert not any(thread.is_alive() for thread in threads)
    results = sorted(answer["result"] for answer in answers)
    assert results == ["NOT_AVAILABLE"] * (AGENTS - LIMIT) + ["SUCCESS"] * LIMIT
    refused = [a for a in answers if a["result"] == "NOT_AVAILABLE"]
    assert all("contact limit" in a["message"] and a["nextCallableAt"] for a in refused)
    db.session.expire_all()
    placed = db.session.scalar(select(func.count()).where(Attempt.call_id.is_not(None)))
    counted = db.session.scalar(
        select(func.count()).where(ContactMark.scope_key == f"number:{PHONE}")
    )
    db.session.rollback()
    assert (placed, counted) == (LIMIT, LIMIT)
