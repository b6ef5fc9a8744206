"""The task page's forms, with the API's rules: data items, status, transfer, delete, and
the new-task form. A refused form shows the reason (422) and changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Task
from app.services.tasks.validation import ItemInput
from tests.admin.conftest import (
    add_task,
    alert,
    find_form,
    form_values,
    page,
    refusal,
    said_beside,
    soup,
    submit,
)

E164 = "+14155550123"
ROWS = {"Name": 0, "City": 1, "Phone": 2, "Plan": 3}  # the task's rows in the items form


@pytest.fixture
def task(renewals):
    return add_task(
        renewals,
        "C1",
        [
            ItemInput("Name", "Ann Lee"),
            ItemInput("City", "Oslo", 2),
            ItemInput("Phone", E164, 1),
            ItemInput("Plan", "Gold"),
        ],
    )


@pytest.fixture
def task_url(acme, task) -> str:
    return f"/tenants/{acme.id}/tasks/{task.record_id}"


def stored(record_id: str) -> tuple | None:
    """The task as the database has it now."""
    db.session.expire_all()
    fresh = db.session.scalar(select(Task).filter_by(record_id=record_id))
    if fresh is None:
        return None
    return (
        fresh.campaign.name,
        fresh.worked_state,
        fresh.skill_queue.name,
        fresh.time_zone,
        fresh.preferred_agent,
        fresh.next_earliest_work_at,
        [(i.key, i.value, i.display_order) for i in fresh.items],
    )


def agent_details(client, url: str) -> list[tuple[str, str]]:
    view = page(client, url + "/agent").find("section", class_="agent-view")
    return [
        (d.dt.get_text(strip=True), d.dd.get_text(strip=True))
        for d in view.select("div.detail")
        if d["data-key"] != "Id"
    ]


def item_rows(values) -> dict[str, int]:
    """Row index by key in the data-items form's values."""
    rows = {}
    for name, value in values.items(multi=True):
        if name.startswith("data-items-") and name.endswith("-key"):
            rows[value] = int(name.split("-")[2])
    return rows


def post_items(client, url: str, edit) -> object:
    """Open the task page, let `edit(values, rows)` change the items form, and post it."""
    form = find_form(page(client, url), "/items")
    values = form_values(form)
    edit(values, item_rows(values))
    return client.post(form["action"], data=values)


# --- Data items -------------------------------------------------------------------------


def test_the_items_form_holds_the_tasks_items_and_blank_rows(signed_in, task_url):
    values = form_values(find_form(page(signed_in, task_url), "/items"))
    keys = [value for name, value in values.items(multi=True) if name.endswith("-key")]
    # The clientId item (key Id) is kept by the service itself, not edited as an item.
    assert keys == [*ROWS, "", "", ""]
    assert values["data-items-1-display_order"] == "2"


def test_edit_items_and_the_agent_view_changes(signed_in, task, task_url):
    assert agent_details(signed_in, task_url) == [
        ("Phone", E164), ("City", "Oslo"), ("Plan", "Gold")
    ]  # fmt: skip

    def edit(values, rows):
        values[f"data-items-{rows['City']}-value"] = "Bergen"  # change a value
        values[f"data-items-{rows['Plan']}-remove"] = "y"  # remove a row
        values[f"data-items-{rows['City']}-display_order"] = "1"  # reorder
        values[f"data-items-{rows['Phone']}-display_order"] = "3"
        blank = rows[""]
        values[f"data-items-{blank}-key"] = "Email"  # add a row
        values[f"data-items-{blank}-value"] = "ann@example.com"
        values[f"data-items-{blank}-display_order"] = "2"

    response = post_items(signed_in, task_url, edit)
    assert (response.status_code, response.location) == (302, task_url)
    shown = page(signed_in, task_url)
    assert "Data items saved." in shown.find(role="status").get_text()
    assert shown.select_one(".agent-view .agent-banner").get_text(strip=True) == "Ann Lee"
    assert agent_details(signed_in, task_url) == [
        ("City", "Bergen"), ("Email", "ann@example.com"), ("Phone", E164)
    ]  # fmt: skip


def test_a_row_with_empty_key_and_value_is_dropped(signed_in, task, task_url):
    def edit(values, rows):
        values[f"data-items-{rows['Plan']}-key"] = ""
        values[f"data-items-{rows['Plan']}-value"] = ""

    assert post_items(signed_in, task_url, edit).status_code == 302
    assert "Plan" not in [key for key, _ in agent_details(signed_in, task_url)]


@pytest.mark.parametrize(
    ("row", "field", "value", "reason", "at_fault"),
    [
        ("Phone", "value", "555-1234",
         "Row 3: Value: '555-1234' of phone key 'Phone' is not an E.164 number", "2-value"),
        ("City", "display_order", "0",
         "Row 2: Order: Must be greater than zero", "1-display_order"),
        ("City", "key", "Id", "Row 2: Key: 'Id' is the clientId field name", "1-key"),
        # The second Plan is the one refused: the task's own Plan row, row 4.
        ("City", "key", "Plan", "Row 4: Key: 'Plan' is sent twice", "3-key"),
        ("City", "key", "SkillQueue",
         "Row 2: Value: SkillQueue 'Oslo' is not a skill queue", "1-value"),
    ],
    ids=[
        "bad-phone",
        "order-zero",
        "clientid-key",
        "duplicate-key",
        "bad-queue",
    ],
)  # fmt: skip
def test_a_refused_edit_shows_the_reason_and_changes_nothing(
    signed_in, task, task_url, row, field, value, reason, at_fault
):
    """The reason speaks the form's words (row numbers, column names) and marks the input."""
    before = stored(task.record_id)
    typed = f"data-items-{ROWS[row]}-{field}"
    response = submit(signed_in, task_url, "/items", {typed: value})
    refusal(response)
    shown = soup(response)
    form = find_form(shown, "/items")
    assert form_values(form)[typed] == value  # it stays typed
    marked = [i["name"] for i in form.select("[aria-invalid=true]")]
    assert marked == [f"data-items-{at_fault}"]
    # "Row 3: Value: '555-1234' of ...", beside the field: its name once, then the reason.
    beside = said_beside(shown, marked[0])
    assert reason in beside
    assert "previewRecordData" not in alert(shown) + beside
    assert stored(task.record_id) == before


def test_a_non_number_display_order_is_refused_with_the_reason(signed_in, task, task_url):
    before = stored(task.record_id)
    response = submit(
        signed_in, task_url, "/items", {f"data-items-{ROWS['City']}-display_order": "first"}
    )
    assert stored(task.record_id) == before
    # The reason is shown by the row it concerns, not only "check the fields".
    assert "Not a valid integer value" in refusal(response)


# --- Status -----------------------------------------------------------------------------


def test_the_status_form_offers_queues_and_zones_as_selects(signed_in, task_url):
    form = find_form(page(signed_in, task_url), "/status")
    queue = form.find("select", attrs={"name": "status-skill_queue"})
    zone = form.find("select", attrs={"name": "status-time_zone"})
    assert [o["value"] for o in queue("option")] == ["Sales", "Support"]
    assert queue.find("option", selected=True)["value"] == "Sales"
    assert {"Europe/Paris", "Asia/Tokyo", "UTC"} <= {o["value"] for o in zone("option")}
    assert zone.find("option", selected=True)["value"] == "America/New_York"
    assert form.find("input", attrs={"name": "status-next_time"})["type"] == "datetime-local"
    states = form.find("select", attrs={"name": "status-state"})
    assert [o["value"] for o in states("option")] == ["NOTWORKED", "WORKED", "COMPLETED", "REMOVED"]


def test_worked_without_a_next_time_is_refused_with_the_reason(signed_in, task, task_url):
    before = stored(task.record_id)
    response = submit(signed_in, task_url, "/status", {"status-state": "WORKED"})
    assert "required when the new state is WORKED" in refusal(response)
    assert stored(task.record_id) == before


def test_worked_with_a_local_time_stores_it_in_utc(signed_in, task, task_url):
    response = submit(
        signed_in,
        task_url,
        "/status",
        {
            "status-state": "WORKED",
            "status-next_time": "2030-01-02T09:30",
            "status-next_zone": "Europe/Paris",
        },
    )
    assert (response.status_code, response.location) == (302, task_url)
    _, state, _, _, _, next_time, _ = stored(task.record_id)
    assert (state, next_time) == ("WORKED", datetime(2030, 1, 2, 8, 30, tzinfo=UTC))
    assert (
        "2030-01-02 08:30:00 UTC" in page(signed_in, task_url).find("table", class_="fields").text
    )


def test_an_unchanged_next_time_survives_another_status_change(signed_in, task, task_url):
    submit(
        signed_in,
        task_url,
        "/status",
        {
            "status-state": "WORKED",
            "status-next_time": "2030-01-02T09:30",
            "status-next_zone": "Europe/Paris",
        },
    )
    values = form_values(find_form(page(signed_in, task_url), "/status"))
    # The picker shows the time in the task's own zone (New York, 5 hours behind UTC).
    assert values["status-next_zone"] == "America/New_York"
    shown = datetime.fromisoformat(values["status-next_time"])
    assert shown == datetime(2030, 1, 2, 3, 30)
    # A browser sends the picker's value back normalised: yyyy-mm-ddThh:mm.
    browser_sends = {"status-state": "COMPLETED", "status-next_time": "2030-01-02T03:30"}
    assert submit(signed_in, task_url, "/status", browser_sends).status_code == 302
    _, state, _, _, _, next_time, _ = stored(task.record_id)
    assert (state, next_time) == ("COMPLETED", datetime(2030, 1, 2, 8, 30, tzinfo=UTC))


def test_status_sets_queue_zone_and_preferred_agent(signed_in, task, task_url):
    changes = {
        "status-state": "COMPLETED",
        "status-skill_queue": "Support",
        "status-time_zone": "Asia/Tokyo",
        "status-preferred_agent": "agent7",
    }
    assert submit(signed_in, task_url, "/status", changes).status_code == 302
    _, state, queue, zone, agent, _, _ = stored(task.record_id)
    assert (state, queue, zone, agent) == ("COMPLETED", "Support", "Asia/Tokyo", "agent7")


def test_an_empty_preferred_agent_clears_it(signed_in, renewals, acme):
    task = add_task(renewals, "C2", preferred_agent="agent7")
    url = f"/tenants/{acme.id}/tasks/{task.record_id}"
    form = find_form(page(signed_in, url), "/status")
    assert form.find("input", attrs={"name": "status-preferred_agent"})["value"] == "agent7"
    assert submit(signed_in, url, "/status", {"status-preferred_agent": ""}).status_code == 302
    assert stored(task.record_id)[4] is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"status-skill_queue": "Nope"}, "Not a valid choice."),
        ({"status-time_zone": "Mars/Olympus"}, "Not a valid choice."),
        ({"status-next_time": "tomorrow"}, "Not a valid datetime value."),
    ],
    ids=["unknown-queue", "unknown-zone", "bad-time"],
)
def test_a_refused_status_change_shows_the_reason_and_changes_nothing(
    signed_in, task, task_url, changes, reason
):
    before = stored(task.record_id)
    response = submit(signed_in, task_url, "/status", {"status-state": "COMPLETED", **changes})
    assert response.status_code == 422
    shown = soup(response)
    assert alert(shown)
    assert [e.get_text(strip=True) for e in shown.select("#status .field-error")] == [reason]
    assert stored(task.record_id) == before


# --- Transfer and delete ----------------------------------------------------------------


def test_transfer_moves_the_task_and_its_url_stays(signed_in, task, task_url):
    form = find_form(page(signed_in, task_url), "/transfer")
    options = form.find("select", attrs={"name": "transfer-destination"})("option")
    assert [o["value"] for o in options] == ["Renewals", "Winback"]
    response = submit(signed_in, task_url, "/transfer", {"transfer-destination": "Winback"})
    assert (response.status_code, response.location) == (302, task_url)
    campaign, _, queue, *_ = stored(task.record_id)
    assert (campaign, queue) == ("Winback", "Support")  # the destination's default queue
    fields = page(signed_in, task_url).find("table", class_="fields")
    assert fields.find("th", string="Campaign").find_next("td").get_text() == "Winback"


def test_transfer_to_a_campaign_with_the_same_client_id_is_refused(
    signed_in, task, task_url, winback
):
    add_task(winback, "C1")
    before = stored(task.record_id)
    response = submit(signed_in, task_url, "/transfer", {"transfer-destination": "Winback"})
    assert "clientId 'C1' already exists in campaign 'Winback'" in refusal(response)
    assert stored(task.record_id) == before


def test_delete_asks_for_confirmation_then_deletes(signed_in, acme, renewals, task, task_url):
    record_id = task.record_id
    link = page(signed_in, task_url).find("a", string=lambda s: s and s.startswith("Delete"))
    confirm = page(signed_in, link["href"])
    assert link["href"] == task_url + f"/delete?version={task.version}"
    assert stored(record_id) is not None  # asking deletes nothing
    form = find_form(confirm, None)
    assert form.find("button", type="submit").get_text() == "Delete task"
    response = signed_in.post(task_url + "/delete", data=form_values(form))
    assert (response.status_code, response.location) == (
        302, f"/tenants/{acme.id}/campaigns/{renewals.id}"
    )  # fmt: skip
    assert stored(record_id) is None
    assert signed_in.get(task_url).status_code == 404
    assert signed_in.get(task_url + "/agent").status_code == 404


# --- New task ---------------------------------------------------------------------------


@pytest.fixture
def new_url(acme, renewals) -> str:
    return f"/tenants/{acme.id}/campaigns/{renewals.id}/tasks/new"


def campaign_tasks(campaign) -> list[Task]:
    db.session.expire_all()
    return db.session.scalars(
        select(Task).filter_by(campaign_id=campaign.id).order_by(Task.id)
    ).all()


def tasks_of(campaign) -> list[tuple[str, list[tuple[str, str]]]]:
    return [(t.client_id, [(i.key, i.value) for i in t.items]) for t in campaign_tasks(campaign)]


def test_the_new_task_form_adds_a_task(signed_in, acme, renewals, new_url):
    form = find_form(page(signed_in, new_url), None)
    values = form_values(form)
    assert values["items-0-key"] == "Name"
    assert values["next_zone"] == "America/New_York"  # the campaign's zone
    response = submit(
        signed_in,
        new_url,
        None,
        {
            "client_id": "N1",
            "preferred_agent": "agent7",
            "next_time": "2030-01-02T03:30",
            "items-0-value": "Nina",
            "items-1-key": "Phone",
            "items-1-value": E164,
        },
    )
    assert response.status_code == 302
    (added,) = campaign_tasks(renewals)
    assert response.location == f"/tenants/{acme.id}/tasks/{added.record_id}"
    assert (added.preferred_agent, added.next_earliest_work_at) == (
        "agent7", datetime(2030, 1, 2, 8, 30, tzinfo=UTC)
    )  # fmt: skip
    assert tasks_of(renewals) == [("N1", [("Id", "N1"), ("Name", "Nina"), ("Phone", E164)])]


def test_a_new_task_with_an_existing_client_id_is_refused(signed_in, renewals, new_url):
    add_task(renewals, "C1", {"Name": "Old", "Plan": "Gold"})
    response = submit(signed_in, new_url, None, {"client_id": "C1", "items-0-value": "New"})
    assert "already has a task with clientId 'C1'" in refusal(response)
    assert tasks_of(renewals) == [("C1", [("Id", "C1"), ("Name", "Old"), ("Plan", "Gold")])]


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"client_id": ""}, "This field is required."),
        ({"items-1-key": "Phone", "items-1-value": "12345"}, "is not an E.164 number"),
        ({"items-1-key": "Id", "items-1-value": "x"}, "is the clientId field name"),
        ({"items-1-key": "Name", "items-1-value": "x"}, "is sent twice"),
        ({"items-1-key": "Plan", "items-1-display_order": "0"}, "greater than zero"),
    ],
    ids=["no-client-id", "bad-phone", "clientid-key", "duplicate-key", "order-zero"],
)
def test_a_refused_new_task_shows_the_reason_and_adds_nothing(
    signed_in, renewals, new_url, changes, reason
):
    response = submit(
        signed_in, new_url, None, {"client_id": "N1", "items-0-value": "Nina", **changes}
    )
    assert reason in refusal(response)
    assert tasks_of(renewals) == []
