"""A bulk status change walked in a browser at a phone's width (390 px) with JavaScript off:
search, choose the action, review, confirm, watch the job's page reach its report."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.extensions import db
from app.models import BulkJob, Task
from app.services.bulk.runs import run_bulk
from app.services.campaigns.setup import find_campaign
from app.services.people import supervisors
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.browser.conftest import REPORT_CSP_VIOLATIONS, Tab
from tests.conftest import SETUP, make_tenant

pytestmark = pytest.mark.server

EMAIL = "bulk@acme.example"
PASSWORD = "pocket-screen-390-wide"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def no_script_tab(browser, live_server) -> Iterator[Tab]:
    context = browser.new_context(
        viewport=PHONE, java_script_enabled=False, locale="en-GB", timezone_id="UTC"
    )
    context.set_default_timeout(60_000)  # a loaded machine's sign-in hashes with scrypt
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    try:
        yield Tab(context.new_page(), live_server.url)
    finally:
        context.close()


@pytest.fixture
def campaign_path(app) -> str:
    supervisors.create_supervisor(EMAIL, PASSWORD, actor=SETUP)
    tenant, _key = make_tenant()
    campaign = tenant.campaigns[0] if hasattr(tenant, "campaigns") else None
    db.session.flush()

    campaign = find_campaign(tenant, "Renewals")
    for n in range(12):
        items = [
            ItemInput("Name", f"Customer {n}"),
            ItemInput("Plan", "Gold" if n % 3 else "Basic"),
        ]
        add_or_update_task(campaign, f"C{n:03d}", items, actor=SETUP)
    path = f"/tenants/{tenant.id}/campaigns/{campaign.id}"
    db.session.commit()  # hold no transaction: the server's writes would wait on it
    return path


def test_a_bulk_status_change_at_phone_width_without_javascript(no_script_tab: Tab, campaign_path):
    tab, page = no_script_tab, no_script_tab.page
    tab.goto(campaign_path + "?k=Plan&c=EQUALS&v=Gold")
    page.locator("#email").fill(EMAIL)
    page.locator("#password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Change status…").click()
    expect(page.get_by_text("8 tasks match now.")).to_be_visible()
    page.get_by_label("New worked state").select_option("COMPLETED")
    page.get_by_role("button", name="Review…").click()
    expect(page.get_by_role("heading", name="Set 8 tasks to COMPLETED?")).to_be_visible()
    assert tab.page_width() == [PHONE["width"], PHONE["width"]]
    tab.shot("bulk-confirm-390px")
    page.get_by_role("button", name="Set 8 tasks to COMPLETED").click()
    expect(page.get_by_role("heading", name="Bulk job", exact=False)).to_be_visible()
    assert tab.page_width()[0] == PHONE["width"]
    db.session.rollback()
    [job] = db.session.scalars(select(BulkJob))
    run_bulk(job.id)  # the worker's part (no worker runs beside the test server)
    db.session.rollback()
    page.reload()
    expect(page.locator(".bulk-state")).to_have_text("Done")
    tab.shot("bulk-job-390px")
    db.session.rollback()
    states = db.session.scalars(select(Task.worked_state).order_by(Task.id)).all()
    assert states.count("COMPLETED") == 8
