"""A campaign's life in a browser at a phone's width (390 px): pause, resume, archive after
its confirmation page, restore; the page never scrolls sideways and logs no error."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.services.people import supervisors
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.browser.conftest import Tab
from tests.conftest import SETUP, make_tenant

pytestmark = pytest.mark.server

EMAIL = "life@acme.example"
PASSWORD = "pause-resume-archive-390"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def campaign_path(app) -> str:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    campaign = next(c for c in tenant_campaigns(tenant) if c.name == "Renewals")
    add_or_update_task(campaign, "C1", [ItemInput("Name", "Ann")], actor=SETUP)
    path = f"/tenants/{tenant.id}/campaigns/{campaign.id}"
    db.session.commit()  # hold no transaction: the server's writes would wait on it
    return path


def tenant_campaigns(tenant):
    from app.services.campaigns.catalogue import list_campaigns

    return list_campaigns(tenant)


def test_a_campaigns_life_at_a_phones_width(tab: Tab, campaign_path):
    page = tab.page
    page.set_viewport_size(PHONE)
    tab.goto(campaign_path)
    page.locator("#email").fill(EMAIL)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Renewals", level=1)).to_be_visible()

    page.get_by_role("button", name="Pause", exact=True).click()
    expect(page.locator(".campaign-status")).to_contain_text("Nothing new is delivered")
    expect(page.locator(".progress-why")).to_contain_text("the Renewals campaign is paused")
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]
    tab.shot("campaign-paused-390px")

    page.get_by_role("button", name="Archive…").click()
    expect(page.get_by_role("heading", name="Archive campaign Renewals?")).to_be_visible()
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]
    tab.shot("campaign-archive-390px")
    page.get_by_role("button", name="Archive campaign").click()
    expect(page.locator(".campaign-status")).to_contain_text("no new task is taken")
    expect(page.get_by_role("button", name="Add a task")).to_have_count(0)

    page.get_by_role("button", name="Restore").click()
    expect(page.get_by_role("button", name="Resume")).to_be_visible()
    page.get_by_role("button", name="Resume").click()
    expect(page.get_by_role("button", name="Pause", exact=True)).to_be_visible()
    expect(page.locator(".campaign-status")).to_have_count(0)
    tab.assert_no_problems()
