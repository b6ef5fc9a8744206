"""The desk's live channel (app/desk/live.py): what became of the task the page shows, and of
the desk's session, said in the agent's words (who did what and when); Away shows the task
in hand; a close of a task deleted meanwhile says who deleted it and holds the next
countdown until the agent has read why."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select

from app.desk import live
from app.desk.auth import AGENT_TOKEN_KEY
from app.extensions import db
from app.models import Task
from app.services.actors import Actor
from app.services.bulk.actions import BulkRequest
from app.services.bulk.jobs import start_bulk
from app.services.delivery import agent_state
from app.services.delivery.progress import release_by_supervisor
from app.services.search.criteria import Condition, Criterion
from app.services.tasks.changes import (
    Locator,
    TaskChanges,
    add_or_update_task,
    delete_task,
    transfer_task,
)
from app.services.tasks.validation import ItemInput
from tests.admin.conftest import add_task, csrf_token, page

SUP = Actor.supervisor("sup@acme.example")
CLOCK = r"at \d\d:\d\d"


def _held(desk, renewals) -> tuple[str, dict]:
    """The agent goes Available and is shown a task: its id and the page's live settings."""
    add_task(renewals, "c1", {"Name": "Carla Diaz", "Plan": "Gold", "Phone": "+14155550100"})
    token = csrf_token(page(desk, "/desk"))
    desk.post("/desk/state", data={"state": "AVAILABLE", "csrf_token": token or ""})
    shown = page(desk, "/desk")
    holder = shown.find(id="desk-presence")
    record_id = shown.find("article", class_="desk-task")["data-record-id"]
    assert holder["data-live-task"] == record_id
    return record_id, {"task": record_id, "seen": holder["data-live-seen"]}


def _news(desk, asked: dict) -> dict:
    response = desk.get("/desk/live", query_string=asked)
    assert response.status_code == 200 and response.is_json
    return response.json


def _task(record_id: str) -> Task | None:
    db.session.rollback()
    return db.session.scalar(select(Task).filter_by(record_id=record_id))


def test_a_task_held_and_untouched_has_no_news(desk, renewals):
    record_id, asked = _held(desk, renewals)
    news = _news(desk, asked)
    assert news == {
        "signedIn": True,
        "state": "AVAILABLE",
        "task": record_id,
        "kind": None,
        "notice": None,
    }


def test_a_bulk_delete_of_the_held_task_says_who_did_it_when_and_in_which_job(desk, renewals):
    record_id, asked = _held(desk, renewals)
    job = start_bulk(
        renewals, [Criterion("Plan", Condition.EQUALS, "Gold")], BulkRequest("delete"), actor=SUP
    )
    db.session.commit()
    assert _task(record_id) is None
    news = _news(desk, asked)
    assert news["kind"] == "gone" and news["task"] is None
    assert re.fullmatch(
        rf"Deleted by supervisor sup@acme\.example {CLOCK} "
        rf"in a bulk delete \(bulk job {job.id}\)\.",
        news["notice"],
    ), news["notice"]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("move", "Moved by supervisor sup@acme.example"),
        ("status", "Changed by supervisor sup@acme.example"),
        ("release", "Released by supervisor sup@acme.example"),
        ("delete", "Deleted by supervisor sup@acme.example"),
    ],
)
def test_a_supervisors_change_that_takes_the_task_is_said(desk, renewals, change, said):
    record_id, asked = _held(desk, renewals)
    locator = Locator(record_id=record_id)
    if change == "move":
        transfer_task(renewals, locator, "Winback", TaskChanges(), actor=SUP)
    elif change == "status":
        from app.services.tasks.changes import change_status

        change_status(renewals, locator, "COMPLETED", TaskChanges(), actor=SUP)
    elif change == "release":
        release_by_supervisor(_task(record_id), actor=SUP)
    else:
        delete_task(renewals, locator, actor=SUP)
    db.session.commit()
    news = _news(desk, asked)
    assert news["kind"] == "gone"
    assert re.search(rf"^{re.escape(said)} {CLOCK}\.$", news["notice"])


def test_an_edit_while_held_leaves_the_task_and_says_who_changed_it(desk, renewals):
    """An update leaves a delivered task with its agent: the desk hears of it all the same."""
    record_id, asked = _held(desk, renewals)
    items = [ItemInput("Name", "Carla Diaz-Ruiz"), ItemInput("Phone", "+14155550199")]
    add_or_update_task(renewals, "c1", items, actor=SUP)
    db.session.commit()
    news = _news(desk, asked)
    assert news["task"] == record_id and news["kind"] == "changed"
    assert re.search(rf"Changed by supervisor sup@acme\.example {CLOCK}", news["notice"])
    # The page shown after the change knows of it: no news for that page.
    again = page(desk, "/desk").find(id="desk-presence")["data-live-seen"]
    assert _news(desk, {"task": record_id, "seen": again})["kind"] is None


def test_the_agents_own_close_in_another_tab_is_no_supervisors(desk, renewals):
    record_id, asked = _held(desk, renewals)
    token = csrf_token(page(desk, "/desk"))
    desk.post(f"/desk/tasks/{record_id}/close", data={"outcome": "COMPLETE", "csrf_token": token})
    news = _news(desk, asked)
    assert news["kind"] == "gone"
    assert re.search(rf"You closed it {CLOCK} \(in another tab or window\)", news["notice"])


def test_a_session_signed_out_elsewhere_is_news_of_the_stream_at_once(desk, app, agent, renewals):
    """The stream's channel holds the session's token: signing out (here, in another tab
    sharing the cookie) ends the session it reads, and the object says so."""
    record_id, _asked = _held(desk, renewals)
    with desk.session_transaction() as held_session:
        token = held_session[AGENT_TOKEN_KEY]
    agent_id = agent.id
    assert live.news(agent_id, token, record_id, 0)["signedIn"] is True
    before = live.version_of(agent_id, token, record_id)
    desk.post("/desk/logout", data={"csrf_token": csrf_token(page(desk, "/desk")) or ""})
    db.session.rollback()
    assert live.version_of(agent_id, token, record_id) != before
    news = live.news(agent_id, token, record_id, 0)
    assert news["signedIn"] is False and news["kind"] == "signedOut"
    assert re.fullmatch(
        rf"You signed out {CLOCK} \(in another tab or window\)\. Sign in again to go on; "
        "nothing more of this page can be saved\\.",
        news["notice"],
    )
    # The page's own poll is sent to sign in again (its script reads that as signed out).
    assert desk.get("/desk/live", query_string={"task": record_id}).status_code == 302


def test_a_supervisor_signing_the_agent_out_is_named(desk, agent, renewals):
    _held(desk, renewals)
    with desk.session_transaction() as held_session:
        token = held_session[AGENT_TOKEN_KEY]
    agent_state.set_agent_state(agent, "OFFLINE", actor=SUP)
    from app.services.people import sessions

    sessions.end_sessions(agent, sessions.AGENTS)
    db.session.commit()
    news = live.news(agent.id, token, "", 0)
    assert re.match(rf"Signed out by supervisor sup@acme\.example {CLOCK}\.", news["notice"])


@pytest.mark.parametrize(
    ("asked", "field"), [({"task": "x" * 65}, "task"), ({"seen": "-1"}, "seen")]
)
def test_bad_arguments_are_a_json_400_naming_the_field(desk, asked, field):
    for path in ("/desk/live", "/desk/live/stream"):
        response = desk.get(path, query_string=asked)
        assert response.status_code == 400 and response.json["field"] == field


def test_the_stream_sends_the_object_as_an_event_and_gives_its_connection_back(desk, app, renewals):
    record_id, asked = _held(desk, renewals)
    response = desk.get("/desk/live/stream", query_string=asked)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    chunks = response.response
    assert next(chunks).startswith(b"retry:")
    sent = next(chunks).decode()
    data = "".join(line[6:] for line in sent.splitlines() if line.startswith("data: "))
    assert json.loads(data)["task"] == record_id
    assert not db.session().in_transaction()
    response.close()
    app.extensions["live_hub"].close()


def test_away_with_a_task_in_hand_still_shows_the_task(desk, renewals):
    record_id, _asked = _held(desk, renewals)
    token = csrf_token(page(desk, "/desk"))
    desk.post("/desk/state", data={"state": "AWAY", "csrf_token": token})
    shown = page(desk, "/desk")
    assert shown.find("article", class_="desk-task")["data-record-id"] == record_id
    away = shown.select_one("[data-away-task]").get_text(" ", strip=True)
    assert away.startswith("You are Away: no new task comes to you")
    assert "This task is still yours" in away
    # Nothing dials by itself while the agent is away.
    assert not shown.select_one("[data-call]").has_attr("data-countdown")


def test_a_close_of_a_task_bulk_deleted_meanwhile_says_who_and_holds_the_next_countdown(
    desk, renewals
):
    renewals.auto_dial_seconds = 20
    record_id, _asked = _held(desk, renewals)
    add_task(renewals, "c2", {"Name": "Dan Ek", "Phone": "+14155550111"})
    start_bulk(
        renewals,
        [Criterion("Plan", Condition.EQUALS, "Gold")],
        BulkRequest("delete"),
        actor=SUP,
    )
    db.session.commit()
    token = csrf_token(page(desk, "/desk"))
    desk.post(
        f"/desk/tasks/{record_id}/close",
        data={"outcome": "COMPLETE", "csrf_token": token},
    )
    shown = page(desk, "/desk")
    told = " ".join(p.get_text(" ", strip=True) for p in shown.select(".notice, .alert"))
    assert re.search(
        rf"Deleted by supervisor sup@acme\.example {CLOCK} in a bulk delete \(bulk job \d+\)", told
    ), told
    assert "Not saved, so note it down: Complete." in told
    call = shown.select_one("[data-call]")
    assert call["data-countdown"] and call["data-countdown-held"] == "1"
    # Once read, the next view's countdown runs as before.
    assert not page(desk, "/desk").select_one("[data-call]").has_attr("data-countdown-held")
