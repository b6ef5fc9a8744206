"""A task in an agent's hands, on the task page: a delivery is no conflict for a supervisor's
save (only a change of the fields a form edits is), and the delete and move forms say who
holds the task before it is taken from them."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Task
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery.closing import close_task
from app.services.tasks.validation import ItemInput
from tests.admin.conftest import add_task, alert, find_form, form_values, page, soup
from tests.delivery.delivery_support import available, make_agent, offer

NAME_ROW = "data-items-0-value"


@pytest.fixture
def task(renewals):
    return add_task(renewals, "C1", [ItemInput("Name", "Ann Lee"), ItemInput("Plan", "Gold")])


@pytest.fixture
def task_url(acme, task) -> str:
    return f"/tenants/{acme.id}/tasks/{task.record_id}"


def _post(client, shown, action_end: str, changes: dict):
    form = find_form(shown, action_end)
    values = form_values(form)
    for name, value in changes.items():
        values[name] = value
    return client.post(form["action"], data=values)


def _taken(renewals, login: str = "ann"):
    """An agent of the Sales queue is given the campaign's next task (a delivery)."""
    now = utcnow()
    agent = available(make_agent(renewals.tenant, login, ("Sales",)), now)
    given = offer(agent, now)
    assert given.task is not None
    return agent, given.task


def _name(task: Task) -> str:
    return next(item.value for item in task.items if item.key == "Name")


def _stored(record_id: str) -> Task:
    db.session.expire_all()
    return db.session.scalar(select(Task).filter_by(record_id=record_id))


@pytest.mark.parametrize(
    ("action_end", "changes", "saved"),
    [
        ("/items", {NAME_ROW: "Ann Smith"}, lambda t: _name(t) == "Ann Smith"),
        ("/status", {"status-preferred_agent": "bob"}, lambda t: t.preferred_agent == "bob"),
        ("/transfer", {"transfer-destination": "Winback"}, lambda t: t.campaign.name == "Winback"),
    ],
)
def test_an_agent_given_the_task_meanwhile_is_no_conflict(
    signed_in, renewals, task, task_url, action_end, changes, saved
):
    opened = page(signed_in, task_url)
    shown_version = task.version
    _taken(renewals)  # the task's version moves on: reserved, an attempt begun
    assert _stored(task.record_id).version != shown_version
    response = _post(signed_in, opened, action_end, changes)
    assert response.status_code == 302, alert(soup(response))
    assert saved(_stored(task.record_id))


def test_another_supervisors_save_of_the_same_field_is_refused(signed_in, task, task_url):
    mine, theirs = page(signed_in, task_url), page(signed_in, task_url)
    assert _post(signed_in, theirs, "/items", {NAME_ROW: "Ann Jones"}).status_code == 302
    refused = _post(signed_in, mine, "/items", {NAME_ROW: "Ann Smith"})
    assert refused.status_code == 422
    assert "Someone else changed this task" in alert(soup(refused))
    assert _name(_stored(task.record_id)) == "Ann Jones"


def test_an_agent_closing_the_task_meanwhile_conflicts_with_a_status_save(
    signed_in, renewals, task, task_url
):
    opened = page(signed_in, task_url)
    agent, taken = _taken(renewals)
    close_task(agent, taken.record_id, "COMPLETE", actor=Actor.agent("ann"))
    db.session.commit()
    refused = _post(signed_in, opened, "/status", {"status-preferred_agent": "bob"})
    assert refused.status_code == 422
    assert "Someone else changed this task" in alert(soup(refused))
    assert _stored(task.record_id).worked_state == "COMPLETED"


def test_the_delete_page_names_the_agent_holding_the_task(signed_in, renewals, task, task_url):
    _taken(renewals)
    shown = page(signed_in, f"{task_url}/delete")
    said = shown.select_one(".held-tasks").get_text(" ", strip=True)
    assert said.startswith("This task is in an agent's hands right now: held by Ann Agent (ann)")
    assert said.endswith("Deleting it takes it from them.")


def test_the_move_form_names_the_agent_holding_the_task(signed_in, renewals, task, task_url):
    assert not page(signed_in, task_url).select_one("#transfer .held-tasks")
    _taken(renewals)
    said = page(signed_in, task_url).select_one("#transfer .held-tasks").get_text(" ", strip=True)
    assert "held by Ann Agent (ann) since" in said
    assert said.endswith("Moving it takes it from them: it goes back to the queue.")
