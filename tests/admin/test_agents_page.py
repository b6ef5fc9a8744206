"""The Agents page: each agent's state, time in state, queues and task; a supervisor
releases a held task (CSRF, tenant, the version shown), and the task page says who holds it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.admin.agents import duration
from app.extensions import db
from app.models import AuditRecord, Task
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import agent_state, closing, rules
from app.services.people.users import NewUser, add_user
from tests.admin.conftest import (
    BOSS,
    find_form,
    form_values,
    make_supervisor,
    page,
    session_for,
    soup,
)
from tests.admin.conftest import submit as submit_form
from tests.admin.test_security import (
    CSRF_ON,
    assert_csrf_on_every_post_form,
    assert_no_inline_script_or_style,
    assert_strict_csp,
)
from tests.conftest import SETUP, make_tenant
from tests.delivery.delivery_support import add, available, make_agent, offer, stored

S = timedelta(seconds=1)


def hold(agent, campaign, client_id: str, at=None) -> Task:
    """The agent (AVAILABLE at `at`) is given a new task of the campaign."""
    add(campaign, client_id)
    at = at or utcnow()
    available(agent, at)
    assert offer(agent, at).task.client_id == client_id
    return stored(client_id)


def rows(html) -> dict[str, list[str]]:
    table = html.find("table", class_="agents")
    return {
        tr.find("td").get_text(strip=True): [td.get_text(" ", strip=True) for td in tr("td")]
        for tr in table.tbody("tr")
    }


def test_the_page_lists_each_agents_state_time_in_state_queues_and_task(
    signed_in, acme, renewals, ann
):
    make_agent(acme, "bob", queues=("Sales", "Support"))
    task = hold(ann, renewals, "c1", utcnow() - 4 * 60 * S)
    agent_state.heartbeat(ann)  # the desk is still open
    db.session.commit()
    html = page(signed_in, f"/tenants/{acme.id}/agents")
    shown = rows(html)
    assert shown["ann"][1:6] == ["Ann Agent", "AVAILABLE", "4 min", "Sales", "c1 Renewals"]
    assert shown["bob"][1:6] == ["Bob Agent", "OFFLINE", "—", "Sales, Support", "—"]
    link = html.find("a", string="c1")
    assert link["href"] == f"/tenants/{acme.id}/tasks/{task.record_id}"
    assert html.find("button", attrs={"aria-label": "Release task c1 from ann"})
    nav = html.find("nav", attrs={"aria-label": "Main"}).find("a", string="Agents")
    assert nav["aria-current"] == "page"


def test_a_silent_desk_shows_offline(signed_in, acme, ann):
    available(ann, utcnow() - timedelta(hours=2))
    assert rows(page(signed_in, f"/tenants/{acme.id}/agents"))["ann"][2] == "OFFLINE"


def test_a_user_who_is_no_agent_is_not_listed(signed_in, acme, ann):
    add_user(acme, NewUser("nobody", "No", "Body", "Agent"), actor=SETUP)
    assert list(rows(page(signed_in, f"/tenants/{acme.id}/agents"))) == ["ann"]


def test_a_tenant_without_agents_says_how_to_get_some(signed_in, acme):
    html = page(signed_in, f"/tenants/{acme.id}/agents")
    assert "No agent yet" in html.find("main").get_text()


def test_release_gives_the_task_back_and_records_the_supervisor(signed_in, acme, renewals, ann):
    task = hold(ann, renewals, "c1")
    response = submit_form(signed_in, f"/tenants/{acme.id}/agents", "/release")
    assert response.status_code == 302
    assert response.location.endswith(f"/tenants/{acme.id}/agents")
    notice = page(signed_in, response.location).find(class_="notice").get_text()
    assert notice == "Task 'c1' released from ann: it goes to the next agent of its queue."
    assert stored("c1").reserved_by_id is None
    audit = db.session.scalar(
        select(AuditRecord).filter_by(action="task.released", entity_id=task.record_id)
    )
    assert (audit.actor_kind, audit.actor_id) == ("supervisor", BOSS)


def test_a_release_from_an_older_page_keeps_the_new_agents_task(signed_in, acme, renewals, ann):
    hold(ann, renewals, "c1")
    url = f"/tenants/{acme.id}/agents"
    form = find_form(page(signed_in, url), "/release")
    closing.release_task(ann, stored("c1").record_id, actor=Actor.agent("ann"))
    db.session.commit()
    bob = make_agent(acme, "bob")
    available(bob, utcnow())
    offer(bob, utcnow())
    response = signed_in.post(form["action"], data=form_values(form))
    assert response.status_code == 422
    assert "nothing was released" in page_text(response)
    assert stored("c1").reserved_by_id == bob.id


def test_releasing_a_task_nobody_holds_says_so(signed_in, acme, renewals, ann):
    task = hold(ann, renewals, "c1")
    form = find_form(page(signed_in, f"/tenants/{acme.id}/agents"), "/release")
    closing.release_task(ann, task.record_id, actor=Actor.agent("ann"))
    db.session.commit()
    response = signed_in.post(form["action"], data={"version": stored("c1").version})
    assert response.status_code == 422
    assert "nobody holds task 'c1'" in page_text(response)


def page_text(response) -> str:
    return soup(response).find("main").get_text(" ", strip=True)


@CSRF_ON
def test_a_release_without_its_csrf_token_is_refused(signed_in, acme, renewals, ann):
    hold(ann, renewals, "c1")
    html = page(signed_in, f"/tenants/{acme.id}/agents")
    assert_strict_csp(signed_in.get(f"/tenants/{acme.id}/agents"))
    assert_no_inline_script_or_style(html)
    assert_csrf_on_every_post_form(html)
    form = find_form(html, "/release")
    values = form_values(form)
    del values["csrf_token"]
    assert signed_in.post(form["action"], data=values).status_code == 400
    assert stored("c1").reserved_by_id == ann.id
    assert signed_in.post(form["action"], data=form_values(form)).status_code == 302
    assert stored("c1").reserved_by_id is None


def test_another_tenants_task_cannot_be_released(client, acme, renewals, ann):
    other, _ = make_tenant("Other")
    task = hold(ann, renewals, "c1")
    # A supervisor of the other tenant only: Acme's pages and actions are 404.
    session_for(client, make_supervisor("other@example.com", [other]))
    assert client.get(f"/tenants/{acme.id}/agents").status_code == 404
    version = {"version": task.version}
    for url in (
        f"/tenants/{acme.id}/agents/tasks/{task.record_id}/release",
        f"/tenants/{other.id}/agents/tasks/{task.record_id}/release",  # through their own
        f"/tenants/{other.id}/tasks/{task.record_id}/release",
    ):
        assert client.post(url, data=version).status_code == 404, url
    assert stored("c1").reserved_by_id == ann.id


def test_signed_out_the_page_and_release_go_to_sign_in(client, acme, renewals, ann):
    task = hold(ann, renewals, "c1")
    assert client.get(f"/tenants/{acme.id}/agents").status_code == 302
    url = f"/tenants/{acme.id}/agents/tasks/{task.record_id}/release"
    response = client.post(url, data={"version": task.version})
    assert response.status_code == 302 and "/login" in response.location
    assert stored("c1").reserved_by_id == ann.id


@pytest.mark.parametrize(
    ("span", "said"),
    [
        (None, "—"),
        (timedelta(seconds=59), "under a minute"),
        (timedelta(minutes=12, seconds=30), "12 min"),
        (timedelta(hours=3), "3 h"),
        (timedelta(hours=3, minutes=5), "3 h 5 min"),
        (timedelta(days=2), "2 d"),
        (timedelta(days=2, hours=4, minutes=59), "2 d 4 h"),
    ],
)
def test_time_in_state_reads_short(span, said):
    assert duration(span) == said


# --- the task page: who holds it ----------------------------------------------------------


def held_by(html) -> str | None:
    found = html.find(class_="held-by")
    return found.find("p").get_text(" ", strip=True) if found else None


def test_the_task_page_says_who_holds_the_task_and_releases_it(signed_in, acme, renewals, ann):
    delivered = utcnow().replace(microsecond=0)
    task = hold(ann, renewals, "c1", delivered)
    url = f"/tenants/{acme.id}/tasks/{task.record_id}"
    said = held_by(page(signed_in, url))
    assert said == f"Held by ann since {delivered:%Y-%m-%d %H:%M:%S} UTC"
    response = submit_form(signed_in, url, "/release")
    assert response.status_code == 302 and response.location.endswith(url)
    html = page(signed_in, url)
    assert html.find(class_="notice").get_text() == (
        "Task 'c1' released from ann: it goes to the next agent of its queue."
    )
    assert held_by(html) is None
    assert stored("c1").reserved_by_id is None
    until = stored("c1").passed_over_until
    assert html.select_one(".passed-over").get_text(" ", strip=True) == (
        "Released from ann by a supervisor: offered to the other agents of its queue, "
        f"not to ann, until {until:%Y-%m-%d %H:%M:%S} UTC."
    )


def test_the_task_page_names_no_holder_for_a_free_or_lapsed_task(signed_in, acme, renewals, ann):
    timeout = rules.seconds("OFFER_TIMEOUT_SECONDS")
    lapsed = hold(ann, renewals, "lapsed", utcnow() - timeout - S)
    free = add(renewals, "free")
    assert held_by(page(signed_in, f"/tenants/{acme.id}/tasks/{free.record_id}")) is None
    assert held_by(page(signed_in, f"/tenants/{acme.id}/tasks/{lapsed.record_id}")) is None


def test_a_refused_release_on_the_task_page_shows_the_task_as_stored(
    signed_in, acme, renewals, ann
):
    task = hold(ann, renewals, "c1")
    url = f"/tenants/{acme.id}/tasks/{task.record_id}"
    form = find_form(page(signed_in, url), "/release")
    closing.release_task(ann, task.record_id, actor=Actor.agent("ann"))
    db.session.commit()
    response = signed_in.post(form["action"], data=form_values(form))
    assert response.status_code == 422
    assert "nobody holds task 'c1'" in page_text(response)
    assert held_by(soup(response)) is None
