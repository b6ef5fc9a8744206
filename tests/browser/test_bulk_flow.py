"""A bulk status change walked in a browser at a phone's width (390 px) with JavaScript off:
search, choose the action, review, confirm, watch the job's page reach its report."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.extensions import db
from app.models import BulkJob, Task
from app.services.bulk.jobs import run_bulk
from app.services.campaigns.catalogue import find_campaign
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


def _sign_in_and_review(tab: Tab, campaign_path: str) -> None:
    """From the search, the preferred-agent action reviewed for the 8 Gold tasks."""
    page = tab.page
    tab.goto(campaign_path + "/bulk/preferred_agent?k=Plan&c=EQUALS&v=Gold")
    if page.locator("#password").count():
        page.locator("#email").fill(EMAIL)
        page.locator("#password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
    page.get_by_label("Preferred agent").fill("ann.lee")
    page.get_by_role("button", name="Review…").click()
    expect(
        page.get_by_role("heading", name="Give 8 tasks the preferred agent ann.lee?")
    ).to_be_visible()


def test_back_after_a_confirmed_job_shows_its_review_again_without_a_resubmission(
    no_script_tab: Tab, campaign_path
):
    tab, page = no_script_tab, no_script_tab.page
    _sign_in_and_review(tab, campaign_path)
    review_url = page.url
    assert "/review?" in review_url  # the review is a page of its own, reached by a GET
    page.get_by_role("button", name="Give 8 tasks the preferred agent ann.lee").click()
    expect(page.get_by_role("heading", name="Bulk job", exact=False)).to_be_visible()
    db.session.rollback()
    [job] = db.session.scalars(select(BulkJob))
    run_bulk(job.id)
    db.session.rollback()
    page.reload()
    expect(page.locator(".bulk-state")).to_have_text("Done")
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.method))
    back = page.go_back()
    assert page.url == review_url
    assert back is None or back.request.method == "GET"
    assert "POST" not in sent  # nothing sent again: no "Confirm Form Resubmission"
    refused = page.locator(".refused")
    expect(refused).to_contain_text(f"confirmed already: bulk job {job.id} was started from it")
    expect(
        page.get_by_role("button", name="Give 8 tasks the preferred agent ann.lee")
    ).to_have_count(0)
    refused.get_by_role("link", name=f"See bulk job #{job.id}").click()
    expect(page.locator(".bulk-state")).to_have_text("Done")
    db.session.rollback()
    assert len(db.session.scalars(select(BulkJob)).all()) == 1


def test_two_tabs_confirming_the_same_action_start_one_job(
    browser, no_script_tab: Tab, campaign_path
):
    first = no_script_tab
    _sign_in_and_review(first, campaign_path)
    second = Tab(first.page.context.new_page(), first.base_url)  # the same session
    _sign_in_and_review(second, campaign_path)
    first.page.get_by_role("button", name="Give 8 tasks the preferred agent ann.lee").click()
    expect(first.page.get_by_role("heading", name="Bulk job", exact=False)).to_be_visible()
    job_url = first.page.url
    second.page.get_by_role("button", name="Give 8 tasks the preferred agent ann.lee").click()
    refused = second.page.locator(".refused")
    db.session.rollback()
    [job] = db.session.scalars(select(BulkJob))
    expect(refused).to_contain_text(
        f"bulk job {job.id} is changing tasks of this campaign since this review"
    )
    expect(second.page.get_by_text("Not started:", exact=False)).to_be_visible()
    refused.get_by_role("link", name=f"See bulk job #{job.id}").click()
    assert second.page.url == job_url
    second.shot("bulk-second-tab-refused")
    db.session.rollback()
    assert len(db.session.scalars(select(BulkJob)).all()) == 1
