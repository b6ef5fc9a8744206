"""A bulk action's review: a GET page of its own that a reload, Back or a second tab shows
again; confirmed once, never after a job that changed the campaign's tasks since it was
made; and it names the tasks agents hold right now."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import BulkJob, BulkState, Task
from app.models.types import utcnow
from app.services.bulk.actions import BulkRequest
from app.services.bulk.jobs import run_bulk, start_bulk
from app.services.bulk.reviews import ReviewRefused, confirm_review, held_in_review, review_bulk
from tests.admin.conftest import RequestClient, page, soup
from tests.bulk.conftest import BOSS, add_tasks, plan_is, states
from tests.bulk.test_pages import GOLD, bulk_url, confirm, gold_tasks, review
from tests.delivery.delivery_support import available, make_agent, offer


@pytest.fixture
def client(app):
    app.test_client_class = RequestClient
    return app.test_client()


GIVE_ANN = {"preferred_agent": "ann.lee"}


def _without_token(form) -> str:
    """The form as sent, but its CSRF token (signed with the second it was made in)."""
    for token in form.select('input[name="csrf_token"]'):
        token.decompose()
    return str(form)


def test_the_review_is_a_get_page_a_reload_shows_again_unchanged(signed_in, renewals):
    gold_tasks(renewals)
    form = page(signed_in, bulk_url(renewals, "preferred_agent", **GOLD)).select_one("form.bulk")
    sent = signed_in.post(form["action"], data={"preferred_agent": "ann.lee", "go": "review"})
    assert sent.status_code == 303  # post/redirect/get: the review is a page of its own
    first, again = page(signed_in, sent.location), page(signed_in, sent.location)
    assert first.h1.get_text(strip=True) == "Give 6 tasks the preferred agent ann.lee?"
    assert _without_token(first.select_one("form.bulk")) == _without_token(
        again.select_one("form.bulk")
    )
    assert db.session.scalars(select(BulkJob)).all() == []  # showing it changes nothing
    change = first.find("a", string="Change…")["href"]
    assert (
        page(signed_in, change).find("input", attrs={"name": "preferred_agent"})["value"]
        == "ann.lee"
    )


def test_two_tabs_reviewing_the_same_action_start_one_job(signed_in, renewals):
    gold_tasks(renewals)
    url = bulk_url(renewals, "preferred_agent", **GOLD)
    tab_a, tab_b = soup(review(signed_in, url, GIVE_ANN)), soup(review(signed_in, url, GIVE_ANN))
    first = confirm(signed_in, tab_a)
    [job] = db.session.scalars(select(BulkJob))
    assert first.location == f"/tenants/{renewals.tenant_id}/bulk/{job.id}"
    second = confirm(signed_in, tab_b)
    assert second.status_code == 303 and "/review?" in second.location
    assert len(db.session.scalars(select(BulkJob)).all()) == 1
    refused = page(signed_in, second.location)
    text = refused.get_text(" ", strip=True)
    assert f"Not started: bulk job {job.id} changed tasks of this campaign since this review" in (
        text
    )
    link = refused.select_one(".refused a")
    assert link["href"] == first.location and link.get_text(strip=True) == f"See bulk job #{job.id}"
    assert refused.find("button", string="Review again")


def test_a_review_made_while_a_job_of_the_campaign_runs_waits_for_it(renewals):
    add_tasks(renewals, 4, plan=lambda n: "Gold")
    running = start_bulk(
        renewals, plan_is("Gold"), BulkRequest("status", state="REMOVED"), actor=BOSS
    )
    running.state = BulkState.RUNNING  # the worker has not reached its end yet
    db.session.commit()
    made = review_bulk(renewals, plan_is("Gold"), BulkRequest("delete"), actor=BOSS)
    with pytest.raises(ReviewRefused, match=f"bulk job {running.id} is changing") as refused:
        confirm_review(renewals, made, actor=BOSS)
    assert refused.value.job.id == running.id
    db.session.rollback()
    run_bulk(running.id)
    after = review_bulk(renewals, plan_is("Gold"), BulkRequest("delete"), actor=BOSS)
    assert confirm_review(renewals, after, actor=BOSS).confirmed == 4  # it saw the job's end


def test_a_job_moving_tasks_into_the_campaign_overtakes_its_review(renewals, winback):
    add_tasks(renewals, 3)
    made = review_bulk(renewals, [], BulkRequest("delete"), actor=BOSS)
    add_tasks(winback, 2, start=50)
    moved = start_bulk(winback, [], BulkRequest("transfer", destination="Renewals"), actor=BOSS)
    with pytest.raises(ReviewRefused) as refused:
        confirm_review(renewals, made, actor=BOSS)
    assert refused.value.job.id == moved.id
    db.session.rollback()
    assert len(states(renewals)) == 5


def test_a_job_of_another_campaign_leaves_the_review_standing(renewals, winback):
    add_tasks(renewals, 3)
    made = review_bulk(renewals, [], BulkRequest("delete"), actor=BOSS)
    add_tasks(winback, 2, start=50)
    start_bulk(winback, [], BulkRequest("status", state="REMOVED"), actor=BOSS)
    assert confirm_review(renewals, made, actor=BOSS).confirmed == 3


def test_an_altered_review_is_not_confirmed(signed_in, renewals):
    gold_tasks(renewals)
    sent = signed_in.post(
        page(signed_in, bulk_url(renewals, "delete", **GOLD)).select_one("form.bulk")["action"],
        data={"go": "review"},
    )
    altered = sent.location.replace("v=Gold", "v=Basic")  # the search beside the signed review
    back = signed_in.get(altered)
    assert back.status_code == 302 and "/bulk/delete?" in back.location
    shown = page(signed_in, sent.location).select_one("form.bulk")
    forged = {
        "csrf_token": "",
        "review": shown.find("input", attrs={"name": "review"})["value"][:-2],
    }
    assert signed_in.post(shown["action"], data=forged).status_code == 400
    assert db.session.scalars(select(BulkJob)).all() == [] and len(states(renewals)) == 12


def _held(renewals, logins: list[str]) -> list[Task]:
    """Each agent takes the campaign's next task (by delivery), committed."""
    now = utcnow()
    taken = []
    for login in logins:
        agent = available(make_agent(renewals.tenant, login), now)
        taken.append(offer(agent, now).task)
    return taken


def test_the_review_counts_and_names_the_tasks_agents_hold(signed_in, renewals, settings):
    add_tasks(renewals, 14, plan=lambda n: "Gold")
    held = _held(renewals, [f"agent{n:02d}" for n in range(12)])
    shown = soup(review(signed_in, bulk_url(renewals, "delete", **GOLD), {}))
    section = shown.select_one(".held-tasks")
    said = section.get_text(" ", strip=True)
    assert "12 of these tasks are in an agent's hands right now" in said
    rows = section.select("li")
    assert len(rows) == 11 and rows[-1].get_text(strip=True) == "and 2 more"
    first = rows[0].get_text(" ", strip=True)
    assert first.startswith(f"{held[0].client_id} , held by Agent00 Agent (agent00) since")
    assert rows[0].a["href"] == f"/tenants/{renewals.tenant_id}/tasks/{held[0].record_id}"


def test_a_review_of_tasks_nobody_holds_says_so(signed_in, renewals):
    gold_tasks(renewals)
    shown = soup(review(signed_in, bulk_url(renewals, "status", **GOLD), {"state": "REMOVED"}))
    said = shown.select_one(".held-tasks").get_text(" ", strip=True)
    assert said == "None of these tasks is in an agent's hands right now."


def test_only_the_reviewed_tasks_held_are_counted(renewals):
    add_tasks(renewals, 2, plan=lambda n: "Basic")
    _held(renewals, ["ann"])  # ann holds a Basic task
    add_tasks(renewals, 2, plan=lambda n: "Gold", start=10)
    made = review_bulk(renewals, plan_is("Gold"), BulkRequest("delete"), actor=BOSS)
    assert held_in_review(renewals, made).count == 0
    every = review_bulk(renewals, [], BulkRequest("delete"), actor=BOSS)
    assert held_in_review(renewals, every).count == 1
