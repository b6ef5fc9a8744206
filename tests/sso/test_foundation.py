"""A tenant's own desk sign-in page, the switch for agents' own passwords, sealed secrets,
replayed assertions, and the rule that only provisioned agents are signed in."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.extensions import db
from app.models import AgentSession, ProviderKind, User
from app.models.types import utcnow
from app.services.sso import providers, replays, sealing
from app.services.sso.identity import Identity, SignInRefused, agent_for
from app.services.tenants import api_keys
from tests.admin.conftest import PASSWORD, csrf_token, session_for, soup
from tests.api.users_support import UsersApi
from tests.conftest import SETUP, make_tenant
from tests.desk.desk_support import AGENT, desk_session, make_agent

PAGE = "/desk/login/Acme/prod"


@pytest.fixture
def acme(app):
    tenant, _ = make_tenant()
    make_agent(tenant)
    return tenant


def sign_in_on_page(client, login=AGENT, password=PASSWORD, url=PAGE):
    token = csrf_token(soup(client.get(url)))
    data = {"login_user_id": login, "password": password, "csrf_token": token}
    return client.post(url, data=data)


def test_the_tenant_page_signs_in_without_typing_the_company(client, acme):
    page = soup(client.get(PAGE))
    assert "Acme · prod" in page.get_text()
    assert page.find("input", attrs={"name": "company"}) is None
    answer = sign_in_on_page(client)
    assert answer.status_code == 302 and answer.headers["Location"] == "/desk"
    assert client.get("/desk").status_code == 200


def test_a_wrong_password_on_the_tenant_page_says_only_that_it_failed(client, acme):
    answer = sign_in_on_page(client, password="not the password at all")
    assert answer.status_code == 422
    assert "Invalid company, environment, login user id or password." in answer.text


def test_the_plain_sign_in_page_sends_a_returning_agent_to_their_tenant(client, acme):
    client.get(PAGE)
    again = client.get("/desk/login?next=/desk")
    assert again.status_code == 302
    assert again.headers["Location"].startswith("/desk/login/Acme/prod")
    # ...unless the agent asks for another company's form.
    other = client.get("/desk/login?other=1")
    assert other.status_code == 200 and soup(other).find("input", attrs={"name": "company"})


def test_an_unknown_tenant_page_is_a_clear_404(client, acme):
    answer = client.get("/desk/login/Nobody/prod")
    assert answer.status_code == 404 and "No such company" in answer.text


def test_a_foreign_next_is_not_followed(client, acme):
    token = csrf_token(soup(client.get(PAGE)))
    answer = client.post(
        PAGE + "?next=https://evil.example/",
        data={"login_user_id": AGENT, "password": PASSWORD, "csrf_token": token},
    )
    assert answer.headers["Location"] == "/desk"


def test_switching_agents_passwords_off_refuses_them_everywhere(client, acme):
    acme.local_agent_passwords = False
    db.session.commit()
    page = soup(client.get(PAGE))
    assert page.find("input", attrs={"name": "password"}) is None
    assert sign_in_on_page(client).status_code == 200  # nothing signed in
    assert client.get("/desk").status_code == 302
    # The form with company and environment sends the agent to the tenant's page.
    token = csrf_token(soup(client.get("/desk/login?other=1")))
    answer = client.post(
        "/desk/login?other=1",
        data={
            "company": "Acme",
            "environment": "prod",
            "login_user_id": AGENT,
            "password": PASSWORD,
            "csrf_token": token,
        },
    )
    assert answer.status_code == 302 and answer.headers["Location"].startswith(PAGE)
    assert client.get("/desk").status_code == 302


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf"])
def test_a_sign_in_form_without_its_csrf_token_is_refused(client, acme):
    answer = client.post(PAGE, data={"login_user_id": AGENT, "password": PASSWORD})
    assert answer.status_code in (400, 422)
    assert client.get("/desk").status_code == 302
    assert sign_in_on_page(client).status_code == 302  # with it, the same form signs in


def test_only_a_provisioned_agent_is_signed_in(app, acme):
    issuer = "https://idp.example"
    said = Identity(kind="oidc", issuer=issuer, subject="1", login="ANN@acme.example")
    assert agent_for(acme, said).login_user_id == AGENT  # e-mail case does not matter
    stranger = Identity(kind="oidc", issuer=issuer, subject="2", login="bob@x.example")
    with pytest.raises(SignInRefused, match="has no agent 'bob@x.example'"):
        agent_for(acme, stranger)


def test_secrets_are_sealed_and_open_only_under_the_same_key(app):
    sealed = sealing.seal("client secret")
    assert "client secret" not in sealed and sealing.unseal(sealed) == "client secret"
    app.config["SECRET_KEY"] = "another key of the same length, or any length"
    with pytest.raises(Exception, match="set it again"):
        sealing.unseal(sealed)


def test_an_assertion_is_accepted_once(app):
    now = utcnow()
    assert replays.first_use("https://idp", "id-1", now + timedelta(minutes=5), now)
    assert not replays.first_use("https://idp", "id-1", now + timedelta(minutes=5), now)
    assert replays.first_use("https://other-idp", "id-1", now + timedelta(minutes=5), now)
    # Once expired it is forgotten (its own time check refuses it by then).
    later = now + timedelta(minutes=10)
    assert replays.first_use("https://idp", "id-1", later + timedelta(minutes=5), later)


def test_a_provider_is_set_shown_without_its_secret_and_removed(app, acme):
    settings = {"issuer": "https://idp.example", "client_id": "desk", "login_claim": "email"}
    providers.set_provider(acme, ProviderKind.OIDC, settings, secret="s3cret", actor=SETUP)
    acme.local_agent_passwords = False
    db.session.commit()
    shown = providers.describe(providers.provider_for(acme))
    assert shown["kind"] == "oidc" and shown["secretSet"] is True
    assert "s3cret" not in repr(shown)
    assert providers.secret_of(providers.provider_for(acme)) == "s3cret"
    providers.remove_provider(acme, actor=SETUP)
    db.session.commit()
    assert providers.provider_for(acme) is None
    assert acme.local_agent_passwords is True  # nobody is locked out


@pytest.mark.parametrize("door", ["user provisioning api", "supervisors page"])
def test_deleting_an_agent_ends_their_desk_sessions_at_once(app, acme, boss, door):
    """An agent offboarded (here, whatever signed them in) loses the desk at the next
    request: their sessions are gone with them."""
    ann = db.session.query(User).filter_by(login_user_id=AGENT).one()
    desk = desk_session(app.test_client(), ann)
    assert db.session.query(AgentSession).count() == 1
    if door == "user provisioning api":
        key = api_keys.issue_key(acme, actor=SETUP)
        db.session.commit()
        answer = UsersApi(app.test_client(), "Acme", "prod", key).delete(AGENT)
        assert answer["result"] == "SUCCESS"
    else:
        console = session_for(app.test_client(), boss)
        page = console.post(f"/tenants/{acme.id}/users/{ann.id}/delete")
        assert page.status_code == 302
    db.session.expire_all()
    assert db.session.query(AgentSession).count() == 0
    answer = desk.get("/desk")
    assert answer.status_code == 302 and "/desk/login" in answer.headers["Location"]
