"""The Sign-in page's SAML section: the service provider's metadata URL to give the
identity provider, and the form that sets the provider from its metadata URL or file
(refused input kept and said; nothing changes)."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, IdentityProvider
from tests.admin.conftest import find_form, form_values, page, refusal
from tests.sso.saml_fixtures import identity_provider  # noqa: F401 - a fixture

pytest.importorskip("app.admin.sign_in", reason="the tenant's Sign-in page")


def url(tenant, end: str = "") -> str:
    return f"/tenants/{tenant.id}/sign-in{end}"


def provider_of(tenant) -> IdentityProvider | None:
    db.session.rollback()
    return db.session.scalar(select(IdentityProvider).filter_by(tenant_id=tenant.id))


def post_saml(client, tenant, file: bytes | None = None, **typed):
    form = find_form(page(client, url(tenant)), url(tenant, "/saml"))
    values = form_values(form)
    for name, value in typed.items():
        values.setlist(name, [value])
    data = dict(values.items())
    if file is not None:
        data["metadata_file"] = (io.BytesIO(file), "idp.xml")
    return client.post(form["action"], data=data, content_type="multipart/form-data")


def test_the_section_gives_the_metadata_url_to_hand_the_provider(signed_in, acme):
    shown = page(signed_in, url(acme))
    given = shown.select_one("[data-saml-metadata]").get_text()
    assert given == "http://localhost/desk/sso/Acme/prod/saml/metadata"
    # It answers before the tenant has a provider: the provider is set up with it first.
    assert signed_in.get(given.removeprefix("http://localhost")).status_code == 200


def test_the_provider_is_set_from_its_metadata_url(signed_in, acme, identity_provider):  # noqa: F811
    answer = post_saml(
        signed_in,
        acme,
        metadata_url=f"{identity_provider.base_url}/metadata",
        login_attribute="mail",
    )
    assert answer.status_code == 303 and answer.headers["Location"] == url(acme)
    provider = provider_of(acme)
    assert provider.kind == "saml" and provider.settings["login_attribute"] == "mail"
    assert provider.settings["idp_entity_id"] == identity_provider.entity_id
    assert "Now signing in through" in signed_in.get(url(acme)).text
    assert db.session.query(AuditRecord).filter_by(action="identity_provider.set").count() == 1


def test_accepting_sha1_is_a_choice_the_page_then_warns_of(signed_in, acme, identity_provider):  # noqa: F811
    metadata_url = f"{identity_provider.base_url}/metadata"
    assert post_saml(signed_in, acme, metadata_url=metadata_url).status_code == 303
    assert provider_of(acme).settings["allow_sha1"] is False
    assert page(signed_in, url(acme)).select_one("[data-sha1-warning]") is None
    assert post_saml(signed_in, acme, metadata_url=metadata_url, allow_sha1="1").status_code == 303
    assert provider_of(acme).settings["allow_sha1"] is True
    shown = page(signed_in, url(acme))
    assert "SHA-1 are accepted" in shown.select_one("[data-sha1-warning]").get_text()
    assert shown.select_one("#saml-sha1").has_attr("checked")


def test_the_provider_is_set_from_an_uploaded_file(signed_in, acme, identity_provider):  # noqa: F811
    answer = post_saml(signed_in, acme, file=identity_provider.metadata().encode())
    assert answer.status_code == 303
    assert provider_of(acme).settings["metadata_url"] is None


@pytest.mark.parametrize(
    ("typed", "file", "words"),
    [
        ({"metadata_url": ""}, None, "metadata is missing"),
        ({"metadata_url": "ftp://idp.example/md"}, None, "url must be an http or https"),
        ({"metadata_url": ""}, b"<html>not metadata</html>", "must describe one identity provider"),
        ({"metadata_url": ""}, b"\xff\xfe binary", "not SAML 2.0 metadata"),
    ],
    ids=["nothing", "not-http", "not-metadata", "not-text"],
)
def test_settings_that_are_not_a_providers_are_refused_and_kept(
    signed_in, acme, typed, file, words
):
    answer = post_saml(signed_in, acme, file=file, login_attribute="uid", **typed)
    assert words in refusal(answer)
    assert 'value="uid"' in answer.text  # what was typed stays
    assert provider_of(acme) is None


def test_a_get_of_the_form_address_goes_back_to_the_page(signed_in, acme):
    answer = signed_in.get(url(acme, "/saml"))
    assert answer.status_code == 302 and answer.headers["Location"] == url(acme)


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf"])
def test_the_form_without_its_csrf_token_changes_nothing(signed_in, acme):
    answer = signed_in.post(url(acme, "/saml"), data={"metadata_url": "https://idp.example/md"})
    assert answer.status_code in (400, 422)
    assert provider_of(acme) is None
