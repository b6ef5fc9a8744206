"""Each door that ends a reservation records how its attempt ended, and the task page
lists a task's attempts, newest first."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, EndedHow, Task
from app.services.actors import Actor
from app.services.delivery import closing
from tests.admin.conftest import add_task, csrf_token, page, submit
from tests.desk.desk_support import AGENT, desk_session, make_agent


def how_each_ended() -> list[tuple[str, str | None]]:
    db.session.expire_all()
    rows = db.session.scalars(select(Attempt).order_by(Attempt.id))
    return [(row.agent_login, row.ended_how) for row in rows]


@pytest.fixture
def agent(acme):
    return make_agent(acme, queues=("Sales",))


@pytest.fixture
def desk(client, agent):
    """The client signed in to the desk as the agent, AVAILABLE."""
    desk_session(client, agent)
    token = csrf_token(page(client, "/desk"))
    client.post("/desk/state", data={"state": "AVAILABLE", "csrf_token": token})
    return client


def _offered(desk) -> str:
    return page(desk, "/desk").find("article", class_="desk-task")["data-record-id"]


@pytest.mark.parametrize(
    ("path", "data", "how"),
    [
        ("close", {"outcome": "COMPLETE", "confirmed": "yes"}, EndedHow.CLOSED),
        ("release", {}, EndedHow.RELEASED),
    ],
    ids=["close", "release"],
)
def test_the_desk_page_ends_the_attempt(desk, renewals, path, data, how):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    assert how_each_ended() == [(AGENT, None)]
    assert desk.post(f"/desk/tasks/{record_id}/{path}", data=data).status_code == 302
    assert how_each_ended()[0] == (AGENT, how)


@pytest.mark.parametrize(
    ("action", "fields", "how"),
    [
        ("closeTask", {"outcome": "REMOVE"}, EndedHow.CLOSED),
        ("releaseTask", {}, EndedHow.RELEASED),
    ],
    ids=["closeTask", "releaseTask"],
)
def test_the_desk_api_ends_the_attempt(desk_api, renewals, acme, action, fields, how):
    make_agent(acme, "ann", password=None)
    add_task(renewals, "c1")
    desk_api("setAgentState", agent="ann", state="AVAILABLE")
    record_id = desk_api("nextTask", agent="ann")["task"]["previewRecordID"]
    desk_api("nextTask", agent="ann")  # the same task again: no second attempt
    assert how_each_ended() == [("ann", None)]
    answer = desk_api(action, agent="ann", previewRecordID=record_id, **fields)
    assert answer["result"] == "SUCCESS", answer
    assert how_each_ended() == [("ann", how)]


def test_the_preview_api_status_change_ends_the_attempt(desk_api, api, renewals, acme):
    make_agent(acme, "ann", password=None)
    add_task(renewals, "c1")
    desk_api("setAgentState", agent="ann", state="AVAILABLE")
    desk_api("nextTask", agent="ann")
    status = api.status(
        "changeCampaignRecordStatus", clientId="c1", previewRecordStateEnum="COMPLETED"
    )
    assert status == "SUCCESS"
    assert how_each_ended() == [("ann", EndedHow.CHANGED_ELSEWHERE)]


def test_the_task_pages_release_is_a_supervisors_taking_back(desk, signed_in, acme, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    url = f"/tenants/{acme.id}/tasks/{record_id}"
    response = submit(signed_in, url, "/release")
    assert response.status_code == 302
    assert how_each_ended() == [(AGENT, EndedHow.TAKEN_BACK)]


def test_the_task_page_lists_the_attempts_newest_first(signed_in, acme, renewals):
    task = add_task(renewals, "c1")
    url = f"/tenants/{acme.id}/tasks/{task.record_id}"
    assert "No attempt recorded" in page(signed_in, url).find(id="attempts").get_text()
    ann = make_agent(acme, "ann", password=None)
    bob = make_agent(acme, "bob", password=None)
    moment = db.session.get(Task, task.id).created_at + timedelta(seconds=1)
    attempts = [
        Attempt(
            task_id=task.id, campaign_id=renewals.id, skill_queue_id=task.skill_queue_id,
            agent_id=ann.id, agent_login="ann", delivered_at=moment, work_codes=[],
            ended_how=EndedHow.RELEASED, ended_at=moment + timedelta(seconds=40),
        ),
        Attempt(
            task_id=task.id, campaign_id=renewals.id, skill_queue_id=task.skill_queue_id,
            agent_id=bob.id, agent_login="bob", delivered_at=moment + timedelta(minutes=5),
            call_started_at=moment + timedelta(minutes=5, seconds=12),
            call_ended_at=moment + timedelta(minutes=8, seconds=17),
            call_result="ANSWERED", outcome="COMPLETE",
            closed_at=moment + timedelta(minutes=9),
            work_codes=[{"key": "Note", "value": "<script>alert(1)</script>"}],
            ended_how=EndedHow.CLOSED, ended_at=moment + timedelta(minutes=9),
        ),
    ]  # fmt: skip
    db.session.add_all(attempts)
    db.session.commit()
    shown = page(signed_in, url).find("table", class_="attempts")
    rows = shown.find("tbody").find_all("tr")
    cells = [[td.get_text(" ", strip=True) for td in row.find_all("td")] for row in rows]
    assert [row[0] for row in cells] == ["bob", "ann"]
    newest, oldest = cells
    code = "Note: <script>alert(1)</script>"
    assert newest[2:8] == ["12 s", "3 min 05 s", "43 s", "ANSWERED", "COMPLETE", code]
    assert newest[8].startswith("closed")
    assert oldest[2:8] == ["40 s", "—", "—", "—", "—", "—"]
    assert oldest[8].startswith("released")
    assert shown.find("script") is None  # the code's value is text, never markup


def test_closing_records_the_outcome_and_codes_on_the_attempt(desk, renewals, agent):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    codes = [("Reason", "Moved"), ("Outcome", "Sale")]
    actor = Actor.agent(agent.login_user_id)
    closing.close_task(agent, record_id, "REMOVE", work_codes=codes, actor=actor)
    db.session.commit()
    row = db.session.scalar(select(Attempt))
    assert row.work_codes == [
        {"key": "Reason", "value": "Moved"},
        {"key": "Outcome", "value": "Sale"},
    ]
    assert (row.outcome, row.ended_how) == ("REMOVE", EndedHow.CLOSED)
