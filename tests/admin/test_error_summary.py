"""A refused form says each message once: in full beside its field (the input `aria-invalid`,
described by the message), and at the top of the page a summary (role=alert) that names the
field and links to its input; what is about no field is said in the summary, and only there."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.services.tenants.setup import create_user_template
from tests.admin.conftest import (
    add_task,
    find_form,
    form_values,
    page,
    said_beside,
    soup,
    submit,
    text,
)
from tests.admin.test_task_form_errors import USER
from tests.conftest import SETUP

# page, its form (the action's end; None: the page's own), changes, the field at fault,
# words of its message, the name the summary gives it.
REFUSED = {
    "campaign-settings": (
        "settings", "/edit", {"settings-time_zone": "Mars/Olympus"},
        "settings-time_zone", "is not an IANA time zone name", "Default time zone",
    ),
    "user": (
        "users", "/users", {**USER, "user-secondary_email": "not-an-email"},
        "user-secondary_email", "is not a valid e-mail address", "Secondary e-mail",
    ),
    "hours": (
        "hours", "/hours", {"new-name": "Office", "new-time_zone": "UTC", "new-tue": "8-18"},
        "new-tue", "'8' is not a time of day", "Tuesday",
    ),
    "work-code-group": (
        "work_codes", "/work-codes", {"group-name": ""},
        "group-name", "This field is required", "Group name",
    ),
    "task-status": (
        "task", "/status", {"status-state": "WORKED"},
        "status-next_time", "is required when the new state is WORKED", "Next earliest time",
    ),
    "task-items-row": (
        "task", "/items", {"data-items-1-key": "Phone", "data-items-1-value": "555"},
        "data-items-1-value", "'555' of phone key 'Phone' is not an E.164 number",
        "Value in row 2",
    ),
    "webhook": (
        "webhook", None, {"url": "ftp://crm.example.com/x"},
        "url", "http:// or https://", "URL",
    ),
}  # fmt: skip


@pytest.fixture
def urls(acme, renewals) -> dict[str, str]:
    task = add_task(renewals, "C1", {"Name": "Ann", "Plan": "Gold"})
    create_user_template(acme, "Agent", actor=SETUP)
    db.session.commit()
    tenant = f"/tenants/{acme.id}"
    return {
        "settings": f"{tenant}/campaigns/{renewals.id}/edit",
        "users": f"{tenant}/users",
        "hours": f"{tenant}/hours",
        "work_codes": f"{tenant}/work-codes",
        "task": f"{tenant}/tasks/{task.record_id}",
        "webhook": f"{tenant}/webhooks/new",
    }


@pytest.mark.parametrize(
    ("where", "form", "changes", "at_fault", "words", "named"), REFUSED.values(), ids=REFUSED
)
def test_a_fields_message_is_said_once_beside_it_and_the_summary_links_to_it(
    signed_in, urls, where, form, changes, at_fault, words, named
):
    response = submit(signed_in, urls[where], form, changes)
    assert response.status_code == 422
    shown = soup(response)
    marked = shown.select("[aria-invalid=true]")
    assert [field["name"] for field in marked] == [at_fault]
    # Beside the field (the element its input is described by), said once on the whole
    # page: not again in the summary, which links to it.
    message = said_beside(shown, at_fault)
    beside = shown.find(id=marked[0]["aria-describedby"].split()[0])
    assert words in message and "field-error" in beside["class"]
    assert text(shown).count(words) == 1
    # The summary, first in the page's content, links to the marked input by its id.
    summary = shown.select_one("main > .error-summary")
    assert summary is shown.find("main").find(True) and summary["role"] == "alert"
    links = [(a["href"], text(a)) for a in summary.select("a")]
    assert links == [(f"#{marked[0]['id']}", named)]


def test_a_refusal_about_no_field_is_said_once_in_the_summary(signed_in, urls):
    """A form without the version it showed is out of date as a whole: no field is marked."""
    values = form_values(find_form(page(signed_in, urls["task"]), "/status"))
    values.pop("status-version")
    values["status-state"] = "REMOVED"
    response = signed_in.post(urls["task"] + "/status", data=values)
    assert response.status_code == 422
    shown = soup(response)
    summary = shown.select_one("main > .error-summary")
    assert summary["role"] == "alert" and "This page is out of date" in text(summary)
    assert text(shown).count("This page is out of date") == 1
    assert not shown.select("[aria-invalid], .field-error") and not summary.select("a")


def test_a_conflict_is_said_once_in_the_summary(signed_in, urls):
    """A save from an older copy of the page is refused as a whole: said at the top only."""
    older = page(signed_in, urls["task"])
    saved = submit(signed_in, urls["task"], "/status", {"status-state": "COMPLETED"})
    assert saved.status_code == 302
    values = form_values(find_form(older, "/status"))
    values["status-preferred_agent"] = "agent8"
    response = signed_in.post(urls["task"] + "/status", data=values)
    assert response.status_code == 422
    shown = soup(response)
    summary = shown.select_one("main > .error-summary")
    assert "Someone else changed this task" in text(summary)
    assert text(shown).count("Someone else changed this task") == 1
    assert not shown.select("[aria-invalid], .field-error")


def test_a_list_of_options_at_fault_is_linked_at_its_first_option(signed_in, urls):
    """Checkboxes are one field: each is marked and described by its one message, and the
    summary goes to the first."""
    sent = {"url": "https://crm.example.com/hook", "types": ["task.nope"]}
    response = signed_in.post(urls["webhook"], data=sent)
    assert response.status_code == 422
    shown = soup(response)
    summary = shown.select_one("main > .error-summary")
    assert [a["href"] for a in summary.select("a")] == ["#types-0"]
    first = shown.find(id="types-0")
    assert first["aria-invalid"] == "true" and first["aria-describedby"] == "types-error"
    assert text(shown).count(text(shown.find(id="types-error"))) == 1
