"""The supervisors' side of the desk in Chromium against a real gunicorn: at a phone's width
(390 px) the Agents page shows each agent as a card, never scrolls sideways, and releases a
task; the campaign's Progress panel refreshes itself every second once something changed
(the page's clock run forward, no waiting)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.models import Campaign
from app.models.types import utcnow
from app.services.campaigns import catalogue as campaigns
from app.services.people import supervisors
from tests.browser.conftest import Tab
from tests.conftest import SETUP, make_tenant
from tests.delivery.delivery_support import add, available, make_agent, offer

pytestmark = pytest.mark.server

EMAIL = "watch@acme.example"
PASSWORD = "many-counts-on-one-panel"
PHONE = {"width": 390, "height": 844}
LONG_LOGIN = "agent.with.a.rather.long.login@acme-corporation.example"


@dataclass(frozen=True)
class Seed:
    tenant_id: int
    campaign_id: int


@pytest.fixture
def seed(app) -> Seed:
    """A supervisor; Acme with two agents, one of them holding a task of Renewals."""
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    renewals = campaigns.get_campaign(tenant, "Renewals")
    add(renewals, "R-1001")
    add(renewals, "R-1002")
    agent = make_agent(tenant, LONG_LOGIN, queues=("Sales", "Support"))
    available(agent, utcnow())
    offer(agent, utcnow())
    make_agent(tenant, "bob")
    seeded = Seed(tenant.id, renewals.id)
    db.session.rollback()  # hold no transaction: the server's writes would wait on it
    return seeded


def sign_in(tab: Tab, path: str) -> None:
    tab.goto(path)
    tab.page.locator("#email").fill(EMAIL)
    tab.page.locator("#password").fill(PASSWORD)
    tab.page.get_by_role("button", name="Sign in").click()


def test_the_agents_page_fits_a_phone_and_releases_a_task(tab: Tab, seed: Seed):
    page = tab.page
    sign_in(tab, f"/tenants/{seed.tenant_id}/agents")
    expect(page.get_by_role("heading", name="Agents", exact=True)).to_be_visible()
    tab.shot("agents")
    page.set_viewport_size(PHONE)
    tab.shot("agents-390px")
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]
    box = page.locator("table.agents").locator("xpath=..")
    scroll_width, client_width = box.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert scroll_width == client_width  # each agent a card: nothing to scroll to

    page.get_by_role("link", name="R-1001").click()  # the task page says who holds it
    expect(page.locator(".held-by")).to_contain_text(f"Held by {LONG_LOGIN} since")
    tab.shot("task-held-by-390px")
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]
    page.go_back()

    release = page.get_by_role("button", name=f"Release task R-1001 from {LONG_LOGIN}")
    release.scroll_into_view_if_needed()
    release.click()
    expect(page.get_by_role("status")).to_have_text(
        f"Task 'R-1001' released from {LONG_LOGIN}: it goes to the next agent of its queue."
    )
    expect(page.get_by_role("button", name="Release", exact=False)).to_have_count(0)
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]


def test_the_progress_panel_refreshes_itself_and_fits_a_phone(tab: Tab, seed: Seed):
    page = tab.page
    page.set_viewport_size(PHONE)
    page.clock.install()
    sign_in(tab, f"/tenants/{seed.tenant_id}/campaigns/{seed.campaign_id}")
    panel = page.locator("section.progress")
    expect(panel.locator("dd[data-count='deliverable']")).to_have_text("1")
    expect(panel.locator("dd[data-count='in_work']")).to_have_text("1")
    tab.shot("campaign-progress-390px")
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]

    add(db.session.get(Campaign, seed.campaign_id), "R-1003")
    db.session.rollback()
    page.clock.run_for(1_500)
    expect(panel.locator("dd[data-count='deliverable']")).to_have_text("2")
    expect(panel.locator("dd[data-count='NOTWORKED']")).to_have_text("3")
    tab.assert_no_problems()
