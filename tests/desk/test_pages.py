"""The desk in the browser: sign-in hardening, agents and supervisors kept apart, and the
page's flows on the delivery engine (state, task, call, outcomes, release)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AgentSession, AgentState, Task, User
from app.services.people import agents
from app.services.tasks.changes import Locator, delete_task
from app.wire.times import sent_time
from tests.admin.conftest import PASSWORD, add_task, csrf_token, page, session_for, soup
from tests.conftest import SETUP
from tests.desk.desk_support import AGENT, desk_session, desk_sign_in, make_agent

PHONE = "+14155550100"


def sessions_of(agent: User) -> int:
    return db.session.scalar(
        select(func.count()).select_from(AgentSession).filter_by(user_id=agent.id)
    )


def state_of(agent: User) -> str:
    db.session.refresh(agent)
    return agent.desk_state


def post_state(client, state: str):
    token = csrf_token(page(client, "/desk"))
    return client.post("/desk/state", data={"state": state, "csrf_token": token or ""})


# Signing in -----------------------------------------------------------------------------


def test_the_right_password_opens_the_desk(client, agent):
    response = desk_sign_in(client)
    assert response.status_code == 302 and response.location.endswith("/desk")
    assert page(client, "/desk").find(attrs={"data-state": True})
    assert sessions_of(agent) == 1


@pytest.mark.parametrize(
    ("company", "environment", "login", "password"),
    [
        ("Acme", "prod", AGENT, "wrong password entirely"),
        ("Acme", "prod", "nobody@acme.example", PASSWORD),
        ("Acme", "test", AGENT, PASSWORD),
        ("Nope", "prod", AGENT, PASSWORD),
    ],
)
def test_every_failure_gives_one_generic_message(
    client, agent, company, environment, login, password
):
    response = desk_sign_in(client, login, password, company, environment)
    assert response.status_code == 422
    assert "Invalid company, environment, login user id or password." in response.get_data(
        as_text=True
    )
    assert sessions_of(agent) == 0


def test_an_agent_without_a_password_cannot_sign_in(client, acme):
    make_agent(acme, login="new@acme.example", password=None)
    response = desk_sign_in(client, "new@acme.example", "")
    assert response.status_code == 422


@pytest.mark.parametrize(
    ("target", "lands_on"),
    [
        ("/desk?x=1", "/desk?x=1"),
        ("https://evil.example/desk", "/desk"),
        ("//evil.example/desk", "/desk"),
        ("/\\evil.example", "/desk"),
        ("/tenants", "/desk"),  # never a supervisor's page
    ],
)
def test_next_is_followed_only_to_the_desk(client, agent, target, lands_on):
    response = desk_sign_in(client, next_=target)
    assert response.location == lands_on


@pytest.mark.parametrize(
    "settings", [{"RATELIMIT_ENABLED": True, "LOGIN_RATE_LIMIT": "3 per minute"}], indirect=True
)
def test_desk_sign_in_attempts_are_rate_limited(client, agent):
    for _ in range(3):
        desk_sign_in(client, password="wrong password entirely")
    assert desk_sign_in(client).status_code == 429  # even with the right password


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
def test_desk_sign_in_needs_its_csrf_token(client, agent):
    response = client.post(
        "/desk/login",
        data={
            "company": "Acme",
            "environment": "prod",
            "login_user_id": AGENT,
            "password": PASSWORD,
        },
    )
    assert response.status_code != 302
    assert sessions_of(agent) == 0


# Agents and supervisors apart -----------------------------------------------------------


def test_a_supervisors_session_never_opens_the_desk(signed_in, acme, agent):
    response = signed_in.get("/desk")
    assert response.status_code == 302 and "/desk/login" in response.location


def test_an_agents_session_never_opens_a_supervisors_page(desk, acme):
    for path in ("/tenants", f"/tenants/{acme.id}/users", f"/tenants/{acme.id}/campaigns"):
        response = desk.get(path)
        assert response.status_code == 302 and "/login" in response.location, path
        assert "/desk" not in response.location


def test_signing_in_as_agent_leaves_a_supervisor_session_as_it_was(client, boss, acme, agent):
    session_for(client, boss)
    desk_sign_in(client)
    assert client.get("/tenants").status_code == 200
    assert client.get("/desk").status_code == 200


def test_signed_out_desk_pages_go_to_the_desk_sign_in(client, agent):
    for method, path in (("get", "/desk"), ("post", "/desk/state"), ("post", "/desk/logout")):
        response = getattr(client, method)(path)
        assert response.status_code == 302 and "/desk/login" in response.location


# Signing out ----------------------------------------------------------------------------


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
def test_signing_out_ends_the_session_and_sets_offline(desk, agent):
    assert post_state(desk, "AVAILABLE").status_code == 302
    assert state_of(agent) == AgentState.AVAILABLE
    desk.post("/desk/logout")  # no CSRF token: nothing happens
    assert sessions_of(agent) == 1
    token = csrf_token(page(desk, "/desk"))
    response = desk.post("/desk/logout", data={"csrf_token": token})
    # Back to the tenant's own sign-in page.
    assert response.status_code == 302 and response.location.endswith("/desk/login/Acme/prod")
    assert sessions_of(agent) == 0
    assert state_of(agent) == AgentState.OFFLINE
    assert "/desk/login" in desk.get("/desk").location


def test_a_new_password_ends_every_desk_session(desk, agent):
    token = agents.invite(agent, actor=SETUP)
    agents.accept_invite(token, "purple lantern orchestra 42")
    db.session.commit()
    assert sessions_of(agent) == 0
    assert desk.get("/desk").status_code == 302


# The page -------------------------------------------------------------------------------


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
def test_the_state_switch_needs_its_csrf_token(desk, agent):
    desk.post("/desk/state", data={"state": "AVAILABLE"})
    assert state_of(agent) == AgentState.OFFLINE
    post_state(desk, "AWAY")
    assert state_of(agent) == AgentState.AWAY


def test_an_offline_agent_receives_nothing(desk, renewals):
    add_task(renewals, "c1")
    shown = page(desk, "/desk")
    assert shown.find("article", class_="desk-task") is None
    assert "Switch to" in shown.get_text()
    assert shown.find("meta", attrs={"http-equiv": "refresh"}) is None


def test_each_view_is_a_heartbeat(desk, agent):
    page(desk, "/desk")
    db.session.refresh(agent)
    first = agent.last_seen_at
    assert first is not None
    page(desk, "/desk")
    db.session.refresh(agent)
    assert agent.last_seen_at >= first


def test_two_tabs_refreshing_at_once_never_get_a_500(app, acme, renewals, agent):
    """The page writes (a heartbeat, a delivery): on SQLite a GET that wrote in a read
    transaction failed with "database is locked" when another tab had just written."""
    for n in range(20):
        add_task(renewals, f"c{n}")
    agent.desk_state = AgentState.AVAILABLE
    db.session.commit()
    tabs = [desk_session(app.test_client(), agent) for _ in range(4)]
    codes: list[int] = []

    def refresh(tab) -> None:
        for _ in range(10):
            with app.app_context():
                codes.append(tab.get("/desk").status_code)

    threads = [threading.Thread(target=refresh, args=(tab,)) for tab in tabs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert codes == [200] * 40


def test_an_available_agent_sees_the_task_in_the_agent_view(desk, renewals):
    add_task(renewals, "c1", {"Name": "Carla Diaz", "Phone": PHONE, "Notes": "<b>VIP</b>"})
    post_state(desk, "AVAILABLE")
    shown = page(desk, "/desk")
    task = shown.find("article", class_="desk-task")
    assert task.find(class_="agent-banner").get_text(strip=True) == "Carla Diaz"
    call = task.find("form", attrs={"data-call-form": True})
    assert call.find("input", attrs={"name": "phone_key"})["value"] == "Phone"
    assert call.button.get_text(" ", strip=True) == f"Call {PHONE}"
    assert task.find("a", class_="dial")["href"] == f"tel:{PHONE}"
    assert "<b>VIP</b>" in task.get_text()  # shown as text, never as markup
    assert shown.find("meta", attrs={"http-equiv": "refresh"}) is None
    held = db.session.scalar(select(Task).filter_by(client_id="c1"))
    assert held.reserved_by_id is not None and held.last_attempt_agent == AGENT


def test_nothing_to_do_says_why_and_refreshes_itself(desk):
    post_state(desk, "AVAILABLE")
    shown = page(desk, "/desk")
    assert shown.find("meta", attrs={"http-equiv": "refresh"})["content"] == "15"
    idle = shown.find("article", class_="desk-idle")
    assert "Nothing to do" in idle.get_text()
    assert idle.find(attrs={"data-reason": True}).get_text(strip=True)


def _offered(desk) -> str:
    post_state(desk, "AVAILABLE")
    return page(desk, "/desk").find("article", class_="desk-task")["data-record-id"]


def _close(desk, record_id: str, **data):
    return desk.post(f"/desk/tasks/{record_id}/close", data=data)


def _task(record_id: str) -> Task:
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    db.session.refresh(task)
    return task


def test_a_reschedule_is_read_in_the_customers_zone_and_the_next_task_follows(desk, renewals):
    add_task(renewals, "c1")
    add_task(renewals, "c2")
    record_id = _offered(desk)
    response = _close(desk, record_id, outcome="RESCHEDULE", next_time="2030-01-02T09:30")
    assert response.status_code == 302
    task = _task(record_id)
    assert task.worked_state == "WORKED" and task.work_attempts == 1
    # 09:30 in New York (EST, UTC-5) is 14:30 UTC.
    assert task.next_earliest_work_at == datetime(2030, 1, 2, 14, 30, tzinfo=UTC)
    following = page(desk, "/desk").find("article", class_="desk-task")
    assert following["data-record-id"] != record_id


def test_a_reschedule_without_a_time_is_refused_and_the_task_stays_held(desk, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    shown = soup(_close(desk, record_id, outcome="RESCHEDULE"))
    said = shown.find(id="next-time-error")
    assert said.get_text(strip=True) == "Choose a time for the next attempt."
    assert "nextEarliestWorkTimeUTC" not in shown.get_text()
    assert shown.find("article", class_="desk-task")["data-record-id"] == record_id
    assert _task(record_id).work_attempts == 0


@pytest.mark.parametrize(("outcome", "state"), [("COMPLETE", "COMPLETED"), ("REMOVE", "REMOVED")])
def test_closing_sets_the_outcomes_state(desk, renewals, outcome, state):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    _close(desk, record_id, outcome=outcome, confirmed="yes")
    task = _task(record_id)
    assert (task.worked_state, task.work_attempts, task.reserved_by_id) == (state, 1, None)


@pytest.mark.parametrize("outcome", ["", "SKIP", "complete"])
def test_an_unknown_outcome_changes_nothing(desk, renewals, outcome):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    assert _close(desk, record_id, outcome=outcome).status_code == 422  # the form again
    assert _task(record_id).work_attempts == 0


def test_release_returns_the_task_without_an_attempt(desk, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    assert desk.post(f"/desk/tasks/{record_id}/release").status_code == 302
    task = _task(record_id)
    assert (task.reserved_by_id, task.work_attempts, task.worked_state) == (None, 0, "NOTWORKED")


def test_a_task_deleted_while_held_is_told_on_the_next_action(desk, acme, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    delete_task(renewals, Locator(record_id=record_id), actor=SETUP)
    db.session.commit()
    _close(desk, record_id, outcome="COMPLETE")
    assert "no longer yours" in page(desk, "/desk").get_text()


def test_another_agents_task_cannot_be_closed(desk, acme, renewals):
    add_task(renewals, "c1")
    record_id = _offered(desk)
    other = make_agent(acme, login="bob@acme.example")
    desk_session(desk, other)  # the same browser, now Bob
    _close(desk, record_id, outcome="COMPLETE")
    assert _task(record_id).worked_state == "NOTWORKED"
    assert "no longer yours" in soup(desk.get("/desk")).get_text()


def test_desk_pages_are_never_cached(desk):
    assert desk.get("/desk").headers["Cache-Control"] == "no-store"


def test_nothing_to_do_tells_when_the_next_task_is_due(desk, renewals):
    add_task(
        renewals,
        "c1",
        next_earliest=sent_time(
            int(datetime(2031, 5, 6, 7, 8, tzinfo=UTC).timestamp() * 1000),
            "nextEarliestWorkTimeUTC",
        ),
    )
    post_state(desk, "AVAILABLE")
    idle = page(desk, "/desk").find("article", class_="desk-idle")
    reason = idle.find(attrs={"data-reason": True})
    assert "2031-05-06 07:08" in reason.get_text()
    assert reason["data-next-due"] == "2031-05-06 07:08 UTC"


@pytest.mark.parametrize("record_id", ["nope", "x" * 600, "%E2%80%AE"])
@pytest.mark.parametrize("action", ["close", "release"])
def test_an_unknown_task_is_told_never_a_500(desk, renewals, record_id, action):
    add_task(renewals, "c1")
    _offered(desk)
    response = desk.post(f"/desk/tasks/{record_id}/{action}", data={"outcome": "COMPLETE"})
    assert response.status_code == 302
    assert "no longer yours" in page(desk, "/desk").get_text()


def test_a_nul_in_a_form_is_a_400(desk):
    assert desk.post("/desk/state", data={"state": "AVAIL\x00ABLE"}).status_code == 400
