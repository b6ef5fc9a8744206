"""The desk's close form refused and asked, in headless Chromium against a real gunicorn:
a reschedule in the past and a call-back code without a time come back with every choice
as the agent left it, the refusal once, in the agent's words, beside the time and marked as
an error, no API field name anywhere, and a reload shows the plain desk without sending the
form again; every removal (the Remove button, a code whose outcome is Remove) asks once,
and "Cancel, back to the task" keeps every choice."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from app.extensions import db
from app.models import Task
from app.services.work_codes.groups import CodeSettings, add_code, create_group, set_queue_groups
from tests.admin.conftest import add_task
from tests.browser.conftest import Tab
from tests.browser.test_desk_flow import WIDE
from tests.conftest import SETUP
from tests.desk.desk_support import make_agent
from tests.desk.refusal_support import API_NAMES
from tests.work_codes.test_browser import sign_in_available

pytestmark = pytest.mark.server

PAST = "2020-01-02T10:00"  # what the agent picks, in the customer's time (New York)
# The time to beat, in the picker's zone (the customer's) and the agent's own (UTC); a
# day other than the one picked, so with its date.
AFTER_NOW = re.compile(
    r"^Choose a time after \d{4}-\d\d-\d\d \d\d:\d\d \(America/New_York\), "
    r"\d{4}-\d\d-\d\d \d\d:\d\d your time \(UTC\)\.$"
)
ERROR_REDS = {"rgb(198, 40, 40)", "rgb(136, 57, 53)"}
NO_TIME = "Choose a time for the next attempt: the codes you ticked set no delay."


@pytest.fixture
def seeded(acme, renewals) -> str:
    """Agent Ann of Sales; a Renewals task (New York); Sales closes with a required Outcome
    (Renewed completes, Call back reschedules with no delay of its own, Wrong number
    removes) and any number of Topics. Committed: the server writes next."""
    make_agent(acme, queues=("Sales",))
    outcome = create_group(acme, "Outcome", required=True, actor=SETUP)
    add_code(outcome, "Renewed", CodeSettings(outcome="COMPLETE"), actor=SETUP)
    add_code(outcome, "Call back", CodeSettings(outcome="RESCHEDULE"), actor=SETUP)
    add_code(outcome, "Wrong number", CodeSettings(outcome="REMOVE"), actor=SETUP)
    topics = create_group(acme, "Topics", multiple=True, actor=SETUP)
    add_code(topics, "Price", CodeSettings(), actor=SETUP)
    add_code(topics, "Coverage", CodeSettings(), actor=SETUP)
    set_queue_groups(acme, "Sales", ["Outcome", "Topics"], actor=SETUP)
    record_id = add_task(renewals, "c1", {"Name": "Carla Diaz", "Phone": "+14155550100"}).record_id
    db.session.commit()
    return record_id


def stored(record_id: str) -> tuple[str, int, bool]:
    db.session.rollback()  # read what the server committed, and hold no transaction after
    task = db.session.scalar(select(Task).filter_by(record_id=record_id))
    found = (task.worked_state, task.work_attempts, task.reserved_by_id is not None)
    db.session.rollback()
    return found


def code(page: Page, name: str):
    return page.locator(f".work-codes input[name^='wc:'][value='{name}']")


def picker(page: Page):
    return page.get_by_label(re.compile(r"^Next attempt, in the customer's time"))


def choose(page: Page, *codes: str, time: str | None = None) -> None:
    for name in codes:
        code(page, name).check()
    if time is not None:
        picker(page).fill(time)


def assert_choices(page: Page, ticked: set[str], time: str) -> None:
    for name in ("Renewed", "Call back", "Wrong number", "Price", "Coverage"):
        if name in ticked:
            expect(code(page, name)).to_be_checked()
        else:
            expect(code(page, name)).not_to_be_checked()
    expect(picker(page)).to_have_value(time)


def refused(tab: Tab) -> None:
    """A refused form answers 422, which Chromium logs as a failed load of the page: that
    one entry is the refusal the test expects, not a problem."""
    expected = [p for p in tab.problems if "status of 422" in p]
    assert len(expected) == 1, tab.problems
    tab.problems.remove(expected[0])


def assert_refused_beside_the_time(page: Page, words) -> None:
    """The refusal once, beside the time (role=alert, the error class, the field marked
    aria-invalid and described by it), nothing said as a notice, no API field name."""
    said = page.locator("#next-time-error")
    expect(said).to_have_text(words)
    expect(said).to_have_attribute("role", "alert")
    expect(said).to_have_class(re.compile(r"\bfield-error\b"))
    # Red, as every form's error (app.css's .field-error, Pico's after an aria-invalid field).
    assert said.evaluate("e => getComputedStyle(e).color") in ERROR_REDS
    expect(picker(page)).to_have_attribute("aria-invalid", "true")
    expect(picker(page)).to_have_attribute("aria-describedby", re.compile(r"\bnext-time-error\b"))
    expect(page.get_by_role("alert")).to_have_count(1)
    expect(page.locator(".notice")).to_have_count(0)
    text = page.locator("body").inner_text()
    assert text.count(said.inner_text()) == 1
    assert not [name for name in API_NAMES if re.search(rf"\b{name}\b", text)], text


def test_a_refused_reschedule_comes_back_as_chosen_with_the_error_beside_the_time(tab: Tab, seeded):
    tab.page.set_viewport_size(WIDE)
    page = sign_in_available(tab)

    # Reschedule, a time in the past: refused, every choice kept.
    choose(page, "Call back", "Price", time=PAST)
    page.get_by_role("button", name="Reschedule", exact=True).click()
    assert_refused_beside_the_time(page, AFTER_NOW)
    assert_choices(page, {"Call back", "Price"}, PAST)
    expect(page).to_have_url(re.compile(r"/desk$"))  # the desk's own address, for a reload
    assert stored(seeded) == ("NOTWORKED", 0, True)
    refused(tab)
    tab.shot("desk-refused-past-1280")

    # Close by the codes, a call-back code and no time: refused, the codes still ticked.
    picker(page).fill("")
    code(page, "Coverage").check()
    page.get_by_role("button", name="Close (outcome from the codes)").click()
    assert_refused_beside_the_time(page, NO_TIME)
    assert_choices(page, {"Call back", "Price", "Coverage"}, "")
    assert stored(seeded) == ("NOTWORKED", 0, True)
    refused(tab)

    # A reload asks for the desk: the form is not sent again, the refusal not said again.
    page.reload()
    expect(page.locator("article.desk-task")).to_have_attribute("data-record-id", seeded)
    expect(page.locator("#next-time-error")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(0)
    assert stored(seeded) == ("NOTWORKED", 0, True)

    # Chosen right, it closes.
    choose(page, "Call back", time="2030-03-04T14:30")
    page.get_by_role("button", name="Reschedule", exact=True).click()
    expect(page.locator(".notice")).to_contain_text("Task closed: rescheduled; next attempt")
    assert stored(seeded)[:2] == ("WORKED", 1)
    tab.assert_no_problems()


@pytest.mark.parametrize(
    ("codes", "button"),
    [
        (("Wrong number", "Price"), "Close (outcome from the codes)"),
        (("Renewed", "Coverage"), "Remove"),
    ],
    ids=["a-remove-code", "the-remove-button"],
)
def test_every_removal_asks_once_and_cancel_keeps_every_choice(tab: Tab, seeded, codes, button):
    tab.page.set_viewport_size(WIDE)
    page = sign_in_available(tab)
    choose(page, *codes)
    page.get_by_role("button", name=button, exact=True).click()
    expect(page.get_by_role("heading", name=re.compile(r"^Remove .*\?$"))).to_be_visible()
    assert stored(seeded) == ("NOTWORKED", 0, True)

    page.get_by_role("button", name="Cancel, back to the task").click()
    expect(page.locator("article.desk-task")).to_have_attribute("data-record-id", seeded)
    assert_choices(page, set(codes), "")
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"/desk$"))
    assert stored(seeded) == ("NOTWORKED", 0, True)

    # The same choice again, confirmed: removed, asked once.
    page.get_by_role("button", name=button, exact=True).click()
    page.get_by_role("button", name="Remove the task").click()
    expect(page.locator(".notice")).to_contain_text("Task closed: removed")
    assert stored(seeded) == ("REMOVED", 1, False)
    tab.assert_no_problems()


def test_a_completion_never_asks(tab: Tab, seeded):
    page = sign_in_available(tab)
    choose(page, "Wrong number")
    page.get_by_role("button", name="Complete", exact=True).click()
    expect(page.locator(".notice")).to_contain_text("Task closed: completed")
    assert stored(seeded) == ("COMPLETED", 1, False)
    tab.assert_no_problems()
