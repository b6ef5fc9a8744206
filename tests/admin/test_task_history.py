"""The task page's history, and the trail the supervisors' forms leave.

Every form that changes a task records the signed-in supervisor as who acted; a refused
form records nothing. The page lists the task's changes newest first, 20 a page, each with
who acted and only the fields it changed.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Event
from app.services.actors import Actor
from app.services.tasks.changes import Locator, TaskChanges, change_status
from tests.admin.conftest import BOSS, add_task, find_form, form_values, page, refusal, submit

E164 = "+14155550123"
NEXT_MS = 1767225600123


def trail() -> list[tuple[str, str, str]]:
    """The tasks' audit records (action, actor kind, actor id), oldest first."""
    db.session.expire_all()
    query = select(AuditRecord).where(AuditRecord.entity_kind == "task").order_by(AuditRecord.id)
    return [(r.action, r.actor_kind, r.actor_id) for r in db.session.scalars(query)]


def task_events() -> list[str]:
    query = select(Event.type).where(Event.type.startswith("task.")).order_by(Event.id)
    return list(db.session.scalars(query))


@pytest.fixture
def task(renewals):
    return add_task(renewals, "C1", {"Name": "Ann", "Plan": "Gold"})


@pytest.fixture
def task_url(acme, task) -> str:
    return f"/tenants/{acme.id}/tasks/{task.record_id}"


def history_rows(shown) -> list[list[str]]:
    """The history table's rows: when, who, action, what, changed fields."""
    table = shown.select_one("#history table")
    if table is None:
        return []
    return [
        [cell.get_text(" ", strip=True) for cell in row.find_all("td")]
        for row in table.select("tbody tr")
    ]


FORMS = {
    "items": ("/items", {"data-items-1-value": "Silver"}, "task.updated"),
    "status": ("/status", {"status-state": "COMPLETED"}, "task.status_changed"),
    "transfer": ("/transfer", {"transfer-destination": "Winback"}, "task.transferred"),
}


@pytest.mark.parametrize("form", FORMS)
def test_each_form_records_the_supervisor(signed_in, task_url, form):
    action_end, changes, action = FORMS[form]
    response = submit(signed_in, task_url, action_end, changes)
    assert response.status_code == 302
    assert trail()[-1] == (action, "supervisor", BOSS)
    assert task_events()[-1] == action
    assert len(trail()) == len(task_events()) == 2


def test_the_delete_form_records_the_supervisor(signed_in, task_url, task):
    confirm = page(signed_in, task_url + f"/delete?version={task.version}")
    response = signed_in.post(task_url + "/delete", data=form_values(find_form(confirm, None)))
    assert response.status_code == 302
    assert trail()[-1] == ("task.deleted", "supervisor", BOSS)
    assert task_events() == ["task.added", "task.deleted"]


def test_the_new_task_form_records_the_supervisor(signed_in, acme, renewals):
    url = f"/tenants/{acme.id}/campaigns/{renewals.id}/tasks/new"
    response = submit(signed_in, url, None, {"client_id": "N1", "items-0-value": "Nina"})
    assert response.status_code == 302
    assert trail() == [("task.added", "supervisor", BOSS)]
    assert task_events() == ["task.added"]


REFUSED = {
    "items: bad phone": ("/items", {"data-items-1-key": "Phone", "data-items-1-value": "12"}),
    "status: WORKED without a time": ("/status", {"status-state": "WORKED"}),
    "status: stale version": (
        "/status",
        {
            "status-state": "COMPLETED",
            "status-version": "0",
            "status-shown": "fields-since-changed",
        },
    ),
    "transfer: clientId taken": ("/transfer", {"transfer-destination": "Winback"}),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_form_records_nothing(signed_in, winback, task_url, case):
    add_task(winback, "C1")  # the destination holds the clientId: a transfer is refused
    before = trail(), task_events()
    action_end, changes = REFUSED[case]
    response = submit(signed_in, task_url, action_end, changes)
    assert response.status_code == 422
    assert (trail(), task_events()) == before


def test_a_refused_new_task_records_nothing(signed_in, acme, renewals, task):
    url = f"/tenants/{acme.id}/campaigns/{renewals.id}/tasks/new"
    response = submit(signed_in, url, None, {"client_id": "C1", "items-0-value": "Again"})
    assert "already has a task" in refusal(response)
    assert trail() == [("task.added", "operator", Actor.operator().id)]


def test_the_page_shows_the_history_newest_first_with_only_changed_fields(signed_in, task_url):
    submit(signed_in, task_url, "/status", {"status-state": "COMPLETED"})
    rows = history_rows(page(signed_in, task_url))
    assert [row[1:3] for row in rows] == [
        [f"supervisor {BOSS}", "task.status_changed"],
        [f"operator {Actor.operator().id}", "task.added"],
    ]
    changed = rows[0][4]
    assert 'workedState : "NOTWORKED" → "COMPLETED"' in changed
    # Only what changed: not the clientId, the data, nor the update time the row shows.
    assert "clientId" not in changed and "data Name" not in changed
    assert "lastUpdatedTime" not in changed
    assert 'data Name : — → "Ann"' in rows[1][4]  # an addition lists its fields


def test_an_items_change_lists_the_items_it_changed(signed_in, task_url):
    submit(signed_in, task_url, "/items", {"data-items-1-value": "Silver"})
    changed = history_rows(page(signed_in, task_url))[0][4]
    assert changed == 'data Plan : "Gold" → "Silver"'


def test_an_api_change_shows_the_key_by_its_id(signed_in, api, acme, task):
    api.status("changeCampaignRecordStatus", clientId="C1", previewRecordStateEnum="REMOVED")
    rows = history_rows(page(signed_in, f"/tenants/{acme.id}/tasks/{task.record_id}"))
    assert rows[0][1].startswith("API key #")
    assert rows[0][1].removeprefix("API key #").isdigit()


def test_the_history_is_paged_twenty_a_page(signed_in, renewals, task, task_url):
    states = ["COMPLETED", "NOTWORKED"] * 12  # 24 changes and the addition: 25 records
    for state in states:
        change_status(
            renewals, Locator(client_id="C1"), state, TaskChanges(), actor=Actor.system("test")
        )
        db.session.commit()
    first = page(signed_in, task_url)
    rows = history_rows(first)
    assert len(rows) == 20
    assert rows[0][4] == 'workedState : "COMPLETED" → "NOTWORKED"'  # the newest
    older = first.select_one("#history a[rel=next]")["href"]
    assert older == f"{task_url}?history=2"
    second = history_rows(page(signed_in, older))
    assert [row[2] for row in second] == ["task.status_changed"] * 4 + ["task.added"]
    assert history_rows(page(signed_in, f"{task_url}?history=99")) == second  # the last page
    assert len(history_rows(page(signed_in, f"{task_url}?history=x"))) == 20


def test_recorded_values_are_escaped(signed_in, renewals, acme):
    task = add_task(renewals, "X1", {"Name": "<script>alert(1)</script>"})
    html = signed_in.get(f"/tenants/{acme.id}/tasks/{task.record_id}").get_data(as_text=True)
    history = html[html.index('id="history"') :]
    history = history[: history.index("</article>")]
    assert "alert(1)" in history and "<script>" not in history
