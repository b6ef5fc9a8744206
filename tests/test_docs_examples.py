"""The API examples of docs/apis.md run as pasted: every `sh` block of its four API sections
that talks to the server, in order, is one bash script, run against a live gunicorn on a port
of its own with the demo data, and every answer is checked. Docs that drift from the service
fail here."""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from app.demo import tenant as demo
from app.extensions import db
from app.models import Task, User, WorkedState
from app.models.types import utcnow
from app.services.actors import Actor
from tests.conftest import PLATFORM
from tests.servers import gunicorn

pytestmark = pytest.mark.server

APIS = Path(__file__).resolve().parents[1] / "docs" / "apis.md"
SECTIONS = (
    "Preview Campaign Realtime API",
    "User Provisioning API",
    "Desk API",
    "Reports API",
)
# The actions the sequence must show, in the order it calls them.
CALLS = [
    "addOrUpdateCampaignRecord",
    "searchPreviewCampaign",
    "searchPreviewCampaign",
    "changeCampaignRecordStatus",
    "transferCampaignRecord",
    "deleteRecordFromCampaign",
    "add-user",
    "query-existence",
    "delete-user",
    "setAgentState",
    "nextTask",
    "startCall",
    "callEvent",
    "closeTask",
    "taskAttempts",
    "nextTask",
    "releaseTask",
    "campaignSummary",
    "attemptsByInterval",
    "agentSummary",
]
CALL = re.compile(r"curl -sS \"\$\{H\[@\]\}\" \$\w+/([\w-]+)")


def sections(text: str) -> dict[str, str]:
    """The page's `## ` sections by title."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def curl_sequence() -> str:
    """The sh blocks of the API sections that set up or make a call, as one script."""
    found = sections(APIS.read_text())
    blocks = [
        block
        for title in SECTIONS
        for block in re.findall(r"^```sh\n(.*?)^```$", found[title], re.MULTILINE | re.DOTALL)
        if "curl " in block or block.startswith("PORT=")
    ]
    return "".join(blocks)


def answers(output: str) -> list[dict]:
    """The JSON answers the script printed, one after another."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while at < len(output := output.strip()):
        answer, end = decoder.raw_decode(output, at)
        found.append(answer)
        at = end
        while at < len(output) and output[at].isspace():
            at += 1
    return found


def succeeded(answer: dict) -> bool:
    if "previewResult" in answer:
        return answer["previewResult"]["previewResultStatus"] == "SUCCESS"
    return answer.get("result") == "SUCCESS"


def test_the_sequence_shows_every_api_call():
    script = curl_sequence()
    assert CALL.findall(script) == CALLS
    assert script.count("curl ") == len(CALLS)  # none written another way
    assert "9443" not in script.replace("${PORT:-9443}", "")  # every address is on $PORT


@pytest.fixture
def seeded(app, tmp_path) -> Path:
    """The demo data, its key in `instance/` of a folder standing for the checkout."""
    instance = tmp_path / "instance"
    instance.mkdir()
    demo.seed(PLATFORM, str(instance), actor=Actor.operator())
    db.session.commit()
    return tmp_path


def test_the_api_examples_run_as_pasted(app, database_uri, seeded, tmp_path):
    log = tmp_path / "gunicorn.log"
    with gunicorn(database_uri, log, 1, "docs-examples-test") as server:
        port = urlsplit(server.url).port
        run = subprocess.run(
            ["bash", "-c", "set -euo pipefail\n" + curl_sequence()],
            cwd=seeded,
            env={**os.environ, "PORT": str(port)},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert run.returncode == 0, (run.stderr, run.stdout, server.log_tail())
    assert run.stderr == ""  # curl -sS: no connection error, no shell error
    got = answers(run.stdout)
    assert len(got) == len(CALLS), run.stdout
    assert len(run.stdout.splitlines()) == len(CALLS)  # each answer ends its line
    failed = [
        (call, answer) for call, answer in zip(CALLS, got, strict=True) if not succeeded(answer)
    ]
    assert failed == []

    added, found = got[0], got[1]["previewRecordClientData"]
    assert [task["clientId"] for task in found] == ["CUST-1001"]
    assert (found[0]["skillQueue"], found[0]["preferredAgent"]) == (
        "Retention",
        demo.JANE.login,
    )
    assert added["previewResult"]["error"] is None
    assert got[7]["amazonConnectStatus"] == "EXISTS"

    db.session.rollback()  # read what the server wrote
    assert db.session.scalars(select(Task).filter_by(client_id="CUST-1001")).all() == []
    assert db.session.scalar(select(User).filter_by(login_user_id="ada@democo.example")) is None
    closed, released = got[10]["task"], got[16]["task"]
    assert got[11]["call"]["phoneNumber"].startswith("+")
    assert got[12]["attempt"]["callResult"] == "NO_ANSWER"
    (attempt,) = got[14]["attempts"]
    assert (attempt["callResult"], attempt["endedHow"], attempt["outcome"]) == (
        "NO_ANSWER",
        "CLOSED",
        "RESCHEDULE",
    )
    assert closed["clientId"] == "SPR-0025"  # the task held for Jane comes first
    closed_task = db.session.scalar(select(Task).filter_by(record_id=closed["previewRecordID"]))
    assert closed_task.worked_state == WorkedState.WORKED
    assert closed_task.work_attempts == 1
    assert closed_task.next_earliest_work_at > utcnow() + timedelta(hours=23)
    released_task = db.session.scalar(select(Task).filter_by(record_id=released["previewRecordID"]))
    assert released_task.id != closed_task.id
    assert released_task.reserved_by_id is None

    summary, intervals, agents = got[17]["summary"], got[18]["intervals"], got[19]["agents"]
    assert summary["attempts"] >= 2  # at least the closing and the release above
    assert summary["rescheduled"] >= 1
    assert 7 * 24 + 1 <= len(intervals) <= 7 * 24 + 2  # a week and a minute, by the hour
    assert sum(i["attempts"] for i in intervals) == summary["attempts"]
    jane = next(a for a in agents if a["agent"] == demo.JANE.login)
    assert jane["closed"] >= 1
