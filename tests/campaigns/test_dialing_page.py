"""The Dialling form of a campaign's Delivery settings page: the countdown, skipping, and
for Amazon Connect tenants the call's placement; CSRF, a redirect after each save, a refused
form kept as typed with the reason beside its field; the campaign page's summary."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord
from app.services.campaigns.dialing import set_dialing
from app.services.tenants.setup import set_instance
from tests.admin.conftest import csrf_token, find_form, form_values, page, soup
from tests.campaigns.test_dialing import DEFAULTS, FLOW, INSTANCE, QUEUE_ARN, stored
from tests.conftest import SETUP

CSRF_ON = pytest.mark.parametrize(
    "settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf-on"]
)


def url(acme, campaign) -> str:
    return f"/tenants/{acme.id}/campaigns/{campaign.id}/delivery"


def post(client, acme, campaign, changes: dict, drop: tuple[str, ...] = ()):
    """Fill the Dialling form as a browser would, with `changes` (unticked boxes dropped)."""
    form = find_form(page(client, url(acme, campaign)), "/dialing")
    values = {**form_values(form), **changes}
    for name in drop:
        values.pop(name, None)
    return client.post(form["action"], data=values)


def refused(response):
    assert response.status_code == 422, response.status_code
    return soup(response)


def beside(shown, field_id: str) -> str:
    assert shown.find(id=field_id)["aria-invalid"] == "true"
    return shown.find(id=f"{field_id}-error").get_text(" ", strip=True)


@pytest.fixture
def on_connect(acme):
    arn = f"arn:aws:connect:eu-west-2:123456789012:instance/{INSTANCE}"
    set_instance(acme, "amazon-connect", arn, "eu-west-2", actor=SETUP)
    db.session.commit()
    return acme


def test_the_form_shows_the_saved_settings(signed_in, acme, renewals):
    set_dialing(renewals, auto_dial_seconds=20, can_skip=False, actor=SETUP)
    db.session.commit()
    shown = page(signed_in, url(acme, renewals))
    assert "dials after 20 s, no skipping" in shown.find(id="dialing").get_text(" ", strip=True)
    assert shown.find(id="dialing-countdown-1").has_attr("checked")
    assert shown.find(id="dialing-seconds")["value"] == "20"
    assert not shown.find(id="dialing-can_skip").has_attr("checked")
    # A tenant not on Amazon Connect is not asked about it.
    assert shown.find(id="dialing-queue_arn") is None


def test_a_countdown_without_skipping_is_saved_then_the_page_shown_again(signed_in, acme, renewals):
    changes = {"dialing-countdown": "countdown", "dialing-seconds": "20"}
    answer = post(signed_in, acme, renewals, changes, drop=("dialing-can_skip",))
    assert answer.status_code == 302
    assert answer.location.endswith(url(acme, renewals))
    assert stored(renewals) == (20, False, "desk", None, None, None)
    record = db.session.scalar(select(AuditRecord).filter_by(action="campaign.updated"))
    assert (record.actor_kind, record.actor_id) == ("supervisor", "boss@example.com")
    shown = page(signed_in, url(acme, renewals)).get_text(" ", strip=True)
    assert "dialling: preview with a countdown: the desk dials after 20 s, no skipping" in shown


def test_off_removes_the_countdown_and_ignores_the_seconds(signed_in, acme, renewals):
    set_dialing(renewals, auto_dial_seconds=20, can_skip=True, actor=SETUP)
    db.session.commit()
    answer = post(signed_in, acme, renewals, {"dialing-countdown": "off", "dialing-seconds": "9"})
    assert answer.status_code == 302
    assert stored(renewals)[:2] == (None, True)


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        ("4", "Seconds of preview before the desk dials must be 5 to 300"),
        ("301", "must be 5 to 300"),
        ("", "Required for a countdown"),
        ("soon", "Not a valid integer"),
    ],
)
def test_a_bad_countdown_is_refused_beside_its_field_and_kept(
    signed_in, acme, renewals, seconds, words
):
    changes = {"dialing-countdown": "countdown", "dialing-seconds": seconds}
    shown = refused(post(signed_in, acme, renewals, changes, drop=("dialing-can_skip",)))
    assert words in beside(shown, "dialing-seconds")
    assert shown.find(id="dialing-countdown-1").has_attr("checked")
    assert not shown.find(id="dialing-can_skip").has_attr("checked")  # as typed
    assert stored(renewals) == DEFAULTS


def test_a_connect_tenant_sets_who_places_the_calls(signed_in, on_connect, renewals):
    changes = {
        "dialing-placement": "contact-flow",
        "dialing-queue_arn": QUEUE_ARN,
        "dialing-contact_flow_id": FLOW,
        "dialing-caller_id": "+442071838750",
    }
    answer = post(signed_in, on_connect, renewals, changes)
    assert answer.status_code == 302
    assert stored(renewals) == (None, True, "contact-flow", QUEUE_ARN, FLOW, "+442071838750")
    shown = page(signed_in, url(on_connect, renewals))
    assert shown.find(id="dialing-queue_arn")["value"] == QUEUE_ARN
    assert "placed by the contact flow" in shown.get_text(" ", strip=True)


@pytest.mark.parametrize(
    ("changes", "field_id", "words"),
    [
        ({"dialing-queue_arn": "queue-1"}, "dialing-queue_arn", "Outbound queue ARN must look"),
        ({"dialing-caller_id": "0207"}, "dialing-caller_id", "Caller id must be an E.164"),
        (
            {"dialing-placement": "contact-flow", "dialing-queue_arn": QUEUE_ARN},
            "dialing-contact_flow_id",
            "Contact flow id is required",
        ),
        ({"dialing-placement": "phone"}, "dialing-placement", "Not a valid choice"),
    ],
)
def test_bad_connect_settings_are_refused_beside_their_field(
    signed_in, on_connect, renewals, changes, field_id, words
):
    shown = refused(post(signed_in, on_connect, renewals, changes))
    assert words in beside(shown, field_id)
    for name, value in changes.items():
        if name != "dialing-placement":
            assert shown.find(attrs={"name": name})["value"] == value
    assert stored(renewals) == DEFAULTS


def test_the_campaign_page_shows_the_dialling(signed_in, acme, renewals):
    renewals.type = "progressive"
    set_dialing(renewals, auto_dial_seconds=30, can_skip=True, actor=SETUP)
    db.session.commit()
    shown = page(signed_in, f"/tenants/{acme.id}/campaigns/{renewals.id}")
    text = shown.find("hgroup").get_text(" ", strip=True)
    assert "Dialling: progressive: the desk dials after 30 s, skipping allowed" in text


@CSRF_ON
def test_a_save_without_its_token_is_refused_and_changes_nothing(signed_in, acme, renewals):
    form = find_form(page(signed_in, url(acme, renewals)), "/dialing")
    values = {**form_values(form), "dialing-countdown": "countdown", "dialing-seconds": "20"}
    assert csrf_token(page(signed_in, url(acme, renewals)))
    without = {k: v for k, v in values.items() if k != "dialing-csrf_token"}
    assert signed_in.post(form["action"], data=without).status_code == 400
    assert stored(renewals) == DEFAULTS
    assert signed_in.post(form["action"], data=values).status_code == 302
    assert stored(renewals)[0] == 20


def test_a_get_of_the_form_url_goes_back_to_the_page(signed_in, acme, renewals):
    answer = signed_in.get(url(acme, renewals) + "/dialing")
    assert answer.status_code == 302 and answer.location.endswith(url(acme, renewals))
