"""Two simultaneous adds of one new clientId make exactly one task, under real gunicorn."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests
from sqlalchemy import func, select

from app.extensions import db
from app.models import Task, TaskItem
from tests.conftest import PREVIEW, Api

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 4
CALLERS = 8
ROUNDS = 6


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_serving(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"gunicorn exited early:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"gunicorn did not start:\n{log.read_text()}")


@pytest.fixture
def server(app, database_uri, tmp_path):
    """gunicorn with several worker processes on the test database; yields its base URL."""
    port = _free_port()
    log = tmp_path / "gunicorn.log"
    env = {**os.environ, "DATABASE_URL": database_uri, "SECRET_KEY": "concurrency-test"}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--workers", str(WORKERS),
             "--bind", f"127.0.0.1:{port}", "wsgi:app"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        _wait_until_serving(port, process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


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
