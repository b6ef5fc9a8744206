"""Work codes at the desk in headless Chromium against a real gunicorn: the close form from
the keyboard alone (arrows in a radio group, Space on a checkbox, Enter on "Close"), and the
browser itself holding back a close without a code of a required group."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from app.extensions import db
from app.models import Task
from app.models.types import utcnow
from tests.admin.conftest import PASSWORD, add_task
from tests.browser.conftest import Tab, copy_to_readme
from tests.browser.test_desk_flow import press_tab_until_focused, state_button
from tests.desk.desk_support import AGENT, make_agent

pytestmark = pytest.mark.server


@pytest.fixture
def seeded(acme, groups, renewals):
    """Agent Ann of Sales and one task of Renewals, committed (the server writes next)."""
    make_agent(acme, queues=("Sales",))
    record_id = add_task(renewals, "c1", {"Name": "Carla Diaz", "Phone": "+14155550100"}).record_id
    db.session.commit()  # hold no transaction: on SQLite it would block the server's writes
    return record_id


def sign_in_available(tab: Tab) -> Page:
    page = tab.page
    tab.goto("/desk/login")
    page.get_by_label("Company").fill("Acme")
    page.get_by_label("Environment").fill("prod")
    page.get_by_label("Login user id").fill(AGENT)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/desk$"))
    state_button(page, "Available").click()
    expect(page.locator("article.desk-task")).to_be_visible()
    return page


def stored(record_id: str) -> tuple[str, int, list[tuple[str, str]], object]:
    db.session.rollback()  # read what the server committed, and hold no transaction after
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    found = (
        task.worked_state,
        task.work_attempts,
        [(code.key, code.value) for code in task.work_codes],
        task.next_earliest_work_at,
    )
    db.session.rollback()
    return found


def test_the_codes_are_chosen_and_the_task_closed_from_the_keyboard(tab: Tab, seeded):
    page = sign_in_available(tab)
    copy_to_readme(tab.shot("desk-work-codes-1280"), "desk-work-codes-1280.png")
    result = page.get_by_role("radiogroup", name=re.compile("^Result"))
    first = result.get_by_role("radio").first
    press_tab_until_focused(page, first)
    page.keyboard.press("ArrowDown")  # moves to, and chooses, the second code
    expect(result.get_by_role("radio", name=re.compile("^No answer"))).to_be_checked()
    price = page.get_by_role("checkbox", name=re.compile("^Price"))
    press_tab_until_focused(page, price)
    page.keyboard.press("Space")
    expect(price).to_be_checked()
    close = page.get_by_role("button", name="Close (outcome from the codes)")
    press_tab_until_focused(page, close)
    before = utcnow()
    page.keyboard.press("Enter")
    expect(page.locator(".notice")).to_contain_text("Task closed: rescheduled; next attempt")
    state, attempts, codes, due = stored(seeded)
    assert (state, attempts) == ("WORKED", 1)
    assert codes == [("Result", "No answer"), ("Topics", "Price")]
    assert before + timedelta(minutes=59) < due < utcnow() + timedelta(minutes=61)
    tab.assert_no_problems()


def test_the_browser_holds_back_a_close_without_a_required_code(tab: Tab, seeded):
    page = sign_in_available(tab)
    form = page.locator("form.work-codes")
    assert form.evaluate("form => form.checkValidity()") is False
    page.get_by_role("button", name="Complete", exact=True).click()
    expect(page.locator("article.desk-task")).to_have_attribute("data-record-id", seeded)
    assert stored(seeded)[1] == 0
    page.get_by_role("radio", name=re.compile("^Sale")).check()
    assert form.evaluate("form => form.checkValidity()") is True
    page.get_by_role("button", name="Complete", exact=True).click()
    expect(page.locator(".notice")).to_contain_text("Task closed: completed")
    assert stored(seeded)[:3] == ("COMPLETED", 1, [("Result", "Sale")])
    tab.assert_no_problems()


def test_the_close_form_with_codes_fits_a_phone(tab: Tab, seeded):
    tab.page.set_viewport_size({"width": 390, "height": 844})
    page = sign_in_available(tab)
    expect(page.get_by_role("button", name="Close (outcome from the codes)")).to_be_visible()
    copy_to_readme(tab.shot("desk-work-codes-390"), "desk-work-codes-390.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    tab.assert_no_problems()
