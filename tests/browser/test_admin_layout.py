"""The supervisors' pages at the widths people use them: the main menu on one line at
1280 px; a long value wraps in a task's history instead of widening it; at 390 px the
Delete and Remove buttons of Users and Do-not-call are on screen and the do-not-call search
box keeps the page's width; a refused search says why at its row."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from app.extensions import db
from app.services.campaigns import catalogue as campaigns
from app.services.dnc import numbers as dnc
from app.services.people import supervisors
from app.services.people.users import NewUser, add_user
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from app.services.tenants.setup import create_user_template
from tests.browser.conftest import Tab
from tests.conftest import SETUP, make_tenant

pytestmark = pytest.mark.server

EMAIL = "supervisor.jane.montgomery@acme-corporation.example"
PASSWORD = "layout-walk-at-two-widths"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
LONG_VALUE = "x" * 255  # the longest key a search allows; a value may be longer still


@dataclass(frozen=True)
class Paths:
    campaign: str
    task: str
    users: str
    dnc: str


@pytest.fixture
def paths(app) -> Paths:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    renewals = campaigns.get_campaign(tenant, "Renewals")
    items = [ItemInput("Name", "Ada Lovelace"), ItemInput("Plan", "Gold")]
    task, _ = add_or_update_task(renewals, "R-1", items, actor=SETUP)
    items = [ItemInput("Name", "Ada Lovelace"), ItemInput("Plan", LONG_VALUE)]
    add_or_update_task(renewals, "R-1", items, actor=SETUP)  # the history shows the change
    create_user_template(tenant, "Agent", actor=SETUP)
    for number in range(2):
        login = f"agent.number{number}.with.a.long.login@acme-corporation.example"
        add_user(
            tenant,
            NewUser(login, "Alexandra", "Montgomery-Smithson", "Agent", None, None, True),
            actor=SETUP,
        )
    dnc.add_numbers(
        tenant, ["+14155550123", "+442071234567"], "asked not to be called", actor=SETUP
    )
    db.session.commit()
    found = Paths(
        f"/tenants/{tenant.id}/campaigns/{renewals.id}",
        f"/tenants/{tenant.id}/tasks/{task.record_id}",
        f"/tenants/{tenant.id}/users",
        f"/tenants/{tenant.id}/dnc",
    )
    db.session.rollback()  # hold no transaction: the server's writes would wait on it
    return found


def signed_in(tab: Tab, path: str, size: dict) -> Page:
    """Open `path` at `size`, signing in on the way, once the page and its stylesheet are in."""
    page = tab.page
    page.set_viewport_size(size)
    tab.goto(path)
    page.locator("#email").fill(EMAIL)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("main h1")).to_be_visible()
    page.wait_for_load_state("load")
    return page


def test_the_main_menu_is_one_line_at_1280(tab: Tab, paths: Paths):
    page = signed_in(tab, paths.campaign, DESKTOP)
    # The items shown (the phone's menu button is hidden at this width).
    spans = page.locator("nav[aria-label=Main] > ul > li").evaluate_all(
        "items => items.filter(item => item.getClientRects().length)"
        ".map(item => [item.getBoundingClientRect().top, item.getBoundingClientRect().bottom])"
    )
    # One line: every item overlaps every other vertically (a second line starts below).
    assert len(spans) > 5 and max(top for top, _ in spans) < min(b for _, b in spans), spans
    assert tab.page_width() == [DESKTOP["width"], DESKTOP["width"]]
    # Signing out and changing the password are one click away, and work without script.
    page.locator("nav[aria-label=Main] summary", has_text="Account").click()
    expect(page.get_by_text(EMAIL)).to_be_visible()
    expect(page.get_by_role("link", name="Change password")).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    tab.shot("menu-1280px")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280", "390"])
def test_a_long_value_wraps_in_the_task_history(tab: Tab, paths: Paths, size):
    """The history table grew to 3,243 px at 1280 with a 255-character value."""
    page = signed_in(tab, paths.task, size)
    history = page.locator("table.history")
    expect(history).to_contain_text(LONG_VALUE)
    box = history.locator("xpath=..")
    scroll_width, client_width = box.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert scroll_width <= client_width <= size["width"], (scroll_width, client_width)
    assert tab.page_width() == [size["width"], size["width"]]
    # Wrapped, not cut: the changed field's line is as tall as its text needs.
    assert history.locator("ul.changes li").first.bounding_box()["height"] > 30
    tab.shot(f"task-history-{size['width']}px")


@pytest.mark.parametrize(
    ("page_of", "button"),
    [("users", "Delete user agent.number0"), ("dnc", "Remove +14155550123 from the list")],
)
def test_each_rows_action_is_on_screen_at_390(tab: Tab, paths: Paths, page_of, button):
    page = signed_in(tab, getattr(paths, page_of), PHONE)
    action = page.get_by_role("button", name=button, exact=False)
    action.scroll_into_view_if_needed()
    box = action.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]
    # Nothing of the table is hidden sideways either: its box does not scroll.
    table = page.locator(f"table.{page_of}").locator("xpath=..")
    scroll_width, client_width = table.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert scroll_width <= client_width, (scroll_width, client_width)
    tab.shot(f"{page_of}-390px")


def test_the_do_not_call_search_box_keeps_the_pages_width_at_390(tab: Tab, paths: Paths):
    page = signed_in(tab, paths.dnc, PHONE)
    box = page.locator("#dnc-q").bounding_box()
    assert box is not None and box["width"] >= 200, box
    page.locator("#dnc-q").fill("+1415")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator("table.dnc caption")).to_contain_text("matching +1415")
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]


def test_a_refused_search_says_why_at_its_row_at_1280(tab: Tab, paths: Paths):
    page = signed_in(tab, paths.campaign, DESKTOP)
    page.get_by_label("Key 1").fill("Plan")
    page.get_by_label("Condition 1").select_option("EQUALS")
    page.get_by_label("Key 2").fill("sys_worked_attempts")
    page.get_by_label("Value 2").fill("many")
    page.get_by_role("button", name="Search", exact=True).click()
    reason = page.locator("form.search .criterion .field-error")
    expect(reason).to_have_text(
        "Row 2: sys_worked_attempts compares with a whole number, not 'many'."
    )
    row = page.get_by_label("Value 2").bounding_box()
    said = reason.bounding_box()
    assert 0 <= said["y"] - (row["y"] + row["height"]) < 60, (row, said)
    expect(page.locator("p.count")).to_have_count(0)
    # The refusal answers 422, which Chromium logs as a failed load: that one is expected.
    refused = [p for p in tab.problems if "status of 422" in p]
    assert len(refused) == 1, tab.problems
    tab.problems.remove(refused[0])
    tab.shot("search-refused-1280px")
