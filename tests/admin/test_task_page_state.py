"""The task page never loses or silently overwrites data: a refused form leaves every other
form showing the task as stored, and a save from an older copy of the page (another tab,
another supervisor) is refused, shows the newer task, and lists what was not saved."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.services.tasks.changes import Locator, TaskChanges, change_status
from app.services.tasks.validation import ItemInput
from app.wire.times import sent_time, to_epoch_ms
from tests.admin.conftest import add_task, alert, find_form, form_values, page, soup
from tests.admin.test_task_forms import ROWS, stored
from tests.conftest import SETUP

E164 = "+14155550123"
NEXT = datetime(2030, 1, 2, 8, 30, tzinfo=UTC)


@pytest.fixture
def task(renewals):
    """A task whose system fields all differ from the Status form's defaults."""
    task = add_task(
        renewals,
        "C1",
        [
            ItemInput("Name", "Ann Lee"),
            ItemInput("City", "Oslo", 2),
            ItemInput("Phone", E164, 1),
            ItemInput("Plan", "Gold"),
        ],
        preferred_agent="agent7",
    )
    changes = TaskChanges(
        skill_queue="Support",
        next_earliest=sent_time(to_epoch_ms(NEXT), "nextEarliestWorkTimeUTC"),
        time_zone="Asia/Tokyo",
    )
    change_status(renewals, Locator(record_id=task.record_id), "WORKED", changes, actor=SETUP)
    db.session.commit()
    return task


@pytest.fixture
def task_url(acme, task) -> str:
    return f"/tenants/{acme.id}/tasks/{task.record_id}"


STORED_STATUS = {
    "status-state": "WORKED",
    "status-skill_queue": "Support",
    "status-time_zone": "Asia/Tokyo",
    "status-next_zone": "Asia/Tokyo",
    "status-next_time": "2030-01-02 17:30:00",  # 08:30 UTC in Tokyo
    "status-preferred_agent": "agent7",
}


def _post(client, shown, action_end: str, changes: dict):
    """Post the form of an already opened page (`shown`) with `changes`."""
    form = find_form(shown, action_end)
    values = form_values(form)
    for name, value in changes.items():
        values[name] = value
    return client.post(form["action"], data=values)


def _keys(shown) -> list[str]:
    values = form_values(find_form(shown, "/items"))
    return [value for name, value in values.items(multi=True) if name.endswith("-key")]


def _status(shown) -> dict[str, str]:
    values = form_values(find_form(shown, "/status"))
    return {name: values[name] for name in STORED_STATUS}


# --- A refused form leaves the others as stored -----------------------------------------


def test_after_a_refused_status_change_saving_the_items_as_shown_keeps_them(
    signed_in, task, task_url
):
    before = stored(task.record_id)
    # WORKED needs a next time: refused.
    response = _post(signed_in, page(signed_in, task_url), "/status", {"status-next_time": ""})
    assert response.status_code == 422
    shown = soup(response)
    assert _keys(shown) == [*ROWS, "", "", ""]
    saved = _post(signed_in, shown, "/items", {})
    assert saved.status_code == 302
    assert stored(task.record_id) == before


def test_after_a_refused_transfer_the_status_form_shows_the_stored_task(
    signed_in, task, task_url, winback
):
    add_task(winback, "C1")  # the destination holds the clientId: the transfer is refused
    before = stored(task.record_id)
    shown = page(signed_in, task_url)
    response = _post(signed_in, shown, "/transfer", {"transfer-destination": "Winback"})
    assert "already exists in campaign 'Winback'" in alert(soup(response))
    assert _status(soup(response)) == STORED_STATUS
    # Changing the status from that page keeps every stored system field.
    changed = _post(signed_in, soup(response), "/status", {})
    assert changed.status_code == 302
    assert stored(task.record_id) == before


def test_the_refused_form_itself_keeps_what_was_sent(signed_in, task, task_url):
    response = _post(
        signed_in,
        page(signed_in, task_url),
        "/status",
        {"status-next_time": "", "status-preferred_agent": "agent9"},
    )
    assert form_values(find_form(soup(response), "/status"))["status-preferred_agent"] == "agent9"


# --- Two copies of the page -------------------------------------------------------------

FIRST_SAVES = {
    "items": ("/items", {f"data-items-{ROWS['City']}-value": "Bergen"}),
    "status": ("/status", {"status-state": "COMPLETED"}),
    "transfer": ("/transfer", {"transfer-destination": "Winback"}),
}
STALE_SAVES = {
    "items": ("/items", {f"data-items-{ROWS['Plan']}-value": "Silver"}, "Silver"),
    "status": ("/status", {"status-state": "REMOVED", "status-preferred_agent": "b"}, "REMOVED"),
    "transfer": ("/transfer", {"transfer-preferred_agent": "agent9"}, "agent9"),
}


# A save from an older copy is refused when the other save changed a field of the same form
# (the form saves its fields as a whole); the preferred agent is on both the status and the
# transfer forms.
CONFLICTS = [
    ("items", "items"),
    ("status", "status"),
    ("transfer", "transfer"),
    ("agent", "transfer"),
    ("agent", "status"),
]
FIRST_SAVES["agent"] = ("/status", {"status-preferred_agent": "agent8"})


@pytest.mark.parametrize(("first", "second"), CONFLICTS)
def test_a_save_from_an_older_copy_of_the_page_is_refused(signed_in, task, task_url, first, second):
    tab_a, tab_b = page(signed_in, task_url), page(signed_in, task_url)
    action, changes = FIRST_SAVES[first]
    assert _post(signed_in, tab_a, action, changes).status_code == 302
    after_first = stored(task.record_id)

    action, changes, typed = STALE_SAVES[second]
    response = _post(signed_in, tab_b, action, changes)

    assert response.status_code == 422
    assert stored(task.record_id) == after_first  # nothing overwritten
    shown = soup(response)
    assert "Someone else changed this task" in alert(shown)
    # The forms show the newer task, and a save from them now goes through.
    fresh = page(signed_in, task_url)
    for action_end in ("/items", "/status", "/transfer"):
        assert _values(shown, action_end) == _values(fresh, action_end), action_end
    # What the refused save held is listed, so it can be made again.
    unsaved = shown.find("details", class_="unsaved")
    assert typed in unsaved.get_text(" ", strip=True)
    assert _post(signed_in, shown, action, changes).status_code == 302


@pytest.mark.parametrize(
    ("first", "second"),
    [("items", "status"), ("items", "transfer"), ("status", "items"), ("transfer", "items")],
)
def test_a_save_from_an_older_copy_of_other_fields_goes_through(
    signed_in, task, task_url, first, second
):
    """Another form's save changed none of the fields this form edits: both are kept."""
    tab_a, tab_b = page(signed_in, task_url), page(signed_in, task_url)
    first_action, first_changes = FIRST_SAVES[first]
    assert _post(signed_in, tab_a, first_action, first_changes).status_code == 302
    action, changes, _typed = STALE_SAVES[second]
    assert _post(signed_in, tab_b, action, changes).status_code == 302
    fresh = page(signed_in, task_url)
    for action_end, sent in ((first_action, first_changes), (action, changes)):
        values = form_values(find_form(fresh, action_end))
        assert all(values[name] == value for name, value in sent.items()), action_end


def _values(shown, action_end: str) -> list[tuple[str, str]]:
    """A form's values but its CSRF token (signed anew for every page)."""
    values = form_values(find_form(shown, action_end))
    return [(k, v) for k, v in values.items(multi=True) if not k.endswith("csrf_token")]


def test_the_status_form_of_the_newer_task_is_shown_after_a_stale_save(signed_in, task, task_url):
    tab_a, tab_b = page(signed_in, task_url), page(signed_in, task_url)
    _post(signed_in, tab_a, "/status", {"status-state": "COMPLETED", "status-time_zone": "UTC"})
    fresh = page(signed_in, task_url)  # then someone changes a data item too
    assert (
        _post(signed_in, fresh, "/items", {f"data-items-{ROWS['Name']}-value": "Ann"}).status_code
        == 302
    )
    response = _post(signed_in, tab_b, "/items", {f"data-items-{ROWS['Plan']}-value": "Silver"})
    status = _status(soup(response))
    assert (status["status-state"], status["status-time_zone"]) == ("COMPLETED", "UTC")
    items = form_values(find_form(soup(response), "/items"))
    assert items[f"data-items-{ROWS['Plan']}-value"] == "Gold"  # the stored value
    rows = soup(response).select("details.unsaved tbody tr")
    assert [tuple(td.get_text() for td in tr("td")) for tr in rows] == [
        ("Name", "Ann Lee", ""), ("City", "Oslo", "2"), ("Phone", E164, "1"), ("Plan", "Silver", "")
    ]  # fmt: skip


def test_a_form_without_its_version_saves_nothing(signed_in, task, task_url):
    before = stored(task.record_id)
    form = find_form(page(signed_in, task_url), "/status")
    values = form_values(form)
    values.pop("status-version")
    values["status-state"] = "REMOVED"
    response = signed_in.post(form["action"], data=values)
    assert response.status_code == 422
    assert "This page is out of date" in alert(soup(response))
    assert stored(task.record_id) == before


def test_deleting_from_an_older_copy_is_refused(signed_in, task, task_url):
    confirm = page(signed_in, task_url + "/delete")  # tab A asks to delete
    tab_b = page(signed_in, task_url)
    assert _post(signed_in, tab_b, "/items", {"data-items-0-value": "Ann Berg"}).status_code == 302
    response = signed_in.post(task_url + "/delete", data=form_values(find_form(confirm, None)))
    assert response.status_code == 422
    shown = soup(response)
    assert "Someone else changed this task" in alert(shown)
    assert "Ann Berg" in shown.find("table", class_="fields").get_text()  # the newer data
    assert stored(task.record_id) is not None
    # Confirming again, now that the page shows the task as it is, deletes it.
    again = signed_in.post(task_url + "/delete", data=form_values(find_form(shown, None)))
    assert again.status_code == 302
    assert stored(task.record_id) is None


def test_the_delete_link_of_an_older_page_warns_before_confirming(signed_in, task, task_url):
    tab_a, tab_b = page(signed_in, task_url), page(signed_in, task_url)
    _post(signed_in, tab_b, "/status", {"status-state": "COMPLETED"})
    link = tab_a.find("a", string=lambda s: s and s.startswith("Delete"))
    confirm = page(signed_in, link["href"])
    assert "Someone else changed this task" in alert(confirm)
    assert "COMPLETED" in confirm.find("table", class_="fields").get_text()
