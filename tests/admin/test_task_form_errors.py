"""A refused form speaks the form's words and marks the field at fault: "Next earliest
time …", "Row 2: value …" (the row as numbered on the page), never the API's field names
(`nextEarliestWorkTimeUTC`) or 0-based indexes (`previewRecordData[1]`)."""

from __future__ import annotations

import re

import pytest

from app.extensions import db
from app.services.tenants.setup import create_user_template
from tests.admin.conftest import add_task, alert, find_form, page, said_beside, soup, submit
from tests.conftest import SETUP

E164 = "+14155550123"
API_WORDS = re.compile(r"previewRecordData|nextEarliestWorkTimeUTC|\[\d+\]|loginUserId|Addr\b")
NEW_TASK = {"client_id": "N1", "items-0-value": "Nina"}
USER = {
    "user-login_user_id": "dan",
    "user-first_name": "Dan",
    "user-last_name": "Ray",
    "user-template": "Agent",
}

# page, form (its action's end; None: the page's own), changes, the message beside the field,
# the field marked (the summary at the top links to it)
CASES = {
    "status-worked-without-time": (
        "task", "/status", {"status-state": "WORKED"},
        "Next earliest time is required when the new state is WORKED", "status-next_time",
    ),
    "items-bad-phone": (
        "task", "/items", {"data-items-1-key": "Phone", "data-items-1-value": "555"},
        "Row 2: Value: '555' of phone key 'Phone' is not an E.164 number", "data-items-1-value",
    ),
    "items-not-a-number": (
        "task", "/items", {"data-items-0-display_order": "first"},
        "Row 1: Order: Not a valid integer value", "data-items-0-display_order",
    ),
    # Blank rows are dropped before the service numbers the items: the row is the page's.
    "new-task-row-after-blank-rows": (
        "new", None, {**NEW_TASK, "items-3-key": "Phone", "items-3-value": "12345"},
        "Row 4: Value: '12345' of phone key 'Phone' is not an E.164 number", "items-3-value",
    ),
    "new-task-order-zero": (
        "new", None, {**NEW_TASK, "items-1-key": "Plan", "items-1-display_order": "0"},
        "Row 2: Order: Must be greater than zero", "items-1-display_order",
    ),
    "new-task-duplicate-key": (
        "new", None, {**NEW_TASK, "items-2-key": "Name", "items-2-value": "x"},
        "Row 3: Key: 'Name' is sent twice", "items-2-key",
    ),
    "campaign-duplicate": (
        "campaigns", "/campaigns", {"campaign-name": "Renewals"},
        "campaign 'Renewals' already exists", "campaign-name",
    ),
    "queue-duplicate": (
        "campaigns", "/queues", {"queue-name": "Sales"},
        "skill queue 'Sales' already exists", "queue-name",
    ),
    "user-bad-email": (
        "users", "/users", {**USER, "user-secondary_email": "not-an-email"},
        "Secondary e-mail 'not-an-email' is not a valid e-mail address", "user-secondary_email",
    ),
    "user-instance-name": (
        "users", "/users",
        {**USER, "user-login_user_id": "has space", "user-create_in_instance": "y"},
        "Login user id must be 1 to 100 letters", "user-login_user_id",
    ),
    "template-desk-phone": (
        "users", "/templates", {"template-name": "Desk", "template-phone_type": "DESK_PHONE"},
        "needs an E.164 desk phone number", "template-desk_phone_number",
    ),
}  # fmt: skip


@pytest.fixture
def urls(acme, renewals) -> dict[str, str]:
    task = add_task(renewals, "C1", {"Name": "Ann", "Plan": "Gold"})
    create_user_template(acme, "Agent", actor=SETUP)
    db.session.commit()
    return {
        "task": f"/tenants/{acme.id}/tasks/{task.record_id}",
        "new": f"/tenants/{acme.id}/campaigns/{renewals.id}/tasks/new",
        "campaigns": f"/tenants/{acme.id}/campaigns",
        "users": f"/tenants/{acme.id}/users",
    }


@pytest.mark.parametrize(
    ("where", "form", "changes", "said", "at_fault"), CASES.values(), ids=CASES
)
def test_a_refusal_names_the_field_as_the_form_does_and_marks_it(
    signed_in, urls, where, form, changes, said, at_fault
):
    response = submit(signed_in, urls[where], form, changes)
    assert response.status_code == 422
    shown = soup(response)
    # The reason is beside the field, which points at it; the summary links to the field.
    message = said_beside(shown, at_fault)
    assert said in message
    assert not API_WORDS.search(message + alert(shown)), message
    sent = find_form(shown, form)
    assert [f["name"] for f in sent.select("[aria-invalid=true]")] == [at_fault]


@pytest.mark.parametrize(
    ("changes", "beside_row"),
    [
        (
            {"data-items-1-key": "Phone", "data-items-1-value": "12345"},
            "Row 2: Value: '12345' of phone key 'Phone' is not an E.164 number",
        ),
        (
            {"data-items-1-key": "Plan", "data-items-1-display_order": "0"},
            "Row 2: Order: Must be greater than zero",
        ),
    ],
    ids=["phone-value", "order"],
)
def test_a_rows_message_names_the_field_once(signed_in, urls, changes, beside_row):
    """The row's message says the field's name, then the reason, without saying the name
    twice ("Row 2: Value: Value '12345' ..." before)."""
    shown = soup(submit(signed_in, urls["task"], "/items", changes))
    beside = shown.select_one("tr.row-error .field-error").get_text(" ", strip=True)
    assert re.sub(r"\s+", " ", beside).startswith(beside_row)
    assert not re.search(r"\b(\w+): \1\b", beside, re.IGNORECASE), beside


def test_a_field_without_fault_is_not_marked(signed_in, urls):
    shown = page(signed_in, urls["task"])
    assert not shown.select("[aria-invalid]")


def test_a_refusal_about_all_the_items_says_data_items(signed_in, urls):
    """A refusal about the data items as a whole marks no row (the rows' list is no field
    with a label): the summary says it in the task's words, "Data items holds at most…"."""
    rows = {f"items-{n}-key": f"K{n}" for n in range(1, 501)}
    rows |= {f"items-{n}-value": "v" for n in range(1, 501)}
    response = submit(signed_in, urls["new"], None, {**NEW_TASK, **rows})
    assert response.status_code == 422
    said = alert(soup(response))
    assert "Data items holds at most 500 items" in said, said
