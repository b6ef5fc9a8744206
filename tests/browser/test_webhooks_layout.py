"""The webhook pages at a phone's width (390 px): an endpoint's long URL wraps in the
headings and sentences that name it, so no page scrolls sideways; the endpoints table
scrolls inside its own box."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from app.extensions import db
from app.services.people import supervisors
from app.services.webhooks import endpoints
from tests.browser.conftest import Tab
from tests.conftest import SETUP, make_tenant

pytestmark = pytest.mark.server

EMAIL = "hooks@acme.example"
PASSWORD = "narrow-screen-long-hook-url"
PHONE = {"width": 390, "height": 844}
LONG_URL = "https://hooks.acme-corporation.example/" + "receiver/" * 12


@dataclass(frozen=True)
class Paths:
    webhooks: str
    endpoint: str


@pytest.fixture
def paths(app) -> Paths:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    endpoint = endpoints.create_endpoint(tenant, LONG_URL, [], "Order system", actor=SETUP)
    db.session.commit()
    base = f"/tenants/{tenant.id}/webhooks"
    found = Paths(base, f"{base}/{endpoint.id}")
    db.session.rollback()  # hold no transaction: the server's writes would wait on it
    return found


def _page_width(tab: Tab) -> int:
    return tab.page_width()[0]


def test_no_webhook_page_scrolls_sideways_at_a_phones_width(tab: Tab, paths: Paths):
    page = tab.page
    page.set_viewport_size(PHONE)
    tab.goto(paths.webhooks)
    page.locator("#email").fill(EMAIL)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Webhooks", exact=True)).to_be_visible()
    assert _page_width(tab) == PHONE["width"]

    for path, heading in [
        (paths.endpoint, "Deliveries to"),
        (paths.endpoint + "/delete", "Delete the endpoint"),
        (paths.endpoint + "/rotate", "Rotate the secret of"),
    ]:
        tab.goto(path)
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        assert _page_width(tab) == PHONE["width"], path

    page.get_by_role("button", name="Rotate the secret").click()
    expect(page.get_by_role("heading", name="Secret rotated")).to_be_visible()
    assert _page_width(tab) == PHONE["width"]
    tab.shot("webhook-secret-390px")
