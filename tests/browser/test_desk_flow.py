"""An agent at the desk, in headless Chromium against a real gunicorn, on the demo data:
signs in, becomes Available, receives a task, calls, reschedules it in the customer's time
and receives the next one; the same from the keyboard alone; and at a phone's width the
page never scrolls sideways. Screenshots of the desk with a task feed the README."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlalchemy import select

from app.demo import tenant as demo
from app.extensions import db
from app.models import Task, WorkedState
from app.services.actors import Actor
from app.services.campaigns import life_cycle
from app.services.campaigns.catalogue import get_campaign
from app.services.tenants.setup import get_tenant
from tests.browser.conftest import Tab, copy_to_readme
from tests.conftest import PLATFORM

pytestmark = pytest.mark.server

WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PICKED = "2030-03-04T14:30"  # what the agent picks, in the customer's time


@dataclass(frozen=True)
class Desk:
    passwords: dict[str, str]


@pytest.fixture
def desk(app, tmp_path) -> Desk:
    """The demo data (tenant, tasks, agents Jane and Raj), committed."""
    seeded = demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator())
    db.session.commit()  # hold no transaction: the server's writes would wait on it
    return Desk(seeded.agent_passwords)


@dataclass(frozen=True)
class Stored:
    """A task as the server stored it, read in a transaction that is over (on SQLite an
    open one would hold the lock the server's next write needs)."""

    client_id: str
    preferred_agent: str | None
    time_zone: str
    next_earliest_work_at: datetime | None
    worked_state: str
    work_attempts: int
    reserved: bool
    last_attempt_agent: str | None
    items: dict[str, str]


def stored(record_id: str) -> Stored:
    db.session.rollback()
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    found = Stored(
        task.client_id,
        task.preferred_agent,
        task.time_zone,
        task.next_earliest_work_at,
        task.worked_state,
        task.work_attempts,
        task.reserved_by_id is not None,
        task.last_attempt_agent,
        {item.key: item.value for item in task.items},
    )
    db.session.rollback()
    return found


def sign_in(tab: Tab, desk: Desk, agent: demo.DemoAgent) -> None:
    tab.goto("/desk")
    page = tab.page
    expect(page).to_have_url(re.compile(r"/desk/login\?next="))
    page.get_by_label("Company").fill(demo.COMPANY)
    page.get_by_label("Environment").fill(demo.ENVIRONMENT)
    page.get_by_label("Login user id").fill(agent.login)
    page.get_by_label("Password").fill(desk.passwords[agent.login])
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/desk$"))
    expect(page.locator(".agent-name")).to_have_text(f"{agent.first_name} {agent.last_name}")


def state_button(page: Page, name: str) -> Locator:
    return page.get_by_role("group", name="Your state").get_by_role("button", name=name)


def offered(page: Page) -> str:
    """The record id of the task the page shows."""
    task = page.locator("article.desk-task")
    expect(task).to_be_visible()
    return task.get_attribute("data-record-id")


def test_an_agent_works_a_task_and_reschedules_it_in_the_customers_time(tab: Tab, desk: Desk):
    page = tab.page
    page.set_viewport_size(WIDE)
    sign_in(tab, desk, demo.JANE)
    expect(page.get_by_role("heading", name="You receive no tasks")).to_be_visible()

    state_button(page, "Available").click()
    expect(page.locator("[data-state]")).to_have_text("AVAILABLE")
    expect(state_button(page, "Available")).to_have_attribute("aria-pressed", "true")
    first = offered(page)
    task = stored(first)
    assert (task.client_id, task.preferred_agent) == ("SPR-0025", demo.JANE.login)
    phone = task.items["Mobile Phone"]
    expect(page.locator(".agent-banner")).to_have_text(task.items["Name"])
    dial = page.locator(".agent-view .detail[data-key='Mobile Phone']").get_by_role("link")
    expect(dial).to_have_attribute("href", f"tel:{phone}")
    copy_to_readme(tab.shot("desk-1280"), "desk-1280.png")

    # Call: the server records the call, then the page dials the first phone (the dialler
    # is the device's: stop it there); the agent says how the call ended.
    page.evaluate(
        "document.addEventListener('click', e => { const a = e.target.closest('a[href^=\"tel:\"]');"
        " if (a) { e.preventDefault(); window.dialled = a.getAttribute('href'); } }, true)"
    )
    page.get_by_role("button", name=f"Call {phone}").click()
    expect(page.get_by_role("button", name="No answer")).to_be_visible()
    assert page.evaluate("window.dialled") == f"tel:{phone}"
    page.get_by_role("button", name="No answer").click()
    expect(page.locator("[data-call-result]")).to_have_text("No answer")
    # Wrap-up: from the call's end until the task is closed, with its timer.
    expect(page.locator("[data-wrap-up]")).to_contain_text(re.compile(r"Wrap-up \d+:\d\d"))
    copy_to_readme(tab.shot("desk-wrap-up-1280"), "desk-wrap-up-1280.png")

    # Reschedule with the date-time picker, read in the task's (the customer's) zone.
    picker = page.get_by_label(re.compile(r"^Next attempt, in the customer's time"))
    expect(picker).to_have_attribute("type", "datetime-local")
    picker.fill(PICKED)
    page.get_by_role("button", name="Reschedule", exact=True).click()

    # The next task comes at once; the first is WORKED, due at the picked local time.
    expect(page.locator("article.desk-task")).not_to_have_attribute("data-record-id", first)
    second = offered(page)
    rescheduled = stored(first)
    local = datetime.fromisoformat(PICKED).replace(tzinfo=ZoneInfo(rescheduled.time_zone))
    assert rescheduled.time_zone == "America/New_York"
    assert rescheduled.next_earliest_work_at == local.astimezone(UTC)
    assert (rescheduled.worked_state, rescheduled.work_attempts) == (WorkedState.WORKED, 1)
    assert not rescheduled.reserved
    after = stored(second)
    assert after.reserved and after.last_attempt_agent == demo.JANE.login
    tab.assert_no_problems()


def press_tab_until_focused(page: Page, target: Locator, limit: int = 40) -> int:
    """Press Tab until `target` has the focus; how many presses it took."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if target.evaluate("element => element === document.activeElement"):
            return presses
    raise AssertionError(f"{target} was not reached in {limit} presses of Tab")


def test_the_state_switch_and_the_outcomes_work_from_the_keyboard(tab: Tab, desk: Desk):
    # Raj's held Win-back task is deliverable only while its queue (Retention: hours) and
    # window are open in London, and its queue asks for an outcome code: Win-back paused,
    # his first task is the Spring Renewals one, which Complete closes, whatever the hour.
    tenant = get_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    life_cycle.pause(get_campaign(tenant, "Win-back"), actor=Actor.operator())
    db.session.commit()
    page = tab.page
    sign_in(tab, desk, demo.RAJ)

    available = state_button(page, "Available")
    press_tab_until_focused(page, available)
    page.keyboard.press("Enter")
    expect(page.locator("[data-state]")).to_have_text("AVAILABLE")
    first = offered(page)

    complete = page.get_by_role("button", name="Complete", exact=True)
    press_tab_until_focused(page, complete)
    expect(complete).to_have_css("box-shadow", re.compile(r"0px 0px 0px 2px"))  # focus ring
    page.keyboard.press("Enter")
    expect(page.locator("article.desk-task")).not_to_have_attribute("data-record-id", first)
    assert stored(first).worked_state == WorkedState.COMPLETED

    away = state_button(page, "Away")
    press_tab_until_focused(page, away)
    page.keyboard.press("Enter")
    expect(page.locator("[data-state]")).to_have_text("AWAY")
    # Away stops new tasks, never hides the one in hand (the next one, delivered above).
    expect(page.locator("article.desk-task")).to_have_count(1)
    expect(page.locator("[data-away-task]")).to_contain_text("This task is still yours")
    tab.assert_no_problems()


def test_the_desk_with_a_task_fits_a_phone(tab: Tab, desk: Desk):
    page = tab.page
    page.set_viewport_size(PHONE)
    sign_in(tab, desk, demo.JANE)
    state_button(page, "Available").click()
    offered(page)
    expect(page.get_by_role("button", name=re.compile(r"^Call "))).to_be_visible()
    copy_to_readme(tab.shot("desk-390"), "desk-390.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    tab.assert_no_problems()
