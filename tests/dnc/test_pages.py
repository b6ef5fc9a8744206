"""The do-not-call page: search (paged), add, remove, import with its report, export; CSRF on
every change; another tenant's list answers 404 and changes nothing."""

from __future__ import annotations

import io

import pytest

from app.extensions import db
from tests.admin.conftest import (
    csrf_token,
    find_form,
    form_values,
    make_supervisor,
    page,
    refusal,
    session_for,
    soup,
    submit,
)
from tests.admin.test_security import CSRF_ON, assert_csrf_on_every_post_form, assert_strict_csp
from tests.conftest import make_tenant
from tests.dnc.dnc_support import E164, OTHER, listed, put, trail


def url(tenant, end: str = "") -> str:
    return f"/tenants/{tenant.id}/dnc{end}"


def numbers_shown(page_) -> list[str]:
    return [row["data-number"] for row in page_.select("table.dnc tr[data-number]")]


def flashed(client) -> str:
    return " ".join(p.get_text() for p in page(client, "/tenants").select("p.notice"))


def upload(client, tenant, data: bytes, name: str = "list.csv", **fields):
    values = form_values(find_form(page(client, url(tenant)), "/dnc/import"))
    for name, value in fields.items():
        values.setlist(name, [value])
    values["import-file"] = (io.BytesIO(data), name)
    return client.post(url(tenant, "/import"), data=values, content_type="multipart/form-data")


def test_the_page_lists_the_numbers_with_their_notes_escaped(signed_in, acme):
    put(acme, E164, note="<b>asked</b>")
    response = signed_in.get(url(acme))
    shown = soup(response)
    assert numbers_shown(shown) == [E164]
    assert shown.select_one("table.dnc td:nth-of-type(2)").get_text() == "<b>asked</b>"
    assert not shown.select("table.dnc b")
    assert_strict_csp(response)


@pytest.mark.parametrize("settings", [{"PAGE_SIZE": 2}], indirect=True)
def test_search_by_prefix_is_paged(signed_in, acme):
    put(acme, "+14155550100", "+14155550101", "+14155550102", "+442071838750")
    first = page(signed_in, url(acme, "?q=%2B1415"))
    assert numbers_shown(first) == ["+14155550100", "+14155550101"]
    second = page(signed_in, first.select_one("nav.pages a[rel=next]")["href"])
    assert numbers_shown(second) == ["+14155550102"]
    exact = page(signed_in, url(acme, "?q=%2B14155550101&exact=1"))
    assert numbers_shown(exact) == ["+14155550101"]


def test_a_search_that_is_no_number_is_said_and_the_whole_list_shown(signed_in, acme):
    put(acme, E164)
    shown = page(signed_in, url(acme, "?q=abc"), status=422)
    assert "digits" in shown.find(role="alert").get_text()
    assert numbers_shown(shown) == [E164]


def test_add_lists_the_typed_numbers(signed_in, acme):
    put(acme, OTHER)
    response = submit(
        signed_in, url(acme), "/dnc/add", {"add-numbers": f"{E164}\n{OTHER}", "add-note": "asked"}
    )
    assert response.status_code == 302
    assert listed(acme) == {E164: "asked", OTHER: "test"}
    assert flashed(signed_in) == f"Added 1 to the do-not-call list. Already listed: {OTHER}."
    (_, audit) = trail("dnc.added")
    assert (audit.actor_kind, audit.actor_id) == ("supervisor", "boss@example.com")


def test_add_without_a_note_says_a_supervisor_added_it(signed_in, acme):
    submit(signed_in, url(acme), "/dnc/add", {"add-numbers": E164})
    assert listed(acme) == {E164: "supervisor"}


def test_add_refuses_a_bad_number_beside_its_field(signed_in, acme):
    response = submit(signed_in, url(acme), "/dnc/add", {"add-numbers": f"{E164} 4155550100"})
    assert "4155550100" in refusal(response)
    assert soup(response).select_one("textarea[aria-invalid=true]") is not None
    assert listed(acme) == {}


def remove_form(client, tenant, number: str, query: str = ""):
    """The confirmation form that a row's Remove link opens."""
    shown = page(client, url(tenant, f"?q={query}"))
    link = shown.select_one(f'tr[data-number="{number}"] a[href*="/dnc/remove"]')
    asked = page(client, link["href"])
    return find_form(asked, "/dnc/remove")


def test_remove_asks_first_then_takes_the_rows_number_off(signed_in, acme):
    put(acme, E164, OTHER)
    form = remove_form(signed_in, acme, OTHER, OTHER[1:])
    assert listed(acme) == {E164: "test", OTHER: "test"}  # asking removed nothing
    response = signed_in.post(form["action"], data=form_values(form))
    assert response.status_code == 303
    assert response.location.endswith(f"?q={OTHER[1:]}")
    assert listed(acme) == {E164: "test"}
    assert flashed(signed_in) == f"{OTHER} removed from the do-not-call list."


def test_import_shows_the_report(signed_in, acme):
    put(acme, E164)
    data = f"number,note\n{E164}\n{OTHER},asked\nnope\n".encode()
    response = upload(signed_in, acme, data, "numbers.csv")
    assert (response.status_code, response.location) == (303, url(acme))
    report = page(signed_in, url(acme)).select_one("article.dnc-report")
    counts = {td["data-count"]: td.get_text() for td in report.select("td[data-count]")}
    assert counts == {"added": "1", "already": "1", "refused": "1"}
    refused = report.select_one("table[data-rows=refused] tbody tr")
    assert [td.get_text() for td in refused.find_all("td")][:2] == ["4", "nope"]
    assert listed(acme) == {E164: "test", OTHER: "asked"}
    assert page(signed_in, url(acme)).select("article.dnc-report") == []  # shown once


def test_import_refuses_a_file_that_is_not_text(signed_in, acme):
    response = upload(signed_in, acme, b"\xff\xfe\x00\x01", "photo.csv")
    assert "photo.csv" in refusal(response)
    assert listed(acme) == {}
    assert trail("dnc.imported") == []


def test_export_downloads_the_list(signed_in, acme):
    put(acme, E164, note="n")
    response = signed_in.get(url(acme, "/export.csv"))
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.get_data(as_text=True).splitlines()[1].startswith(f"{E164},n,")


# --- CSRF ---------------------------------------------------------------------------------


@CSRF_ON
def test_every_form_of_the_page_carries_its_token(signed_in, acme):
    put(acme, E164)
    assert_csrf_on_every_post_form(page(signed_in, url(acme)))


@CSRF_ON
@pytest.mark.parametrize(
    ("action", "fields"),
    [
        ("/dnc/add", {"add-numbers": OTHER}),
        ("/dnc/remove", {"number": E164}),
    ],
)
def test_a_change_without_its_token_is_refused(signed_in, acme, action, fields):
    put(acme, E164)
    form = remove_form(signed_in, acme, E164) if "remove" in action else (
        find_form(page(signed_in, url(acme)), action)
    )  # fmt: skip
    values = form_values(form)
    for name, value in fields.items():
        values.setlist(name, [value])
    token = next(name for name in values if name.endswith("csrf_token"))
    without = values.copy()
    del without[token]
    assert signed_in.post(form["action"], data=without).status_code == 400
    assert listed(acme) == {E164: "test"}
    assert signed_in.post(form["action"], data=values).status_code in (302, 303)
    assert listed(acme) != {E164: "test"}


@CSRF_ON
def test_an_import_without_its_token_is_refused(signed_in, acme):
    shown = page(signed_in, url(acme))
    assert csrf_token(shown)
    data = {"import-file": (io.BytesIO(E164.encode()), "x.csv")}
    response = signed_in.post(url(acme, "/import"), data=data, content_type="multipart/form-data")
    assert response.status_code == 400
    assert listed(acme) == {}


# --- scoping ------------------------------------------------------------------------------


@pytest.fixture
def globex(app):
    tenant = make_tenant("Globex", "test")[0]
    put(tenant, E164)
    return tenant


@pytest.fixture
def acme_only(client, acme, globex):
    return session_for(client, make_supervisor("acme@example.com", [acme]))


@pytest.mark.parametrize(
    ("method", "end", "data"),
    [
        ("GET", "", None),
        ("GET", "/export.csv", None),
        ("POST", "/add", {"add-numbers": OTHER}),
        ("POST", "/remove", {"number": E164}),
        ("POST", "/import", {"import-file": (io.BytesIO(OTHER.encode()), "x.csv")}),
    ],
)
def test_another_tenants_list_is_not_found_and_unchanged(acme_only, globex, method, end, data):
    response = acme_only.open(url(globex, end), method=method, data=data)
    assert response.status_code == 404
    assert listed(globex) == {E164: "test"}


def test_the_own_tenants_page_still_works_for_a_scoped_supervisor(acme_only, acme, globex):
    put(acme, OTHER)
    assert numbers_shown(page(acme_only, url(acme))) == [OTHER]
    db.session.rollback()
