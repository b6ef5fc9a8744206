"""The desk page over a whole shift: its heartbeat and "Keep it", a close after a lapse, a
refusal that says who took the task and what the agent chose, Remove that asks first, a
reschedule confirmed in the customer's time, and form addresses that open as links."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Task
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import agent_state, offers, sweeps
from tests.admin.conftest import add_task, csrf_token, page, soup
from tests.desk.desk_support import make_agent

S = timedelta(seconds=1)


def _offered(desk) -> str:
    token = csrf_token(page(desk, "/desk"))
    desk.post("/desk/state", data={"state": "AVAILABLE", "csrf_token": token or ""})
    return page(desk, "/desk").find("article", class_="desk-task")["data-record-id"]


def _task(record_id: str) -> Task:
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    db.session.refresh(task)
    return task


def _notice(desk) -> str:
    return " ".join(p.get_text(" ", strip=True) for p in page(desk, "/desk").select(".notice"))


def _lapse(app, record_id: str) -> None:
    """The clock runs past the offer timeout: the task returns to its queue."""
    later = utcnow() + timedelta(seconds=app.config["OFFER_TIMEOUT_SECONDS"]) + S
    sweeps.expire_reservations(later)
    db.session.commit()
    assert _task(record_id).reserved_by_id is None


def test_the_page_tells_its_script_when_each_lapse_comes(desk, renewals, app):
    add_task(renewals, "c1")
    _offered(desk)
    holder = page(desk, "/desk").find(id="desk-presence")
    presence = json.loads(holder["data-presence"])
    assert presence["state"] == "AVAILABLE" and presence["task"]
    timeout = app.config["OFFER_TIMEOUT_SECONDS"]
    assert timeout - 5 < presence["offerLapsesIn"] <= timeout
    assert int(holder["data-heartbeat-every"]) * 4 <= app.config["AGENT_IDLE_SECONDS"]
    assert holder["data-heartbeat-url"] == "/desk/heartbeat"


def test_the_heartbeat_keeps_the_agent_present_and_answers_json(desk, agent, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    reserved_at = _task(record_id).reserved_at
    response = desk.post("/desk/heartbeat", data={"active": "0"})
    assert response.status_code == 200 and response.is_json
    assert response.json["task"] == record_id and response.json["warnSeconds"] == 60
    db.session.refresh(agent)
    assert agent.last_seen_at >= reserved_at
    assert _task(record_id).reserved_at == reserved_at  # presence alone is no activity
    desk.post("/desk/heartbeat", data={"active": "1"})
    assert _task(record_id).reserved_at > reserved_at


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
def test_the_heartbeat_and_keep_need_the_csrf_token(desk, agent, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    assert desk.post("/desk/heartbeat").status_code == 400
    assert desk.post(f"/desk/tasks/{record_id}/keep").status_code == 400
    token = page(desk, "/desk").find(id="desk-presence")["data-csrf-token"]
    assert desk.post("/desk/heartbeat", data={"csrf_token": token}).status_code == 200


def test_keep_it_keeps_the_task_with_or_without_javascript(desk, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    before = _task(record_id).reserved_at
    as_script = desk.post(f"/desk/tasks/{record_id}/keep", headers={"Accept": "application/json"})
    assert as_script.json["kept"] is True and as_script.json["task"] == record_id
    assert _task(record_id).reserved_at > before
    as_form = desk.post(f"/desk/tasks/{record_id}/keep")
    assert as_form.status_code == 302 and as_form.location == "/desk"


def test_keep_it_on_a_task_taken_meanwhile_says_so(desk, renewals, app):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    _lapse(app, record_id)
    answer = desk.post(f"/desk/tasks/{record_id}/keep", headers={"Accept": "application/json"})
    assert answer.status_code == 409 and answer.json == {"kept": False}


def test_a_close_after_the_task_lapsed_is_still_accepted(desk, renewals, app):
    """D1: the agent pressed Complete after the clock had returned the task to its queue."""
    add_task(renewals, "c1")
    record_id = _offered(desk)
    _lapse(app, record_id)
    desk.post(f"/desk/tasks/{record_id}/close", data={"outcome": "COMPLETE"})
    assert _task(record_id).worked_state == "COMPLETED"
    assert "Task closed: completed" in _notice(desk)


def test_a_close_refused_says_who_took_the_task_and_what_was_chosen(desk, acme, renewals, app):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    _lapse(app, record_id)
    bob = make_agent(acme, login="bob@acme.example")
    agent_state.set_agent_state(bob, "AVAILABLE", actor=Actor.agent(bob.login_user_id))
    assert offers.next_task(bob, actor=Actor.agent(bob.login_user_id)).task.record_id == record_id
    db.session.commit()
    desk.post(
        f"/desk/tasks/{record_id}/close",
        data={"outcome": "RESCHEDULE", "next_time": "2030-01-02T09:30"},
    )
    told = " ".join(p.get_text(" ", strip=True) for p in page(desk, "/desk").select(".alert"))
    assert "no longer yours: taken by agent bob@acme.example at" in told
    assert "Not saved, so note it down: Reschedule; next attempt 2030-01-02 09:30" in told
    assert _task(record_id).worked_state == "NOTWORKED"


def test_remove_asks_first_and_changes_nothing_until_confirmed(desk, renewals):
    """D11: one tap on Remove (next to Complete on a phone) no longer removes at once."""
    add_task(renewals, "c1")
    record_id = _offered(desk)
    asked = desk.post(f"/desk/tasks/{record_id}/close", data={"outcome": "REMOVE"})
    assert asked.status_code == 200
    shown = soup(asked)
    assert "never delivered again" in shown.get_text()
    assert _task(record_id).worked_state == "NOTWORKED"
    form = shown.find("form", action=f"/desk/tasks/{record_id}/close")
    sent = {field["name"]: field["value"] for field in form.find_all("input")}
    remove = form.find("button", attrs={"name": "confirmed", "value": "yes"})
    assert sent["outcome"] == "REMOVE" and remove.get_text(strip=True) == "Remove the task"
    cancel = form.find("button", attrs={"name": "confirmed", "value": "no"})
    assert cancel.get_text(strip=True).startswith("Cancel")
    desk.post(f"/desk/tasks/{record_id}/close", data={**sent, "confirmed": "yes"})
    assert _task(record_id).worked_state == "REMOVED"


def test_remove_carries_the_chosen_work_codes_through_its_question(desk, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    asked = soup(
        desk.post(
            f"/desk/tasks/{record_id}/close",
            data={"outcome": "REMOVE", "wc:Outcome": "Wrong number"},
        )
    )
    carried = [(field["name"], field["value"]) for field in asked.select("form input[type=hidden]")]
    assert ("wc:Outcome", "Wrong number") in carried


@pytest.mark.parametrize(
    ("agent_zone", "said"),
    [
        (None, "2030-01-02 09:30 America/New_York (2030-01-02 14:30 UTC for you)"),
        ("America/New_York", "2030-01-02 09:30 America/New_York."),
        ("Europe/Berlin", "2030-01-02 09:30 America/New_York (2030-01-02 15:30 Europe/Berlin"),
    ],
)
def test_a_reschedule_is_confirmed_in_the_customers_time(desk, agent, renewals, agent_zone, said):
    """D10: the agent typed the customer's local time; the confirmation says it back so."""
    agent.time_zone = agent_zone
    db.session.commit()
    add_task(renewals, "c1")
    record_id = _offered(desk)
    desk.post(
        f"/desk/tasks/{record_id}/close",
        data={"outcome": "RESCHEDULE", "next_time": "2030-01-02T09:30"},
    )
    assert said in _notice(desk)


@pytest.mark.parametrize(
    "path", ["/desk/state", "/desk/heartbeat", "/desk/tasks/x/close", "/desk/tasks/x/keep"]
)
def test_a_form_address_opened_as_a_link_goes_to_the_desk(desk, path):
    response = desk.get(path)
    assert response.status_code == 302 and response.location == "/desk"
