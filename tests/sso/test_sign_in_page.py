"""The tenant's Sign-in page: the desk address to give agents, the provider as set (never its
secret), the switch for agents' own passwords, removing the provider after a confirmation,
and the directory's form: refused input kept and said, CSRF on every form, post/redirect/get."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, IdentityProvider
from app.services.sso import providers
from tests.admin.conftest import find_form, form_values, make_supervisor, page, session_for, soup
from tests.conftest import SETUP, make_tenant

TEMPLATE = "uid={login},ou=people,dc=example,dc=org"


def url(tenant, end: str = "") -> str:
    return f"/tenants/{tenant.id}/sign-in{end}"


def provider_of(tenant) -> IdentityProvider | None:
    db.session.rollback()
    return db.session.scalar(select(IdentityProvider).filter_by(tenant_id=tenant.id))


def set_ldap(tenant, **settings):
    values = {
        "url": "ldaps://dir.example.org:636",
        "bind_dn_template": TEMPLATE,
        "start_tls": False,
        "timeout_seconds": 5,
        "ca_file": None,
        "insecure_plain": False,
        **settings,
    }
    providers.set_provider(tenant, "ldap", values, actor=SETUP)
    db.session.commit()


def post_ldap(client, tenant, **typed):
    form = find_form(page(client, url(tenant)), url(tenant, "/ldap"))
    values = form_values(form)
    for name, value in typed.items():
        if value is None:
            values.pop(name, None)
        else:
            values.setlist(name, [value])
    return client.post(form["action"], data=values)


def test_the_page_gives_the_desk_address_and_says_there_is_no_provider(signed_in, acme):
    shown = page(signed_in, url(acme))
    assert shown.select_one("[data-sign-in-url]").get_text() == (
        "http://localhost/desk/login/Acme/prod"
    )
    assert "None: agents sign in with a password of the desk" in shown.get_text()
    # Switching passwords off needs a provider first: the button says so and is disabled.
    assert find_form(shown, url(acme, "/passwords")).find("button").has_attr("disabled")
    nav = shown.find("nav", attrs={"aria-label": "Main"})
    assert nav.find("a", attrs={"aria-current": "page"}).get_text() == "Sign-in"


def test_every_page_of_the_tenant_links_to_its_sign_in(signed_in, acme):
    nav = page(signed_in, f"/tenants/{acme.id}/users").find("nav", attrs={"aria-label": "Main"})
    assert nav.find("a", href=url(acme)).get_text() == "Sign-in"


def test_a_directory_is_set_from_the_page_and_shown(signed_in, acme):
    answer = post_ldap(
        signed_in,
        acme,
        url="ldap://dir.example.org",
        bind_dn_template=TEMPLATE,
        start_tls="y",
        timeout_seconds="3",
    )
    assert answer.status_code == 303 and answer.location == url(acme)
    provider = provider_of(acme)
    assert provider.kind == "ldap"
    assert provider.settings["url"] == "ldap://dir.example.org:389"
    assert provider.settings["start_tls"] is True and provider.settings["timeout_seconds"] == 3
    shown = page(signed_in, answer.location)
    assert "Agents now sign in with their directory" in shown.get_text()
    settings = shown.select_one("dl.provider-settings").get_text(" ", strip=True)
    assert "ldap://dir.example.org:389" in settings and TEMPLATE in settings
    # The form shows what is set, ready to change.
    form = find_form(shown, url(acme, "/ldap"))
    assert form_values(form)["url"] == "ldap://dir.example.org:389"
    assert form_values(form)["start_tls"] == "y"
    trail = db.session.scalars(select(AuditRecord.action)).all()
    assert "identity_provider.set" in trail


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ({"url": "https://dir.example.org"}, "url must be ldaps://"),
        ({"url": "ldap://dir.example.org", "start_tls": None}, "start_tls is needed"),
        ({"bind_dn_template": "uid=ann,dc=example,dc=org"}, "must hold {login} once"),
        ({"timeout_seconds": "60"}, "timeout_seconds must be from 1 to 10"),
        ({"timeout_seconds": "soon"}, "timeout_seconds must be a number"),
    ],
)
def test_a_refused_directory_keeps_what_was_typed_and_says_why(signed_in, acme, typed, words):
    typed = {"url": "ldaps://dir.example.org", "bind_dn_template": TEMPLATE, **typed}
    answer = post_ldap(signed_in, acme, **typed)
    assert answer.status_code == 422
    shown = soup(answer)
    assert words in shown.select_one("#ldap-error").get_text()
    kept = form_values(find_form(shown, url(acme, "/ldap")))
    for name, value in typed.items():
        if value is not None:
            assert kept[name] == value
    assert provider_of(acme) is None


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf"])
def test_no_form_of_the_page_acts_without_its_csrf_token(signed_in, acme):
    set_ldap(acme)
    shown = page(signed_in, url(acme))
    typed = {"url": "ldaps://other.example.org", "bind_dn_template": TEMPLATE}
    for end in ("/ldap", "/passwords"):
        form = find_form(shown, url(acme, end))
        values = form_values(form)
        for name, value in typed.items():
            values[name] = value
        assert values.pop("csrf_token")
        assert signed_in.post(form["action"], data=values).status_code == 400
        values["csrf_token"] = "forged"
        assert signed_in.post(form["action"], data=values).status_code == 400
    assert signed_in.post(url(acme, "/remove"), data={}).status_code == 400
    provider = provider_of(acme)
    assert provider.settings["url"] == "ldaps://dir.example.org:636"
    assert acme.local_agent_passwords is True
    # With its token, the same form acts.
    values = form_values(find_form(shown, url(acme, "/ldap")))
    for name, value in typed.items():
        values[name] = value
    assert signed_in.post(url(acme, "/ldap"), data=values).status_code == 303
    assert provider_of(acme).settings["url"] == "ldaps://other.example.org:636"


def said(shown) -> str:
    return shown.select_one("[data-passwords-said]").get_text(" ", strip=True)


def test_passwords_are_switched_off_and_on_with_a_provider(signed_in, acme):
    set_ldap(acme)
    shown = page(signed_in, url(acme))
    # What the desk's form does with a directory (app/services/sso/desk_passwords.py).
    assert said(shown) == (
        "On: the desk's sign-in form takes the directory's password first, then the agent's "
        "own password of the desk."
    )
    form = find_form(shown, url(acme, "/passwords"))
    answer = signed_in.post(form["action"], data=form_values(form))
    assert answer.status_code == 303
    db.session.refresh(acme)
    assert acme.local_agent_passwords is False
    shown = page(signed_in, url(acme))
    assert said(shown) == (
        "Off: agents sign in only through the identity provider, with the directory's "
        "password; a password of the desk opens nothing."
    )
    form = find_form(shown, url(acme, "/passwords"))
    signed_in.post(form["action"], data=form_values(form))
    db.session.refresh(acme)
    assert acme.local_agent_passwords is True


def test_the_page_says_what_a_sign_in_button_provider_leaves_to_desk_passwords(signed_in, acme):
    assert said(page(signed_in, url(acme))) == "On: agents sign in with a password of the desk."
    provider = IdentityProvider(tenant_id=acme.id, kind="oidc", settings={"issuer": "https://x"})
    db.session.add(provider)
    db.session.commit()
    assert said(page(signed_in, url(acme))).startswith("On: agents may also sign in with a ")
    providers.set_local_agent_passwords(acme, False, actor=SETUP)
    db.session.commit()
    assert said(page(signed_in, url(acme))) == (
        "Off: agents sign in only through the identity provider."
    )


def test_switching_passwords_off_without_a_provider_is_refused(signed_in, acme):
    form = find_form(page(signed_in, url(acme)), url(acme, "/passwords"))
    answer = signed_in.post(form["action"], data=form_values(form))
    assert answer.status_code == 422
    assert "once the tenant has an identity provider" in soup(answer).find(role="alert").text


def test_the_provider_is_removed_after_a_confirmation(signed_in, acme):
    set_ldap(acme)
    providers.set_local_agent_passwords(acme, False, actor=SETUP)
    db.session.commit()
    link = page(signed_in, url(acme)).find("a", string="Remove the identity provider")
    asked = page(signed_in, link["href"])
    assert "Remove the identity provider?" in asked.get_text()
    assert provider_of(acme) is not None  # asking removed nothing
    answer = signed_in.post(link["href"], data=form_values(find_form(asked, None)))
    assert answer.status_code == 303
    assert provider_of(acme) is None
    db.session.refresh(acme)
    assert acme.local_agent_passwords is True
    assert "Identity provider removed" in page(signed_in, answer.location).get_text()


def test_the_secret_is_never_shown(signed_in, acme):
    providers.set_provider(
        acme, "oidc", {"issuer": "https://id.example.org"}, secret="s3cret-value", actor=SETUP
    )
    db.session.commit()
    shown = page(signed_in, url(acme))
    assert "s3cret-value" not in str(shown)
    assert provider_of(acme).sealed_secret not in str(shown)
    assert "secretSet" in shown.select_one("dl.provider-settings").get_text()
    # The directory's section says that saving replaces this provider.
    assert "Saving replaces the current identity provider" in shown.get_text()


def test_a_supervisor_of_other_tenants_does_not_see_the_page(client, acme):
    other, _ = make_tenant("Other", "prod")
    session_for(client, make_supervisor("deputy@example.com", [other]))
    assert client.get(url(acme)).status_code == 404
    assert client.post(url(acme, "/ldap"), data={}).status_code == 404
    assert client.get(url(other)).status_code == 200


@pytest.mark.parametrize("end", ["/ldap", "/passwords", "/remove"])
def test_a_get_of_a_forms_url_leads_to_the_page(signed_in, acme, end):
    answer = signed_in.get(url(acme, end))
    assert answer.status_code in (200, 302)
    if answer.status_code == 302:
        assert answer.location == url(acme)
