"""The Numbers and consent form of a campaign's Delivery settings page: the default
country, where a task's zones come from and whose consent is required, each through the
service the operator's commands call; a refused form keeps what was typed, says why beside
its field and changes nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Campaign
from tests.admin.conftest import find_form, form_values, page
from tests.campaigns.test_dialing_page import beside, refused, url


def post(client, acme, campaign, changes: dict):
    form = find_form(page(client, url(acme, campaign)), "/numbers")
    return client.post(form["action"], data={**form_values(form), **changes})


def stored(campaign) -> tuple:
    db.session.expire_all()
    c = db.session.get(Campaign, campaign.id)
    return c.default_country, c.zone_from, c.consent_required, c.consent_keys


def test_the_form_saves_each_setting_and_the_page_says_them(signed_in, acme, renewals):
    changes = {
        "numbers-default_country": "us",
        "numbers-zone_from": "number",
        "numbers-consent": "keys",
        "numbers-consent_keys": "Mobile Phone, Cell",
    }
    answer = post(signed_in, acme, renewals, changes)
    assert answer.status_code == 302 and answer.location.endswith("/delivery#numbers")
    assert stored(renewals) == ("US", "number", "keys", "Mobile Phone, Cell")
    shown = page(signed_in, url(acme, renewals))
    said = shown.find(id="numbers").find("strong").get_text(" ", strip=True)
    assert said == (
        "default country US; a task without ItemTimeZone is called in its numbers' zones; "
        "consent required for the numbers under Mobile Phone, Cell"
    )
    assert shown.find(id="numbers-default_country")["value"] == "US"
    kinds = set(db.session.scalars(select(AuditRecord.action)))
    assert {"campaign.default_country_set", "campaign.consent_required_set"} <= kinds
    back = post(
        signed_in, acme, renewals, {"numbers-default_country": "", "numbers-consent": "all"}
    )
    assert back.status_code == 302
    assert stored(renewals) == (None, "number", "all", "")


@pytest.mark.parametrize(
    ("changes", "field_id", "words"),
    [
        ({"numbers-default_country": "XX"}, "numbers-default_country", "is not a country code"),
        ({"numbers-consent": "keys", "numbers-consent_keys": " , "}, "numbers-consent_keys",
         "phone keys"),
    ],
    ids=["unknown country", "keys without a key"],
)  # fmt: skip
def test_a_refused_form_keeps_what_was_typed_and_changes_nothing(
    signed_in, acme, renewals, changes, field_id, words
):
    before = stored(renewals)
    # The zone is changed too: one refusal rolls back the whole form.
    shown = refused(post(signed_in, acme, renewals, {**changes, "numbers-zone_from": "number"}))
    assert words in beside(shown, field_id)
    assert shown.find(id="numbers-zone_from-1").has_attr("checked")
    typed = changes.get("numbers-default_country")
    if typed:
        assert shown.find(id="numbers-default_country")["value"] == typed
    else:
        assert shown.find(id="numbers-consent-2").has_attr("checked")
    assert stored(renewals) == before
