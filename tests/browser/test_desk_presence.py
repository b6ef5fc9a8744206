"""A task left open at the desk past AGENT_IDLE_SECONDS stays the agent's, in headless
Chromium against a real gunicorn whose desk timings are a few seconds long.

The defect: the page sent no heartbeat while a task was shown, so the clock made the agent
OFFLINE and returned the task to its queue while the agent was on the phone. Here the
page's own script keeps the agent present through the clock's sweeps, warns before the
offer timeout ("Still there?"), and one click on "Keep it" keeps the task; Complete then
closes it. The waits are real seconds because the server's clock is real: they are bounded
(about 15 s in all).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.extensions import db
from app.models import Task, User
from app.models.types import utcnow
from app.services.delivery import sweeps
from tests.admin.conftest import add_task
from tests.browser.conftest import Tab
from tests.desk.desk_support import AGENT, make_agent
from tests.servers import gunicorn
from tests.work_codes.test_browser import sign_in_available

pytestmark = pytest.mark.server

# Heartbeats every second; the desk warns min(60, 14 / 2) = 7 s before the offer lapses.
IDLE, OFFER_TIMEOUT = 3, 14


@pytest.fixture(scope="module")
def quick_server(database_uri, _schema, tmp_path_factory):
    """gunicorn with desk timings of seconds: heartbeats every second."""
    log = tmp_path_factory.mktemp("gunicorn-quick") / "gunicorn.log"
    env = {"AGENT_IDLE_SECONDS": str(IDLE), "OFFER_TIMEOUT_SECONDS": str(OFFER_TIMEOUT)}
    with gunicorn(database_uri, log, 1, "browser-test-secret", env=env) as server:
        yield server


@pytest.fixture
def quick_tab(browser, quick_server) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-GB")
    context.set_default_timeout(10_000)
    try:
        yield Tab(context.new_page(), quick_server.url)
    finally:
        context.close()


@pytest.fixture
def settings(settings):
    return {**settings, "AGENT_IDLE_SECONDS": IDLE, "OFFER_TIMEOUT_SECONDS": OFFER_TIMEOUT}


def _held() -> tuple[str, int | None, str]:
    """The task's state and holder, and the agent's state, as the server committed them."""
    db.session.rollback()
    task = db.session.scalar(select(Task).filter_by(client_id="c1"))
    agent = db.session.scalar(select(User).filter_by(login_user_id=AGENT))
    found = (task.worked_state, task.reserved_by_id, agent.desk_state)
    db.session.rollback()
    return found


def _sweep() -> None:
    """What the worker's clock does each tick."""
    sweeps.expire_reservations(utcnow())
    db.session.commit()


def test_a_task_left_open_past_the_idle_limit_is_still_held_and_closes(quick_tab, acme, renewals):
    agent = make_agent(acme, queues=("Sales",))
    add_task(renewals, "c1", {"Name": "Carla Diaz", "Phone": "+14155550100"})
    agent_id = agent.id
    db.session.commit()
    page = sign_in_available(quick_tab)

    # The agent is on the phone: the page stays open, untouched, twice the idle limit,
    # while the clock sweeps every second.
    deadline = time.monotonic() + 2 * IDLE + 0.5
    while time.monotonic() < deadline:
        time.sleep(1)
        _sweep()
    assert _held() == ("NOTWORKED", agent_id, "AVAILABLE")

    # Before the offer timeout the page asks, and one click keeps the task.
    warning = page.locator("[data-lapse-warning]")
    expect(warning).to_be_visible(timeout=(OFFER_TIMEOUT + 2) * 1000)
    expect(warning).to_contain_text("Your task returns to the queue in")
    quick_tab.shot("desk-still-there-1280")
    page.get_by_role("button", name="Keep it").click()
    expect(warning).to_be_hidden()
    _sweep()
    assert _held() == ("NOTWORKED", agent_id, "AVAILABLE")

    page.get_by_role("button", name="Complete").click()
    expect(page.locator(".notice")).to_contain_text("Task closed: completed")
    assert _held()[:2] == ("COMPLETED", None)
    quick_tab.assert_no_problems()


def test_the_desk_says_so_when_the_server_cannot_be_reached(quick_tab, acme, renewals):
    """A failing heartbeat is not silent: the page counts down to the idle lapse."""
    make_agent(acme, queues=("Sales",))
    add_task(renewals, "c1", {"Name": "Carla Diaz"})
    db.session.commit()
    page = sign_in_available(quick_tab)
    page.route("**/desk/heartbeat", lambda route: route.abort())
    warning = page.locator("[data-lapse-warning]")
    expect(warning).to_contain_text("cannot reach the server", timeout=(IDLE + 3) * 1000)
