"""The console's Consent page: a number's history and what it leaves in force; consent
given or revoked for several numbers at once through the ledger's own service (an audit
record and an event each), redirecting to the first number's history; a refused form keeps
what was typed, says why beside its field and records nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord
from app.models.consent import ConsentRecord
from tests.admin.conftest import find_form, form_values, page, soup

A, B = "+14155550100", "+14155550101"


def url(acme) -> str:
    return f"/tenants/{acme.id}/consent"


def post(client, acme, changes: dict):
    form = find_form(page(client, url(acme)), "/consent")
    return client.post(form["action"], data={**form_values(form), **changes})


def records() -> int:
    return db.session.scalar(select(func.count()).select_from(ConsentRecord))


def test_given_for_a_campaign_then_revoked_reads_in_the_history(signed_in, acme, renewals):
    given = {
        "consent-numbers": f"{A}, {B}",
        "consent-at": "2026-03-01T09:30",
        "consent-source": "web form",
        "consent-campaign": "Renewals",
        "consent-purpose": "renewal offers",
    }
    answer = post(signed_in, acme, given)
    assert answer.status_code == 302
    assert answer.location.endswith(f"/consent?number=%2B{A[1:]}")
    shown = page(signed_in, answer.location)
    assert "Recorded consent given for 2 numbers." in shown.get_text()
    history = shown.find("section", class_="consent-history")
    assert history.find("h2").get_text(strip=True) == (
        f"{A}: consent in force for campaign Renewals"
    )
    [row] = [[td.get_text(strip=True) for td in tr.find_all("td")]
             for tr in history.find("tbody").find_all("tr")]  # fmt: skip
    assert row[:6] == [
        "2026-03-01 09:30:00 UTC", "Given", "web form", "campaign Renewals",
        "renewal offers", "supervisor:boss@example.com",
    ]  # fmt: skip
    revoked = {"consent-action": "revoked", "consent-numbers": A, "consent-source": "by phone"}
    assert post(signed_in, acme, revoked).status_code == 302
    shown = page(signed_in, f"{url(acme)}?number=%2B{A[1:]}")
    history = shown.find("section", class_="consent-history")
    assert history.find("h2").get_text(strip=True) == f"{A}: no consent in force"
    actions = db.session.scalars(select(AuditRecord.action).order_by(AuditRecord.id)).all()
    assert actions[-3:] == ["consent.given", "consent.given", "consent.revoked"]


@pytest.mark.parametrize(
    ("changes", "field_id", "words"),
    [
        ({"consent-numbers": f"{A} 4155550101"}, "consent-numbers", "E.164"),
        ({"consent-numbers": A, "consent-at": "2099-01-01T00:00"}, "consent-at", "in the future"),
        ({"consent-numbers": A, "consent-action": "revoked", "consent-campaign": "Renewals"},
         "consent-campaign", "every campaign"),
        ({"consent-numbers": A, "consent-source": "x" * 300}, "consent-source", "255"),
    ],
    ids=["not E.164", "future", "revoked for one campaign", "source too long"],
)  # fmt: skip
def test_a_refused_form_keeps_what_was_typed_and_records_nothing(
    signed_in, acme, renewals, changes, field_id, words
):
    answer = post(signed_in, acme, changes)
    assert answer.status_code == 422
    shown = soup(answer)
    field = shown.find(id=field_id)
    assert field["aria-invalid"] == "true"
    assert words in shown.find(id=f"{field_id}-error").get_text(" ", strip=True)
    assert shown.find(id="consent-numbers").get_text().lstrip("\r\n") == changes["consent-numbers"]
    assert records() == 0


def test_a_lookup_of_a_number_that_is_not_e164_says_so(signed_in, acme):
    shown = page(signed_in, f"{url(acme)}?number=4155550100")
    assert shown.find(id="number")["aria-invalid"] == "true"
    assert "E.164" in shown.find(id="number-error").get_text()
    none = page(signed_in, f"{url(acme)}?number=%2B{A[1:]}")
    assert none.find("section", class_="consent-history").find("h2").get_text(strip=True) == (
        f"{A}: no consent on record"
    )
