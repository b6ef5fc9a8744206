"""Agents signing in on their tenant's page with their directory's user name and password
(a real OpenLDAP): provisioned agents only, one message for every refused password, the
per-account limit, a directory that is down said so at once, and the `sso ldap` command."""

from __future__ import annotations

import json
import time

import pytest
from flask.testing import CliRunner
from sqlalchemy import func, select

from app.extensions import db, limiter
from app.models import IdentityProvider, User
from app.services.sso import ldap, providers
from tests.admin.conftest import PASSWORD, csrf_token, soup
from tests.conftest import SETUP, make_tenant
from tests.desk.desk_support import AGENT, make_agent
from tests.sso.ldap_directory import PEOPLE, TEMPLATE, directory  # noqa: F401

PAGE = "/desk/login/Acme/prod"
FAILED = "Invalid company, environment, login user id or password."


@pytest.fixture
def acme(app, directory):  # noqa: F811
    """Acme, its agent Ann (whose directory login is her loginUserId), its directory."""
    tenant, _ = make_tenant()
    make_agent(tenant)
    settings = ldap.settings_from(directory.ldap_url, TEMPLATE, True, 2, directory.ca_file)
    providers.set_provider(tenant, "ldap", settings, actor=SETUP)
    db.session.commit()
    return tenant


def sign_in_on_page(client, login=AGENT, password=None, url=PAGE, **options):
    token = csrf_token(soup(client.get(url)))
    password = PEOPLE[AGENT] if password is None else password
    data = {"login_user_id": login, "password": password, "csrf_token": token}
    return client.post(url, data=data, **options)


def signed_in(client) -> bool:
    return client.get("/desk").status_code == 200


def test_an_agent_signs_in_with_the_directorys_password(client, acme):
    page = soup(client.get(PAGE))
    assert page.find("input", attrs={"name": "password"}) is not None
    answer = sign_in_on_page(client)
    assert answer.status_code == 302 and answer.headers["Location"] == "/desk"
    assert signed_in(client)


def plain_sign_in(client, password):
    return client.post(
        "/desk/login",
        data={
            "company": "Acme",
            "environment": "prod",
            "login_user_id": AGENT,
            "password": password,
            "csrf_token": csrf_token(soup(client.get("/desk/login?other=1"))),
        },
    )


def test_with_desk_passwords_on_the_desks_own_password_opens_after_the_directory(client, acme):
    # Ann still has a desk password from her invitation; the directory does not take it,
    # and the agents' own desk passwords are on (as the Sign-in page says): it opens.
    assert acme.local_agent_passwords
    page = soup(client.get(PAGE))
    assert "or your password of this desk" in page.get_text()
    answer = sign_in_on_page(client, password=PASSWORD)
    assert answer.status_code == 302 and answer.headers["Location"] == "/desk"
    assert signed_in(client)


def test_with_desk_passwords_off_only_the_directorys_password_opens(client, acme):
    providers.set_local_agent_passwords(acme, False, actor=SETUP)
    db.session.commit()
    assert "or your password of this desk" not in soup(client.get(PAGE)).get_text()
    answer = sign_in_on_page(client, password=PASSWORD)
    assert answer.status_code == 422 and FAILED in answer.text
    plain = plain_sign_in(client, PASSWORD)
    assert plain.status_code == 302 and plain.headers["Location"].startswith(PAGE)
    assert not signed_in(client)
    assert sign_in_on_page(client).status_code == 302  # the directory's password opens


def test_the_plain_form_sends_a_directory_tenant_to_its_own_page(client, acme):
    plain = plain_sign_in(client, PASSWORD)
    assert plain.status_code == 302 and plain.headers["Location"].startswith(PAGE)
    assert not signed_in(client)


@pytest.mark.parametrize(
    ("login", "password"),
    [
        (AGENT, "a wrong password"),
        ("someone.else", "any password at all"),
        ("*)(uid=*", PEOPLE[AGENT]),
        (AGENT + ",ou=people", PEOPLE[AGENT]),
    ],
    ids=["wrong-password", "unknown-person", "filter-injection", "dn-injection"],
)
def test_a_refused_password_gets_one_message(client, acme, login, password):
    answer = sign_in_on_page(client, login=login, password=password)
    assert answer.status_code == 422 and FAILED in answer.text
    assert not signed_in(client)


def test_an_empty_password_is_refused_by_the_form(client, acme):
    answer = sign_in_on_page(client, password="")
    assert answer.status_code == 422
    assert not signed_in(client)


def test_an_empty_password_never_reaches_the_directory(client, acme, monkeypatch):
    # Past the form (which requires it), the service still sends no anonymous bind.
    provider = providers.provider_for(acme)
    monkeypatch.setattr(ldap, "_binds", lambda *_: pytest.fail("a bind was sent"))
    assert ldap.authenticate(provider, AGENT, "") is None


def test_a_directory_person_who_is_no_agent_here_is_told_and_nothing_is_made(client, acme):
    users = db.session.scalar(select(func.count()).select_from(User))
    answer = sign_in_on_page(client, login="nobody.here", password=PEOPLE["nobody.here"])
    assert answer.status_code == 403
    assert "has no agent 'nobody.here'" in soup(answer).get_text()
    assert db.session.scalar(select(func.count()).select_from(User)) == users
    assert not signed_in(client)


def test_a_directory_that_is_down_is_said_so_within_the_timeout(client, acme, directory):  # noqa: F811
    directory.stop()
    try:
        began = time.monotonic()
        answer = sign_in_on_page(client)
        assert time.monotonic() - began < 3
    finally:
        directory.start()
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "60"
    assert "directory is not answering" in answer.text
    assert not signed_in(client)
    assert sign_in_on_page(client).status_code == 302  # back up: signs in again


def test_a_directory_that_is_down_leaves_the_desk_password_while_they_are_on(
    client,
    acme,
    directory,  # noqa: F811
):
    directory.stop()
    try:
        answer = sign_in_on_page(client, password=PASSWORD)
        assert answer.status_code == 302 and signed_in(client)
        client.post("/desk/logout", data={"csrf_token": csrf_token(soup(client.get("/desk")))})
        providers.set_local_agent_passwords(acme, False, actor=SETUP)
        db.session.commit()
        assert sign_in_on_page(client, password=PASSWORD).status_code == 503
    finally:
        directory.start()


@pytest.mark.parametrize(
    "settings",
    [
        {
            "RATELIMIT_ENABLED": True,
            "LOGIN_RATE_LIMIT": "1000 per minute",
            "ACCOUNT_LOGIN_LIMIT": "3 per 15 minutes",
        }
    ],
    indirect=True,
)
def test_directory_attempts_count_against_the_accounts_limit(client, acme):
    limiter.reset()
    for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        wrong = sign_in_on_page(client, password="guess", environ_base={"REMOTE_ADDR": address})
        assert wrong.status_code == 422
    locked = sign_in_on_page(client, environ_base={"REMOTE_ADDR": "10.0.0.4"})
    assert locked.status_code == 429 and "Too many sign-in attempts" in locked.text
    assert not signed_in(client)


def test_the_sso_ldap_command_sets_the_directory(app, directory):  # noqa: F811
    tenant, _ = make_tenant()
    runner = CliRunner()
    command = ["sso", "ldap", "Acme", "prod", "--url", directory.ldap_url]
    command += ["--bind-dn-template", TEMPLATE, "--ca-file", directory.ca_file]
    refused = runner.invoke(app.cli, command)
    assert refused.exit_code == 1 and "start_tls" in refused.output
    done = runner.invoke(app.cli, [*command, "--start-tls", "--timeout", "3"])
    assert done.exit_code == 0, done.output
    shown = json.loads(done.output)
    assert shown["signInUrl"] == "/desk/login/Acme/prod" and shown["timeout_seconds"] == 3
    provider = db.session.scalar(select(IdentityProvider).filter_by(tenant_id=tenant.id))
    assert provider.kind == "ldap" and provider.settings["start_tls"] is True
    lab = runner.invoke(
        app.cli,
        ["sso", "ldap", "Acme", "prod", "--url", directory.ldap_url, "--insecure-plain"]
        + ["--bind-dn-template", TEMPLATE],
    )
    assert lab.exit_code == 0 and json.loads(lab.output)["insecure_plain"] is True
