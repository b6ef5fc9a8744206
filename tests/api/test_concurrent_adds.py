"""Two simultaneous adds of one new clientId make exactly one task, under real gunicorn."""

from __future__ import annotations

import threading

import pytest
import requests
from sqlalchemy import func, select

from app.extensions import db
from app.models import Task, TaskItem
from tests.conftest import PREVIEW, Api
from tests.servers import gunicorn

WORKERS = 4
CALLERS = 8
ROUNDS = 6


@pytest.fixture
def server(app, database_uri, tmp_path):
    """gunicorn with several worker processes on the test database; yields its base URL."""
    with gunicorn(database_uri, tmp_path / "gunicorn.log", WORKERS, "concurrency-test") as live:
        yield live.url


def _simultaneous_adds(base_url: str, api: Api, client_id: str) -> list[dict]:
    barrier = threading.Barrier(CALLERS)
    answers: list[dict] = []
    body = api.body(
        clientId=client_id, previewRecordData=[{"key": "Name", "value": f"Caller {client_id}"}]
    )

    def call() -> None:
        barrier.wait()
        response = requests.post(
            base_url + PREVIEW + "addOrUpdateCampaignRecord",
            json=body, headers=api.headers, timeout=60,
        )  # fmt: skip
        answers.append({"status": response.status_code, **response.json()})

    threads = [threading.Thread(target=call) for _ in range(CALLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.server
def test_simultaneous_adds_of_one_client_id_create_one_task(server, api):
    for round_ in range(ROUNDS):
        client_id = f"RACE-{round_}"
        answers = _simultaneous_adds(server, api, client_id)
        assert [a["status"] for a in answers] == [200] * CALLERS
        assert {a["previewResult"]["previewResultStatus"] for a in answers} == {"SUCCESS"}
        count = db.session.scalar(select(func.count(Task.id)).filter_by(client_id=client_id))
        items = db.session.scalar(
            select(func.count())
            .select_from(TaskItem)
            .join(Task)
            .filter(Task.client_id == client_id)
        )
        db.session.rollback()  # end the read: on SQLite it holds the write lock
        assert count == 1
        assert items == 2  # Id and Name once: the updates took turns, none interleaved
