"""The desk page's workspace: a reason for Away, wrap-up after the call with the queue's
limit, the note in the close form and the task's earlier attempts, every text escaped."""

from __future__ import annotations

from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, SkillQueue, Task, User
from app.services.delivery import away_reasons, wrap_up
from tests.admin.conftest import add_task, page
from tests.conftest import SETUP
from tests.desk.desk_support import make_agent

PHONE = "+14155550100"


@pytest.fixture
def agent(acme) -> User:
    for name in ("Break", "Lunch"):
        away_reasons.add_reason(acme, name, actor=SETUP)
    db.session.commit()
    return make_agent(acme, queues=("Sales",))


def offered(desk, renewals, client_id="c1") -> str:
    add_task(renewals, client_id, {"Name": "Customer", "Phone": PHONE})
    desk.post("/desk/state", data={"state": "AVAILABLE"})
    return page(desk, "/desk").find("article", class_="desk-task")["data-record-id"]


def end_call(desk, record_id: str) -> None:
    started = desk.post(
        f"/desk/tasks/{record_id}/call",
        data={"phone_key": "Phone"},
        headers={"Accept": "application/json"},
    ).get_json()
    desk.post(
        f"/desk/tasks/{record_id}/call-event",
        data={"call_id": started["callId"], "event": "ENDED", "result": "BUSY"},
    )


def test_the_desk_offers_the_tenants_reasons_and_away_keeps_the_one_chosen(desk, agent):
    shown = page(desk, "/desk")
    options = [
        o.get_text() for o in shown.find("select", attrs={"name": "reason"}).find_all("option")
    ]
    assert options == ["No reason", "Break", "Lunch"]
    desk.post("/desk/state", data={"state": "AWAY", "reason": "Lunch"})
    shown = page(desk, "/desk")
    assert shown.find(attrs={"data-away-reason": True}).get_text() == "(Lunch)"
    assert shown.find("option", selected=True).get_text() == "Lunch"
    db.session.refresh(agent)
    assert (agent.desk_state, agent.desk_state_reason) == ("AWAY", "Lunch")


def test_an_unknown_reason_at_the_desk_is_refused_and_the_state_stays(desk, agent):
    desk.post("/desk/state", data={"state": "AWAY", "reason": "Nap"})
    assert "reason 'Nap' is not an away reason" in page(desk, "/desk").get_text()
    db.session.refresh(agent)
    assert (agent.desk_state, agent.desk_state_reason) == ("OFFLINE", None)


def test_a_reason_sent_with_available_is_ignored_at_the_desk(desk, agent):
    desk.post("/desk/state", data={"state": "AVAILABLE", "reason": "Lunch"})
    db.session.refresh(agent)
    assert (agent.desk_state, agent.desk_state_reason) == ("AVAILABLE", None)


def test_after_the_call_the_desk_shows_wrap_up_and_warns_past_the_queues_limit(
    desk, acme, renewals
):
    sales = db.session.scalar(select(SkillQueue).filter_by(tenant_id=acme.id, name="Sales"))
    wrap_up.set_wrap_up_limit(sales, 30, actor=SETUP)
    db.session.commit()
    record_id = offered(desk, renewals)
    before = page(desk, "/desk").find(attrs={"data-call": True})
    assert before["data-stage"] == "ready"
    end_call(desk, record_id)
    shown = page(desk, "/desk")
    line = shown.find(attrs={"data-wrap-up": True})
    assert shown.find(attrs={"data-call": True})["data-stage"] == "ended"
    assert (line["data-wrap-up-limit"], int(line["data-wrap-up-elapsed"]) < 5) == ("30", True)
    assert "limit 30 s" in line.get_text()
    assert shown.find(attrs={"data-wrap-up-warning": True}).has_attr("hidden")
    attempt = db.session.scalar(select(Attempt))
    attempt.call_ended_at -= timedelta(seconds=45)
    db.session.commit()
    shown = page(desk, "/desk")
    assert int(shown.find(attrs={"data-wrap-up": True})["data-wrap-up-elapsed"]) >= 45
    warning = shown.find(attrs={"data-wrap-up-warning": True})
    assert (
        not warning.has_attr("hidden") and "past this queue's limit of 30 s" in warning.get_text()
    )


def test_the_note_goes_with_the_close_and_the_next_attempt_shows_it_escaped(desk, renewals):
    record_id = offered(desk, renewals)
    note = "Call after <script>alert(1)</script> 5pm"
    desk.post(
        f"/desk/tasks/{record_id}/close",
        data={"outcome": "RESCHEDULE", "next_time": "2020-01-01T09:00", "note": note},
    )  # a time in the past: refused, nothing kept
    assert db.session.scalar(select(Attempt)).note is None
    desk.post(
        f"/desk/tasks/{record_id}/close",
        data={"outcome": "RESCHEDULE", "next_time": "2030-01-02T09:30", "note": note},
    )
    assert db.session.scalar(select(Attempt).where(Attempt.ended_how == "CLOSED")).note == note
    # Delivered again (its time made due), the desk shows the earlier attempt and its note.
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    task.next_earliest_work_at = None
    db.session.commit()
    response = desk.get("/desk")
    assert "<script>alert(1)</script>" not in response.get_data(as_text=True)
    shown = page(desk, "/desk")
    earlier = shown.find_all(attrs={"data-earlier-attempt": True})
    assert len(earlier) == 1
    assert shown.find(attrs={"data-note-text": True}).get_text() == note
    assert "reschedule" in earlier[0].get_text()


def test_a_note_too_long_is_refused_naming_the_note_and_the_task_stays_held(desk, renewals):
    record_id = offered(desk, renewals)
    answer = desk.post(
        f"/desk/tasks/{record_id}/close", data={"outcome": "COMPLETE", "note": "x" * 2001}
    )
    assert answer.status_code == 422  # the desk again, every choice kept
    shown = BeautifulSoup(answer.get_data(as_text=True), "html.parser")
    assert "Your note is longer than 2,000 characters (2,001)" in shown.get_text()
    assert shown.find("textarea", attrs={"name": "note"}).get_text() == "x" * 2001
    assert shown.find("article", class_="desk-task")["data-record-id"] == record_id
    assert shown.find("textarea", attrs={"name": "note"})["maxlength"] == "2000"
