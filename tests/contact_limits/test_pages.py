"""The Contact rules page of a tenant: its limits listed, added and removed, its person key
set, each change a post/redirect/get with its audit record and event; a refused form
comes back as typed, the reason beside the field; every form carries its CSRF token."""

from __future__ import annotations

import pytest

from app.extensions import db
from tests.admin.conftest import page, said_beside, soup
from tests.contact_limits.limits_support import add_limit, events, stored_limits, trail

CSRF_ON = pytest.mark.parametrize(
    "settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf-on"]
)
FLORIDA = {
    "limit-max_count": "3",
    "limit-counting": "calls",
    "limit-within": "24h",
    "limit-per": "person",
    "limit-campaign": "",
}


def test_a_supervisor_adds_and_removes_limits(signed_in, acme):
    url = f"/tenants/{acme.id}/contact-rules"
    assert "No contact limit" in page(signed_in, url).get_text()
    done = signed_in.post(url + "/limits", data=FLORIDA)
    assert done.status_code == 302 and done.location.endswith(url)
    (limit,) = stored_limits()
    shown = page(signed_in, url)
    words = "at most 3 calls within 24 hours per person, across every campaign"
    assert f"Contact limit {limit.id} added: {words}." in shown.get_text()
    assert (
        shown.select_one(f"tr[data-limit='{limit.id}']")
        .get_text(" ", strip=True)
        .startswith(f"{limit.id} {words}")
    )
    assert trail("contact_limit.added")[0].actor_kind == "supervisor"
    wait = {"limit-max_count": "1", "limit-counting": "contacts", "limit-within": "7d"}
    signed_in.post(url + "/limits", data={**FLORIDA, **wait, "limit-campaign": "Renewals"})
    assert "in campaign Renewals" in page(signed_in, url).get_text()
    removed = signed_in.post(f"{url}/limits/{limit.id}/remove")
    assert removed.status_code == 302
    assert [lim.counting for lim in stored_limits()] == ["contacts"]
    assert len(events("contact_limit.removed")) == 1
    assert signed_in.get(f"{url}/limits/{limit.id}/remove").status_code == 302  # a GET: back
    assert signed_in.post(f"{url}/limits/{limit.id}/remove").status_code == 422  # gone


@pytest.mark.parametrize(
    ("changes", "name", "words"),
    [
        ({"limit-max_count": "0"}, "limit-max_count", "1 to 1,000"),
        ({"limit-within": "91d"}, "limit-within", "90 days"),
        ({"limit-within": "soon"}, "limit-within", "30m, 24h or 7d"),
    ],
)
def test_a_refused_limit_comes_back_as_typed_with_its_reason(signed_in, acme, changes, name, words):
    url = f"/tenants/{acme.id}/contact-rules"
    refused = signed_in.post(url + "/limits", data={**FLORIDA, **changes})
    assert refused.status_code == 422
    shown = soup(refused)
    assert words in said_beside(shown, name)
    assert shown.find(attrs={"name": name})["value"] == changes[name]  # kept as typed
    assert (
        shown.find(attrs={"name": "limit-per"}).find("option", selected=True)["value"] == "person"
    )
    assert stored_limits() == []


def test_an_unknown_choice_is_refused_and_nothing_added(signed_in, acme):
    url = f"/tenants/{acme.id}/contact-rules"
    assert (
        signed_in.post(url + "/limits", data={**FLORIDA, "limit-per": "household"}).status_code
        == 422
    )
    assert (
        signed_in.post(url + "/limits", data={**FLORIDA, "limit-campaign": "Nope"}).status_code
        == 422
    )
    assert stored_limits() == []


def test_the_person_key_is_set_on_the_page(signed_in, acme):
    url = f"/tenants/{acme.id}/contact-rules"
    done = signed_in.post(url + "/person-key", data={"person-key": "AccountNumber"})
    assert done.status_code == 302
    assert "A person is named by data item 'AccountNumber'." in page(signed_in, url).get_text()
    db.session.expire_all()
    assert acme.person_key == "AccountNumber"
    assert page(signed_in, url).find(attrs={"name": "person-key"})["value"] == "AccountNumber"
    assert trail("tenant.person_key_set")[0].after == {"personKey": "AccountNumber"}


@CSRF_ON
def test_every_form_carries_its_csrf_token_and_a_post_without_it_is_refused(signed_in, acme):
    limit = add_limit(acme, 3, "24h", "number")
    url = f"/tenants/{acme.id}/contact-rules"
    shown = page(signed_in, url)
    forms = shown.select("main form[method=post]")
    assert len(forms) == 5  # add, remove, person key; load the US pack, add a calling rule
    for form in forms:
        names = [i.get("name", "") for i in form.find_all("input", type="hidden")]
        assert any(n.endswith("csrf_token") for n in names), form.get("action")
    assert signed_in.post(url + "/limits", data=FLORIDA).status_code == 400
    assert signed_in.post(f"{url}/limits/{limit.id}/remove").status_code == 400
    assert signed_in.post(url + "/calling-rules", data={"rule-region": "US-FL"}).status_code == 400
    assert signed_in.post(url + "/calling-rules/us-pack").status_code == 400
    assert len(stored_limits()) == 1
