"""The desk's live channel in Chromium against a real gunicorn: a supervisor's bulk delete,
move, edit or release of the agent's task shows on the open desk within the 2 seconds the
wallboard keeps, saying who did what and when; the agent's ticked work codes stay on screen
(read only) and are said back; the progressive countdown stops and nothing dials until the
agent has read it and asked for the next task. A second tab shows it is signed out within
2 seconds of signing out in the first. Away with a task in hand still shows the task."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.extensions import db
from app.models import Task
from app.services.actors import Actor
from app.services.bulk.actions import BulkRequest
from app.services.bulk.jobs import start_bulk
from app.services.delivery.progress import release_by_supervisor
from app.services.search.criteria import Condition, Criterion
from app.services.tasks.changes import Locator, TaskChanges, add_or_update_task, transfer_task
from app.services.tasks.validation import ItemInput
from tests.admin.conftest import add_task
from tests.browser.conftest import Tab
from tests.browser.test_desk_calls import _desk, _dial_settings
from tests.browser.test_desk_calls import seeded as seeded  # noqa: F401 (a fixture)
from tests.browser.test_desk_flow import state_button
from tests.browser.test_wallboard import WITHIN_MS
from tests.browser.test_wallboard_stream import new_tab
from tests.work_codes.test_browser import sign_in_available

pytestmark = pytest.mark.server

SUP = Actor.supervisor("sup@acme.example")


def _task(record_id: str) -> Task | None:
    db.session.rollback()
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    db.session.rollback()  # hold no transaction: the server's probes would wait on it
    return task


def _commit() -> None:
    db.session.commit()
    db.session.rollback()  # hold no transaction: the server's writes would wait on it


def test_a_bulk_delete_shows_who_did_it_keeps_the_codes_and_dials_nothing(
    tab: Tab, seeded, renewals
):
    _dial_settings(renewals, 20)
    add_task(renewals, "c2", {"Name": "Dan Ek", "Phone": "+14155550111"})
    page = _desk(tab)
    expect(page.locator("[data-countdown-box]")).to_be_visible()
    page.get_by_label("Spoke").check()
    page.get_by_label("Next attempt, in the customer's time").fill("2030-01-02T09:30")

    job_id = start_bulk(
        renewals,
        [Criterion("Name", Condition.EQUALS, "Carla Diaz")],
        BulkRequest("delete"),
        actor=SUP,
    ).id
    _commit()
    assert _task(seeded) is None
    notice = page.locator("[data-desk-notice]")
    expect(notice).to_be_visible(timeout=WITHIN_MS)
    expect(notice).to_contain_text(
        re.compile(
            r"Deleted by supervisor sup@acme\.example at \d\d:\d\d in a bulk delete "
            rf"\(bulk job {job_id}\)"
        )
    )
    expect(notice).to_contain_text("Not saved, so note it down: Outcome: Spoke; Next attempt")
    # The choices stay on screen, read only; the countdown is gone and nothing dials.
    expect(page.get_by_label("Spoke")).to_be_checked()
    expect(page.get_by_label("Spoke")).to_be_disabled()
    expect(page.get_by_role("button", name="Complete")).to_be_disabled()
    expect(page.locator("[data-countdown-box]")).to_be_hidden()
    page.clock.run_for(60_000)
    assert page.evaluate("window.dialled") is None
    expect(page.locator("article.desk-task")).to_contain_text("Carla Diaz")
    tab.shot("desk-task-deleted-live")

    # Once read, "Next task" brings the next one, and only its countdown runs.
    page.get_by_role("button", name="Next task").click()
    expect(page.locator("article.desk-task")).to_contain_text("Dan Ek")
    expect(page.locator("[data-countdown-box]")).to_be_visible()
    expect(page.locator("[data-desk-notice]")).to_be_hidden()
    tab.assert_no_problems()


@pytest.mark.parametrize("change", ["move", "release"])
def test_a_move_or_release_by_a_supervisor_shows_within_2_seconds(
    tab: Tab, seeded, renewals, change
):
    db.session.rollback()  # hold no transaction: the server's sign-in would wait on it
    page = sign_in_available(tab)
    if change == "move":
        transfer_task(renewals, Locator(record_id=seeded), "Winback", TaskChanges(), actor=SUP)
        said = "Moved by supervisor sup@acme.example at"
    else:
        release_by_supervisor(_task(seeded), actor=SUP)
        said = "Released by supervisor sup@acme.example at"
    _commit()
    notice = page.locator("[data-desk-notice]")
    expect(notice).to_contain_text(said, timeout=WITHIN_MS)
    expect(notice).to_contain_text("This task is no longer yours")
    expect(page.get_by_role("button", name="Complete")).to_be_disabled()
    tab.assert_no_problems()


def test_an_edit_while_held_pauses_the_countdown_and_offers_the_new_details(
    tab: Tab, seeded, renewals
):
    _dial_settings(renewals, 30)
    page = _desk(tab)
    expect(page.locator("[data-countdown-box]")).to_be_visible()
    items = [ItemInput("Name", "Carla Diaz-Ruiz"), ItemInput("Phone", "+14155550199")]
    add_or_update_task(renewals, "c1", items, actor=SUP)
    _commit()
    notice = page.locator("[data-desk-notice]")
    expect(notice).to_contain_text("Changed by supervisor sup@acme.example at", timeout=WITHIN_MS)
    pause = page.locator("[data-countdown-pause]")
    expect(pause).to_have_text("Resume the countdown")
    page.clock.run_for(60_000)
    assert page.evaluate("window.dialled") is None
    page.get_by_role("button", name="Show the changes").click()
    expect(page.locator("article.desk-task")).to_contain_text("Carla Diaz-Ruiz")
    expect(page.locator("article.desk-task")).to_contain_text("+14155550199")
    expect(page.locator("[data-desk-notice]")).to_be_hidden()
    tab.assert_no_problems()


def test_a_second_tab_shows_signed_out_within_2_seconds(tab: Tab, seeded):
    first = sign_in_available(tab)
    second = first.context.new_page()
    second.goto(tab.base_url + "/desk")
    expect(second.locator("article.desk-task")).to_be_visible()
    expect(second.locator("[data-state]")).to_have_text("AVAILABLE")
    first.get_by_role("button", name="Sign out").click()
    expect(first).to_have_url(re.compile(r"/desk/login"))
    notice = second.locator("[data-desk-notice]")
    expect(notice).to_contain_text(
        re.compile(r"You signed out at \d\d:\d\d \(in another tab or window\)"), timeout=WITHIN_MS
    )
    expect(second.locator("[data-state]")).to_have_text("SIGNED OUT")
    expect(second.get_by_role("button", name="Complete")).to_be_disabled()
    second.get_by_role("button", name="Sign in again").click()
    expect(second).to_have_url(re.compile(r"/desk/login"))
    tab.assert_no_problems()


def test_past_this_sign_ins_streams_the_desk_says_so_and_learns_by_polling(
    browser, one_stream_server, seeded
):
    """One desk stream a session: the second tab is refused its stream (429), says why, and
    still learns by polling that the first tab signed out."""
    server = one_stream_server
    tab = new_tab(browser, server.url)
    try:
        first = sign_in_available(tab)
        second = first.context.new_page()
        second.goto(server.url + "/desk")
        paused = second.locator("[data-live-paused]")
        expect(paused).to_have_text(
            "Live updates are paused: too many pages with live updates are open in this "
            "sign-in (at most 1). This page asks every second instead."
        )
        expect(first.locator("[data-live-paused]")).to_have_count(0)
        first.get_by_role("button", name="Sign out").click()
        expect(second.locator("[data-desk-notice]")).to_contain_text(
            "You are signed out", timeout=WITHIN_MS
        )
        expect(second.locator("[data-state]")).to_have_text("SIGNED OUT")
        assert all("429" in problem for problem in tab.problems), tab.problems
    finally:
        tab.page.context.close()


def test_away_with_a_task_in_hand_still_shows_the_task(tab: Tab, seeded):
    page = sign_in_available(tab)
    state_button(page, "Away").click()
    expect(page.locator("[data-state]")).to_have_text("AWAY")
    expect(page.locator("article.desk-task")).to_contain_text("Carla Diaz")
    expect(page.locator("[data-away-task]")).to_contain_text("This task is still yours")
    expect(page.get_by_role("button", name="Complete")).to_be_enabled()
    tab.assert_no_problems()
