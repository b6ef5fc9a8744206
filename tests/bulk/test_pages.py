"""The bulk pages: from the search result to a form, a confirmation that says how many
tasks and what will happen, then the job's page with its progress and report; plain
forms, no JavaScript needed."""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import BulkJob, BulkState
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.admin.conftest import (
    RequestClient,
    csrf_token,
    form_values,
    page,
    soup,
)
from tests.bulk.conftest import add_tasks, states
from tests.conftest import SETUP, make_tenant


@pytest.fixture
def client(app):
    app.test_client_class = RequestClient
    return app.test_client()


def bulk_url(campaign, action: str, **search) -> str:
    query = urlencode(search, doseq=True)
    return f"/tenants/{campaign.tenant_id}/campaigns/{campaign.id}/bulk/{action}?{query}"


GOLD = {"k": ["Plan"], "c": ["EQUALS"], "v": ["Gold"]}


def gold_tasks(campaign, count=12):
    return add_tasks(campaign, count, plan=lambda n: "Gold" if n % 2 == 0 else "Basic")


def review(client, url: str, changes: dict):
    """Fill the action's form and send it; a form that passes redirects to its review, a
    page of its own, which is fetched (a refused form answers with the form again)."""
    form = page(client, url).select_one("form.bulk")
    values = form_values(form)
    for name, value in changes.items():
        values[name] = value
    values["go"] = "review"
    sent = client.post(form["action"], data=values)
    if sent.status_code != 303:
        return sent
    assert "/review?" in sent.location
    return client.get(sent.location)


def confirm(client, shown):
    form = shown.select_one("form.bulk")
    return client.post(form["action"], data=form_values(form))


def test_the_search_result_offers_the_bulk_actions_for_its_tasks(signed_in, renewals):
    gold_tasks(renewals)
    url = f"/tenants/{renewals.tenant_id}/campaigns/{renewals.id}?{urlencode(GOLD, doseq=True)}"
    links = page(signed_in, url).select("nav.bulk-actions a")
    assert [a.get_text(strip=True) for a in links] == [
        "Change status…", "Move…", "Preferred agent…", "Delete…",
    ]  # fmt: skip
    assert all("k=Plan" in a["href"] and "v=Gold" in a["href"] for a in links)


def test_a_status_change_is_reviewed_confirmed_and_run_with_its_report(signed_in, renewals):
    gold_tasks(renewals)
    url = bulk_url(renewals, "status", **GOLD)
    assert "6 tasks match now" in page(signed_in, url).get_text(" ", strip=True)
    reviewed = review(signed_in, url, {"state": "COMPLETED"})
    assert reviewed.status_code == 200
    shown = soup(reviewed)
    assert shown.h1.get_text(strip=True) == "Set 6 tasks to COMPLETED?"
    assert states(renewals)["C0000"] == "NOTWORKED"  # a review changes nothing
    done = confirm(signed_in, shown)
    assert done.status_code == 303
    [job] = db.session.scalars(select(BulkJob))
    assert done.location.endswith(f"/tenants/{renewals.tenant_id}/bulk/{job.id}")
    assert job.state == BulkState.DONE and job.acted == 6
    report = page(signed_in, done.location)
    assert report.find("progress")["value"] == "100"
    counts = {
        row.th.get_text(strip=True): row.td.get_text(strip=True)
        for row in report.select("table.counts tr")
    }
    assert counts["Acted on"] == "6" and counts["Failed"] == "0"
    assert not report.find("meta", attrs={"http-equiv": "refresh"})
    shown_states = states(renewals)
    assert [shown_states[f"C{n:04d}"] for n in (0, 1, 2)] == ["COMPLETED", "NOTWORKED", "COMPLETED"]


def test_a_refused_form_comes_back_as_typed_and_changes_nothing(signed_in, renewals):
    gold_tasks(renewals)
    url = bulk_url(renewals, "status", **GOLD)
    refused = review(signed_in, url, {"state": "WORKED", "preferred_agent": "ann.lee"})
    assert refused.status_code == 422
    shown = soup(refused)
    assert "required when the new state is WORKED" in shown.get_text(" ", strip=True)
    state = shown.find("select", attrs={"name": "state"})
    assert state.find("option", selected=True)["value"] == "WORKED"
    assert shown.find("input", attrs={"name": "preferred_agent"})["value"] == "ann.lee"
    assert db.session.scalars(select(BulkJob)).all() == []


def test_a_count_changed_since_the_confirmation_asks_again(signed_in, renewals):
    gold_tasks(renewals)
    shown = soup(review(signed_in, bulk_url(renewals, "delete", **GOLD), {}))
    assert shown.h1.get_text(strip=True) == "Delete 6 tasks for good?"
    add_tasks(renewals, 1, plan=lambda n: "Gold", start=100)
    sent = confirm(signed_in, shown)
    assert sent.status_code == 303 and "/review?" in sent.location  # a new review
    again = page(signed_in, sent.location)
    text = again.get_text(" ", strip=True)
    assert "7 tasks match now, not the 6" in text
    assert again.h1.get_text(strip=True) == "Delete 7 tasks for good?"
    assert len(states(renewals)) == 13 and db.session.scalars(select(BulkJob)).all() == []
    done = confirm(signed_in, again)
    assert done.status_code == 303 and len(states(renewals)) == 6


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
def test_a_confirmation_without_its_csrf_token_is_refused(signed_in, renewals):
    gold_tasks(renewals)
    shown = soup(review(signed_in, bulk_url(renewals, "delete", **GOLD), {}))
    assert csrf_token(shown)
    values = form_values(shown.select_one("form.bulk"))
    values.pop("csrf_token")
    refused = signed_in.post(shown.select_one("form.bulk")["action"], data=values)
    assert refused.status_code in (400, 422)
    assert len(states(renewals)) == 12 and db.session.scalars(select(BulkJob)).all() == []


def test_the_report_lists_why_tasks_failed_and_offers_them_as_a_safe_csv(
    signed_in, renewals, winback
):
    for campaign in (renewals, winback):
        add_or_update_task(campaign, "=1+1", [ItemInput("Plan", "Gold")], actor=SETUP)
    gold_tasks(renewals, 4)
    url = bulk_url(renewals, "transfer", **GOLD)
    shown = soup(review(signed_in, url, {"destination": "Winback"}))
    assert shown.h1.get_text(strip=True) == "Move 3 tasks to campaign Winback?"
    done = confirm(signed_in, shown)
    report = page(signed_in, done.location)
    reasons = [row.get_text(" ", strip=True) for row in report.select("table.reasons tbody tr")]
    assert reasons == ["clientId '=1+1' already exists in campaign 'Winback' 1"]
    link = report.find("a", string="Download the failures (CSV)")
    response = signed_in.get(link["href"])
    try:
        body = response.get_data(as_text=True)
    finally:
        response.close()
    assert response.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == ["previewRecordID", "clientId", "reason"]
    assert rows[1][1:] == ["'=1+1", "clientId '=1+1' already exists in campaign 'Winback'"]


def test_another_tenants_job_is_not_found(signed_in, renewals):
    gold_tasks(renewals, 2)
    done = confirm(signed_in, soup(review(signed_in, bulk_url(renewals, "delete", **GOLD), {})))
    job_url = done.location
    assert page(signed_in, job_url).h1
    other = make_tenant("Other")[0]
    page(
        signed_in, job_url.replace(f"/tenants/{renewals.tenant_id}/", f"/tenants/{other.id}/"), 404
    )
    page(signed_in, bulk_url(renewals, "explode", **GOLD), 404)


def test_a_search_that_is_not_valid_goes_back_to_the_campaign_page(signed_in, renewals):
    response = signed_in.get(bulk_url(renewals, "status", s="SLEEPING"))
    assert response.status_code == 302
    assert "s=SLEEPING" in response.location


def test_a_confirmation_sent_again_starts_no_second_job(signed_in, renewals):
    gold_tasks(renewals)
    reviewed = review(signed_in, bulk_url(renewals, "status", **GOLD), {"state": "REMOVED"})
    shown = soup(reviewed)
    first = confirm(signed_in, shown)
    [job] = db.session.scalars(select(BulkJob))
    assert first.location.endswith(f"/bulk/{job.id}")
    again = confirm(signed_in, shown)  # the same page in another tab, or Back and confirm
    assert again.status_code == 303 and reviewed.request.url.endswith(again.location)
    refused = page(signed_in, again.location)
    said = refused.select_one(".refused").get_text(" ", strip=True)
    assert f"confirmed already: bulk job {job.id} was started from it" in said
    assert (
        refused.select_one(".refused a")["href"] == f"/tenants/{renewals.tenant_id}/bulk/{job.id}"
    )
    assert not refused.find("button", string="Set 6 tasks to REMOVED")
    assert len(db.session.scalars(select(BulkJob)).all()) == 1
    other = soup(review(signed_in, bulk_url(renewals, "status", **GOLD), {"state": "REMOVED"}))
    assert "/bulk/" in confirm(signed_in, other).location  # a new review after it ran: a job
    assert len(db.session.scalars(select(BulkJob)).all()) == 2
