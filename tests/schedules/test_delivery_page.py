"""The campaign's Delivery settings page: calling window and attempts, with CSRF, access,
errors beside the field at fault, and a redirect after each save."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord
from app.services.campaigns.catalogue import find_campaign
from app.services.schedules.calling_windows import set_calling_window
from tests.admin.conftest import (
    csrf_token,
    find_form,
    form_values,
    make_supervisor,
    page,
    session_for,
    soup,
)
from tests.admin.test_security import assert_no_inline_script_or_style
from tests.conftest import SETUP, make_tenant
from tests.schedules.window_support import stored

CSRF_ON = pytest.mark.parametrize(
    "settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf-on"]
)


def url(acme, campaign, end: str = "") -> str:
    return f"/tenants/{acme.id}/campaigns/{campaign.id}/delivery{end}"


def post(client, acme, campaign, end: str, changes: dict):
    """Fill the page's form posting to …`end` as a browser would, with `changes`."""
    form = find_form(page(client, url(acme, campaign)), end)
    values = form_values(form)
    for name, value in changes.items():
        values[name] = value
    return client.post(form["action"], data=values)


def field_error(response, field_id: str) -> str:
    """The message shown beside the field, which is marked invalid."""
    shown = page_of(response)
    assert shown.find(id=field_id)["aria-invalid"] == "true"
    return shown.find(id=f"{field_id}-error").get_text(" ", strip=True)


def page_of(response):
    assert response.status_code == 422, response.status_code
    return soup(response)


def test_the_page_shows_the_settings_as_they_are(signed_in, acme, renewals):
    set_calling_window(renewals, 1200, 120, actor=SETUP)
    renewals.max_attempts = 4
    db.session.commit()
    shown = page(signed_in, url(acme, renewals))
    text = shown.find("main").get_text(" ", strip=True)
    assert "20:00-02:00 (past midnight)" in text
    assert "4 attempts per task" in text
    assert shown.find(id="window-opens_at")["value"] == "20:00"
    assert shown.find(id="window-closes_at")["value"] == "02:00"
    assert shown.find(id="window-when-1").has_attr("checked")
    assert shown.find(id="attempts-max_attempts")["value"] == "4"


def test_a_window_is_saved_then_the_page_shown_again(signed_in, acme, renewals):
    changes = {"window-when": "window", "window-opens_at": "08:00", "window-closes_at": "21:00"}
    answer = post(signed_in, acme, renewals, "/window", changes)
    assert answer.status_code == 302
    assert answer.location.endswith(url(acme, renewals))
    assert stored(renewals)[:2] == (480, 1260)
    shown = page(signed_in, url(acme, renewals)).get_text(" ", strip=True)
    assert "calls its tasks 08:00-21:00, in each task's time zone" in shown
    record = db.session.scalar(select(AuditRecord).filter_by(action="campaign.window_set"))
    assert (record.actor_kind, record.actor_id) == ("supervisor", "boss@example.com")


def test_any_time_removes_the_window(signed_in, acme, renewals):
    set_calling_window(renewals, 480, 1260, actor=SETUP)
    db.session.commit()
    answer = post(signed_in, acme, renewals, "/window", {"window-when": "any"})
    assert answer.status_code == 302
    assert stored(renewals)[:2] == (None, None)


@pytest.mark.parametrize(
    ("changes", "field_id", "words"),
    [
        (
            {"window-when": "window", "window-opens_at": "08:00", "window-closes_at": "08:00"},
            "window-closes_at",
            "Closing time must differ from the opening time",
        ),
        (
            {"window-when": "window", "window-opens_at": "", "window-closes_at": "21:00"},
            "window-opens_at",
            "Required for a window",
        ),
        (
            {"window-when": "window", "window-opens_at": "25:00", "window-closes_at": "21:00"},
            "window-opens_at",
            "Not a valid time",
        ),
    ],
)
def test_a_bad_window_is_refused_beside_its_field(
    signed_in, acme, renewals, changes, field_id, words
):
    answer = post(signed_in, acme, renewals, "/window", changes)
    assert words in field_error(answer, field_id)
    assert stored(renewals)[:2] == (None, None)
    # What was typed is kept.
    assert page_of(answer).find(id="window-closes_at")["value"] == changes["window-closes_at"]


def test_max_attempts_is_saved_and_removed(signed_in, acme, renewals):
    answer = post(signed_in, acme, renewals, "/max-attempts", {"attempts-max_attempts": "3"})
    assert answer.status_code == 302
    assert stored(renewals)[2] == 3
    answer = post(signed_in, acme, renewals, "/max-attempts", {"attempts-max_attempts": ""})
    assert answer.status_code == 302
    assert stored(renewals)[2] is None


@pytest.mark.parametrize(
    ("value", "words"),
    [("0", "Maximum attempts must be 1 to 1000"), ("1001", "1 to 1000"), ("lots", "integer")],
)
def test_bad_max_attempts_is_refused_beside_its_field(signed_in, acme, renewals, value, words):
    answer = post(signed_in, acme, renewals, "/max-attempts", {"attempts-max_attempts": value})
    assert words in field_error(answer, "attempts-max_attempts")
    assert stored(renewals)[2] is None


def test_a_supervisor_of_another_tenant_sees_no_such_page(client, acme, renewals):
    other, _key = make_tenant("Other", "prod")
    session_for(client, make_supervisor("other@example.com", [other]))
    assert client.get(url(acme, renewals)).status_code == 404
    answer = client.post(url(acme, renewals, "/max-attempts"), data={"attempts-max_attempts": "2"})
    assert answer.status_code == 404
    assert stored(renewals)[2] is None


def test_a_campaign_of_another_tenant_is_not_found_under_this_one(signed_in, acme):
    other, _key = make_tenant("Other", "prod")
    theirs = find_campaign(other, "Renewals")
    assert signed_in.get(url(acme, theirs)).status_code == 404


def test_signed_out_the_page_asks_for_a_sign_in(client, acme, renewals):
    assert client.get(url(acme, renewals)).status_code == 302
    answer = client.post(url(acme, renewals, "/window"), data={"window-when": "any"})
    assert answer.status_code == 302
    assert "/login" in answer.location


@CSRF_ON
def test_a_save_without_its_token_is_refused_and_changes_nothing(signed_in, acme, renewals):
    form = find_form(page(signed_in, url(acme, renewals)), "/max-attempts")
    values = form_values(form)
    values["attempts-max_attempts"] = "3"
    assert csrf_token(page(signed_in, url(acme, renewals)))
    without = values.copy()
    del without["attempts-csrf_token"]
    assert signed_in.post(form["action"], data=without).status_code == 400
    assert stored(renewals)[2] is None
    assert signed_in.post(form["action"], data=values).status_code == 302
    assert stored(renewals)[2] == 3


@CSRF_ON
def test_the_page_has_no_inline_script_and_a_token_in_each_form(signed_in, acme, renewals):
    shown = page(signed_in, url(acme, renewals))
    assert_no_inline_script_or_style(shown)
    for form in shown.find_all("form", method="post"):
        assert any(n.endswith("csrf_token") for n in form_values(form)), form.get("action")
