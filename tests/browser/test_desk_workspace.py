"""The agent's workspace in Chromium against a real gunicorn: after the call the desk shows
Wrap-up with its timer and, past the queue's limit, a warning (the page's clock run forward,
no waiting), never closing the task itself; an Away reason chosen at the desk shows on the
supervisor's wallboard without a reload; a note written at the close is kept."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, SkillQueue, Task
from app.services.delivery import away_reasons, wrap_up
from app.services.people import supervisors
from tests.browser.conftest import REPORT_CSP_VIOLATIONS, Tab
from tests.browser.test_desk_calls import NUMBER, TEL_SPY, seeded  # noqa: F401, F811 (a fixture)
from tests.browser.test_desk_flow import WIDE, state_button
from tests.conftest import SETUP
from tests.work_codes.test_browser import sign_in_available

pytestmark = pytest.mark.server

EMAIL = "wall@acme.example"
PASSWORD = "figures-on-the-wall"
WITHIN_MS = 2_500  # the wallboard asks every second; a change shows within 2 seconds


@pytest.fixture
def wall(browser, live_server) -> Iterator[Tab]:
    """A second browser, the supervisor's, beside the agent's `tab`."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC")
    context.set_default_timeout(10_000)
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    try:
        yield Tab(context.new_page(), live_server.url)
    finally:
        context.close()


def _limit(acme, seconds: int) -> None:
    sales = db.session.scalar(select(SkillQueue).filter_by(tenant_id=acme.id, name="Sales"))
    wrap_up.set_wrap_up_limit(sales, seconds, actor=SETUP)
    db.session.commit()


def _held(record_id: str) -> tuple[bool, str | None]:
    db.session.rollback()
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    found = (task.reserved_by_id is not None, task.worked_state)
    db.session.rollback()
    return found


def test_after_the_call_the_desk_shows_wrap_up_and_warns_past_the_limit(tab: Tab, seeded, acme):  # noqa: F811
    _limit(acme, 30)
    tab.page.set_viewport_size(WIDE)
    tab.page.add_init_script(TEL_SPY)
    tab.page.clock.install()
    page = sign_in_available(tab)
    wrap = page.locator("[data-wrap-up]")
    warning = page.locator("[data-wrap-up-warning]")
    expect(wrap).to_be_hidden()  # no call yet

    page.get_by_role("button", name=f"Call {NUMBER}").click()
    page.get_by_role("button", name="Busy").click()
    expect(page.locator("[data-call-result]")).to_have_text("Busy")
    expect(wrap).to_be_visible()
    expect(wrap).to_contain_text("Wrap-up 0:00")
    expect(wrap).to_contain_text("(limit 30 s)")
    page.clock.run_for(12_000)
    expect(page.locator("[data-wrap-up-timer]")).to_have_text("0:12")
    expect(warning).to_be_hidden()

    page.clock.run_for(20_000)
    expect(page.locator("[data-wrap-up-timer]")).to_have_text("0:32")
    expect(warning).to_be_visible()
    expect(warning).to_have_text(re.compile(r"past this queue's limit of 30 s: choose the outcome"))
    # A warning only: the task stays the agent's until they close it.
    page.clock.run_for(60_000)
    expect(page.locator("[data-wrap-up-timer]")).to_have_text("1:32")
    assert _held(seeded) == (True, "NOTWORKED")

    # The agent closes it with a note: kept with the attempt; the wrap-up ends with it.
    page.get_by_label(re.compile(r"^Note on this attempt")).fill("Busy twice; try mornings")
    page.get_by_role("button", name="Close (outcome from the codes)").click()
    expect(page.get_by_text(re.compile(r"Task closed: rescheduled"))).to_be_visible()
    db.session.rollback()
    attempt = db.session.scalar(select(Attempt).order_by(Attempt.id.desc()).limit(1))
    assert (attempt.note, attempt.call_result) == ("Busy twice; try mornings", "BUSY")
    db.session.rollback()
    tab.assert_no_problems()


def test_a_reason_chosen_at_the_desk_shows_on_the_wallboard(tab: Tab, wall: Tab, seeded, acme):  # noqa: F811
    for order, name in enumerate(("Break", "Lunch", "Training")):
        away_reasons.add_reason(acme, name, sort_order=order, actor=SETUP)
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    db.session.commit()
    tenant_id = acme.id
    db.session.rollback()

    wall.goto(f"/tenants/{tenant_id}/wallboard")
    wall.page.locator("#email").fill(EMAIL)
    wall.page.locator("#password").fill(PASSWORD)
    wall.page.get_by_role("button", name="Sign in").click()
    row = wall.page.locator("tr[data-agent='ann@acme.example']")
    expect(wall.page.get_by_role("heading", name="Wallboard", exact=True)).to_be_visible()

    page = sign_in_available(tab)
    page.get_by_label("Reason for Away").select_option("Lunch")
    state_button(page, "Away").click()
    expect(page.locator("[data-state]")).to_have_text("AWAY")
    expect(page.locator("[data-away-reason]")).to_have_text("(Lunch)")

    state = row.locator("td[data-label='State']")
    expect(state).to_have_text(re.compile(r"AWAY\s+Lunch"), timeout=WITHIN_MS)
    expect(row.locator("td[data-label='Time in state']")).to_have_text("under a minute")
    tab.assert_no_problems()
    wall.assert_no_problems()
