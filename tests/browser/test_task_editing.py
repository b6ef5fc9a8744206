"""The task page never loses or silently overwrites data, walked in Chromium against a real
gunicorn: a refused status change, then saving the items; a refused transfer, then
changing the status; two tabs saving one task; and the item editor at 390 px."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect

from app.extensions import db
from app.services.campaigns import catalogue as campaigns
from app.services.people import supervisors
from app.services.tasks.changes import Locator, TaskChanges, add_or_update_task, change_status
from app.services.tasks.validation import ItemInput
from app.wire.times import sent_time, to_epoch_ms
from tests.browser.conftest import SCREENSHOTS, Tab
from tests.conftest import SETUP, make_tenant

pytestmark = pytest.mark.server

EMAIL = "editor@acme.example"
PASSWORD = "quiet-harbour-lantern-1897"
ITEMS = [("Name", "Ada Lovelace"), ("Plan", "Gold"), ("Mobile Phone", "+14155551001")]
# The task's system fields, as the Fields table shows them; none is a Status form default.
STORED = {
    "Worked state": "WORKED",
    "Skill queue": "Support",
    "Time zone": "Asia/Tokyo",
    "Preferred agent": "agent.smith",
}


@dataclass(frozen=True)
class Seed:
    url: str


@pytest.fixture
def seed(app) -> Seed:
    """A supervisor and one WORKED task of Renewals; Winback already holds its clientId."""
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    renewals = campaigns.get_campaign(tenant, "Renewals")
    items = [ItemInput(key, value) for key, value in ITEMS]
    task, _ = add_or_update_task(renewals, "R-1", items, preferred_agent="agent.smith", actor=SETUP)
    add_or_update_task(campaigns.get_campaign(tenant, "Winback"), "R-1", items, actor=SETUP)
    next_time = to_epoch_ms(datetime(2030, 3, 4, 14, 30, tzinfo=UTC))
    changes = TaskChanges(
        skill_queue="Support",
        next_earliest=sent_time(next_time, "nextEarliestWorkTimeUTC"),
        time_zone="Asia/Tokyo",
    )
    change_status(renewals, Locator(record_id=task.record_id), "WORKED", changes, actor=SETUP)
    db.session.commit()
    seeded = Seed(f"/tenants/{tenant.id}/tasks/{task.record_id}")
    # Reading the ids began a transaction; on SQLite it holds the write lock the server needs.
    db.session.rollback()
    return seeded


def _open(tab: Tab, url: str) -> Page:
    """Sign in on the way to the task page."""
    tab.goto(url)
    tab.page.locator("#email").fill(EMAIL)
    tab.page.locator("#password").fill(PASSWORD)
    tab.page.get_by_role("button", name="Sign in").click()
    expect(tab.page.get_by_role("heading", name="Task R-1")).to_be_visible()
    return tab.page


def _refused(tab: Tab) -> None:
    """A refused form answers 422, which Chromium logs as a failed load of the page: that
    one entry is the refusal the test expects, not a problem."""
    expected = [p for p in tab.problems if "status of 422" in p]
    assert len(expected) == 1, tab.problems
    tab.problems.remove(expected[0])


def _item_values(page: Page) -> list[tuple[str, str]]:
    rows = page.locator("#items table.item-rows tbody tr:not(.row-error)")
    pairs = [
        (row.locator("input[name$='-key']").input_value(),
         row.locator("input[name$='-value']").input_value())
        for row in rows.all()
    ]  # fmt: skip
    return [pair for pair in pairs if pair != ("", "")]


def _fields(page: Page) -> dict[str, str]:
    table = page.locator("table.fields")
    return {name: table.locator("tr", has=page.locator(f"th:text-is('{name}')")).locator(
        "td").inner_text().strip() for name in STORED}  # fmt: skip


def test_a_refused_status_change_then_saving_the_items_keeps_them(tab: Tab, seed: Seed):
    page = _open(tab, seed.url)
    status = page.locator("#status")
    status.get_by_label("Next earliest time").fill("")  # WORKED needs one: refused
    status.get_by_role("button", name="Change status").click()
    expect(page.get_by_role("alert")).to_contain_text("Next earliest time")  # the summary
    expect(status.locator("#status-next_time-error")).to_contain_text(
        "Next earliest time is required"
    )
    _refused(tab)
    expect(status.get_by_label("Next earliest time")).to_have_attribute("aria-invalid", "true")
    assert _item_values(page) == ITEMS

    page.locator("#items").get_by_role("button", name="Add a row").click()  # no script error
    page.locator("#items").get_by_role("button", name="Save data items").click()
    expect(page.get_by_role("status").filter(has_text="Data items saved.")).to_be_visible()
    assert _item_values(page) == ITEMS
    assert _fields(page) == STORED

    # At 390 px each row's key and value take the whole width, not 2-3 characters.
    page.set_viewport_size({"width": 390, "height": 844})
    key = page.locator("#items input[name='data-items-0-key']")
    expect(key).to_have_value("Name")
    assert key.bounding_box()["width"] > 250
    assert page.locator("#items").evaluate("e => e.scrollWidth <= e.clientWidth")
    tab.shot("task-items-390px")
    page.locator("#items").screenshot(path=SCREENSHOTS / "task-items-390px-editor.png")


def test_a_refused_transfer_then_changing_the_status_keeps_the_stored_fields(tab: Tab, seed: Seed):
    page = _open(tab, seed.url)
    transfer = page.locator("#transfer")
    transfer.get_by_label("Destination campaign").select_option("Winback")
    transfer.get_by_role("button", name="Transfer").click()
    expect(page.get_by_role("alert")).to_contain_text("already exists in campaign 'Winback'")
    _refused(tab)

    status = page.locator("#status")
    expect(status.get_by_label("Worked state")).to_have_value("WORKED")
    expect(status.get_by_label("Skill queue")).to_have_value("Support")
    expect(status.get_by_label("Time zone", exact=True)).to_have_value("Asia/Tokyo")
    status.get_by_role("button", name="Change status").click()
    expect(page.get_by_role("status").filter(has_text="Status changed.")).to_be_visible()
    assert _fields(page) == STORED
    tab.assert_no_problems()


def test_two_tabs_the_later_save_of_an_older_copy_is_refused(tab: Tab, seed: Seed):
    first = _open(tab, seed.url)
    second = first.context.new_page()  # the same signed-in browser, another tab
    second.on("pageerror", lambda error: tab.problems.append(f"second tab: {error}"))
    second.goto(tab.base_url + seed.url)

    def plan(page: Page):
        return page.locator("#items tr", has=page.locator("input[value='Plan']")).locator(
            "input[name$='-value']"
        )

    plan(first).fill("Silver")
    first.locator("#items").get_by_role("button", name="Save data items").click()
    expect(first.get_by_role("status").filter(has_text="Data items saved.")).to_be_visible()

    plan(second).fill("Bronze")
    second.locator("#items").get_by_role("button", name="Save data items").click()
    expect(second.get_by_role("alert")).to_contain_text("Someone else changed this task")
    expect(plan(second)).to_have_value("Silver")  # the newer, stored data
    unsaved = second.locator("details.unsaved")
    expect(unsaved).to_contain_text("Bronze")  # what this tab tried to save, kept to copy
    expect(second.locator(".agent-view")).to_contain_text("Silver")
    second.screenshot(path=SCREENSHOTS / "task-stale-save.png", animations="disabled")

    first.reload()
    expect(plan(first)).to_have_value("Silver")  # nothing was overwritten
    tab.assert_no_problems()
