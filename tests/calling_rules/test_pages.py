"""The Contact rules page's regional calling rules: listed with what each does now, added,
removed, the US pack loaded; a refused rule comes back as typed with the reason beside its
field."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import CallingRule
from app.services.calling_rules import pack
from tests.admin.conftest import page, said_beside, soup
from tests.calls.calls_support import add_phones

FLORIDA = {
    "rule-region": "US-FL",
    "rule-hours": "08:00-20:00",
    "rule-days": "",
    "rule-no_calls_on": "",
    "rule-max_count": "3",
    "rule-within": "24h",
    "rule-per": "person",
    "rule-source": "Fla. Stat. 501.616",
}


def _rules() -> list[CallingRule]:
    db.session.expire_all()
    return list(db.session.scalars(select(CallingRule).order_by(CallingRule.id)))


def test_a_supervisor_adds_removes_and_sees_what_a_rule_does_now(signed_in, acme, renewals):
    url = f"/tenants/{acme.id}/contact-rules"
    assert "No regional calling rule" in page(signed_in, url).get_text()
    add_phones(renewals, "c1", Phone="+13055550100")  # a Florida number, New York's zone
    done = signed_in.post(url + "/calling-rules", data=FLORIDA)
    assert done.status_code == 302 and done.location.endswith(url)
    [rule] = _rules()
    shown = page(signed_in, url)
    words = "US-FL: calls 08:00-20:00, at most 3 calls within 24 hours per person"
    assert f"Calling rule {rule.id} added: {words}." in shown.get_text()
    row = shown.select_one(f"tr[data-rule='{rule.id}']").get_text(" ", strip=True)
    assert row.startswith(f"{rule.id} {words}")
    assert "allows calls now" in row or "holds calls back now in America/New_York" in row
    assert "Fla. Stat. 501.616" in row
    removed = signed_in.post(f"{url}/calling-rules/{rule.id}/remove")
    assert removed.status_code == 302 and _rules() == []


@pytest.mark.parametrize(
    ("changes", "name", "words"),
    [
        ({"rule-region": "ZZ"}, "rule-region", "ISO 3166-2"),
        ({"rule-hours": "late"}, "rule-hours", "HH:MM-HH:MM"),
        ({"rule-no_calls_on": "sunday"}, "rule-no_calls_on", "weekday"),
        ({"rule-max_count": "0"}, "rule-max_count", "1 to 1,000"),
        ({"rule-within": "soon"}, "rule-within", "30m, 24h or 7d"),
    ],
)
def test_a_refused_rule_comes_back_as_typed_with_its_reason(signed_in, acme, changes, name, words):
    url = f"/tenants/{acme.id}/contact-rules"
    answer = signed_in.post(url + "/calling-rules", data={**FLORIDA, **changes})
    assert answer.status_code == 422
    shown = soup(answer)
    assert words in said_beside(shown, name)
    for key, value in {**FLORIDA, **changes}.items():
        if key != "rule-per":
            assert shown.find(attrs={"name": key})["value"] == value
    assert _rules() == []


def test_the_us_pack_loads_from_the_page(signed_in, acme):
    url = f"/tenants/{acme.id}/contact-rules"
    done = signed_in.post(url + "/calling-rules/us-pack")
    assert done.status_code == 302
    count = len(pack.pack_rules())
    assert f"{count} rules added, 0 already there" in page(signed_in, url).get_text()
    assert len(_rules()) == count
