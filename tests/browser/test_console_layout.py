"""The supervisors' console at the widths people use it: a campaign's task table fits
1280 px without scrolling sideways, a long clientId wrapping; every placeholder is wide
enough to be read whole at 1280 and 390 px; at 390 px the main menu is one row or a menu
button whose links show when it is opened (no script needed)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.services.campaigns import catalogue as campaigns
from app.services.people import supervisors
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.browser.conftest import Tab
from tests.browser.test_admin_layout import DESKTOP, EMAIL, PASSWORD, PHONE, signed_in
from tests.conftest import SETUP, make_tenant

pytestmark = pytest.mark.server

LONG_ID = "CUSTOMER-" + "7" * 120  # a clientId without a space to break at
LONG_NAME = "Alexandra-Montgomery-Smithson-" * 4
SIZES = pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280", "390"])

# Every input showing a placeholder whose text needs more room than the box gives it.
CUT_PLACEHOLDERS = """() => {
  const canvas = document.createElement("canvas").getContext("2d");
  return [...document.querySelectorAll("input[placeholder]")]
    .filter(input => input.offsetParent !== null && input.placeholder)
    .map(input => {
      const style = getComputedStyle(input);
      canvas.font = style.font;
      const needs = canvas.measureText(input.placeholder).width
        + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
      return [input.getAttribute("aria-label") || input.name, input.placeholder,
              Math.ceil(needs), input.clientWidth];
    })
    .filter(([, , needs, has]) => needs > has);
}"""


@pytest.fixture
def paths(app) -> dict[str, str]:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    renewals = campaigns.get_campaign(tenant, "Renewals")
    task, _ = add_or_update_task(
        renewals, LONG_ID, [ItemInput("Name", LONG_NAME), ItemInput("Plan", "Gold")], actor=SETUP
    )
    add_or_update_task(renewals, "R-2", [ItemInput("Name", "Ada Lovelace")], actor=SETUP)
    db.session.commit()
    campaign = f"/tenants/{tenant.id}/campaigns/{renewals.id}"
    found = {
        "tenant": f"/tenants/{tenant.id}/campaigns",
        "campaign": campaign,
        "task": f"/tenants/{tenant.id}/tasks/{task.record_id}",
        "search": f"{campaign}?k=Plan&c=EQUALS&v=Gold&add=1",
    }
    db.session.rollback()  # hold no transaction: the server's writes would wait on it
    return found


@pytest.mark.parametrize("which", ["campaign", "search"])
def test_the_task_table_fits_1280_and_a_long_id_wraps(tab: Tab, paths, which):
    page = signed_in(tab, paths[which], DESKTOP)
    table = page.locator("table.tasks")
    expect(table).to_contain_text(LONG_ID)
    box = table.locator("xpath=..")
    scroll_width, client_width = box.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert scroll_width <= client_width <= DESKTOP["width"], (scroll_width, client_width)
    assert tab.page_width() == [DESKTOP["width"], DESKTOP["width"]]
    # Wrapped, not cut: the long id's cell is several lines tall.
    cell = table.get_by_role("link", name=LONG_ID)
    assert cell.bounding_box()["height"] > 40, cell.bounding_box()
    tab.shot(f"console-tasks-{which}-1280px")


@SIZES
@pytest.mark.parametrize("which", ["tenant", "campaign", "task", "search"])
def test_no_placeholder_is_cut(tab: Tab, paths, which, size):
    page = signed_in(tab, paths[which], size)
    shown = page.locator("input[placeholder]:visible").count()
    assert which == "tenant" or shown > 0  # the check below looks at something
    assert page.evaluate(CUT_PLACEHOLDERS) == []


@pytest.mark.parametrize("which", ["tenant", "campaign", "task", "search"])
def test_the_menu_at_390_is_one_row_or_a_menu_button(tab: Tab, paths, which):
    page = signed_in(tab, paths[which], PHONE)
    nav = page.locator("nav[aria-label=Main]")
    line = nav.evaluate("nav => parseFloat(getComputedStyle(nav).lineHeight) || 24")
    padding = nav.evaluate(
        "nav => [...nav.querySelectorAll(':scope > ul > li')].reduce((most, li) => Math.max("
        "most, parseFloat(getComputedStyle(li).paddingTop)"
        " + parseFloat(getComputedStyle(li).paddingBottom)), 0)"
    )
    height = nav.bounding_box()["height"]
    assert height <= 2 * line + padding, (height, line, padding)  # one row, not five
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]
    menu = nav.locator("details.menu > summary")
    campaigns_link = nav.get_by_role("link", name="Campaigns", exact=True)
    expect(menu).to_be_visible()
    expect(campaigns_link).to_be_hidden()
    menu.click()
    for name in ("Campaigns", "Users", "Reports", "Do-not-call"):
        link = nav.get_by_role("link", name=name, exact=True)
        expect(link).to_be_visible()
        box = link.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (name, box)
    tab.shot(f"console-menu-{which}-390px")


def test_the_menu_at_1280_keeps_its_links_in_view(tab: Tab, paths):
    page = signed_in(tab, paths["campaign"], DESKTOP)
    nav = page.locator("nav[aria-label=Main]")
    expect(nav.get_by_role("link", name="Campaigns", exact=True)).to_be_visible()
    expect(nav.locator("details.menu > summary")).to_be_hidden()
