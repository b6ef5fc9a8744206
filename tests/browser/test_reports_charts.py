"""The Reports page in a browser: Chart.js draws each chart from its table at 1280 and 390 px,
and at a phone's width nothing scrolls sideways (the tables scroll within their box); the
campaign page fetches its dry run once shown and draws it likewise.

Screenshots for the README: UPDATE_README_SCREENSHOTS=1 with this file
(`.venv/bin/python -m pytest tests/browser/test_reports_charts.py`).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.services.campaigns.catalogue import find_campaign
from app.services.people import supervisors
from tests.browser.conftest import Tab, copy_to_readme
from tests.calls.calls_support import add_phones
from tests.conftest import SETUP, make_tenant
from tests.delivery.delivery_support import make_agent
from tests.reports.generated import DAYS, START, generate

pytestmark = pytest.mark.server

EMAIL = "reports@acme.example"
PASSWORD = "charts-at-every-width"
SIZES = [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]


@pytest.fixture
def report_path(app) -> str:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    for login in ("ann", "bob", "cy"):
        make_agent(tenant, login)
    generate(tenant)
    last = (START + timedelta(days=DAYS - 1)).date()
    path = f"/tenants/{tenant.id}/reports?from={START.date()}&to={last}&zone=UTC"
    db.session.commit()  # hold no transaction: the server's writes would wait on it
    return path


def _signed_in_at(tab: Tab, path: str, size: dict):
    """The page at `path`, at this window size, after the sign-in it asks for."""
    page = tab.page
    page.set_viewport_size(size)
    tab.goto(path)
    page.locator("#email").fill(EMAIL)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    return page


@pytest.mark.parametrize("size", SIZES, ids=["1280", "390"])
def test_the_charts_draw_at_each_width_without_sideways_scroll(tab: Tab, report_path, size):
    page = _signed_in_at(tab, report_path, size)
    expect(page.get_by_role("heading", name="Reports", exact=True)).to_be_visible()
    charts = page.locator("[data-chart]")
    expect(charts).to_have_count(3)
    for index in range(3):
        box = charts.nth(index)
        expect(box).to_have_attribute("data-drawn", "true")
        width, height = box.locator("canvas").evaluate("c => [c.width, c.height]")
        assert width > 0 and height > 0
    assert tab.page_width()[0] <= size["width"]
    for table in page.locator("table.report").all():
        box_width = table.locator("xpath=..").evaluate("box => box.clientWidth")
        assert box_width <= size["width"]
    copy_to_readme(tab.shot(f"report-{size['width']}"), f"report-{size['width']}.png")
    tab.assert_no_problems()


@pytest.fixture
def campaign_path(app) -> str:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    renewals = find_campaign(tenant, "Renewals")
    add_phones(renewals, "c1", Phone="+13055550100")
    path = f"/tenants/{tenant.id}/campaigns/{renewals.id}"
    db.session.commit()  # hold no transaction: the server's writes would wait on it
    return path


@pytest.mark.parametrize("size", SIZES, ids=["1280", "390"])
def test_the_campaign_page_fetches_and_draws_its_dry_run(tab: Tab, campaign_path, size):
    page = _signed_in_at(tab, campaign_path, size)
    section = page.locator("section.forecast")
    expect(section).to_have_attribute("data-loaded", "true")
    box = section.locator("[data-chart=forecast]")
    expect(box).to_have_attribute("data-drawn", "true")
    assert box.locator("canvas").evaluate("c => c.width") > 0
    expect(section.locator("#forecast-table tbody tr")).to_have_count(7 * 24)
    assert tab.page_width()[0] <= size["width"]
    tab.assert_no_problems()
