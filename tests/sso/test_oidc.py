"""Signing in through a real OpenID provider (oidc-provider under node): the code flow from
the desk's and the console's buttons to a signed-in agent or supervisor, each refused answer
changing nothing, and the provider's own sign-out."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import socket
import time
from datetime import timedelta
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
import requests
from bs4 import BeautifulSoup
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, SeenAssertion, Supervisor, User
from app.models.types import utcnow
from app.services.outbound import fetch
from app.services.sso import oidc, oidc_published, providers
from app.web import oidc_flow
from tests.admin.conftest import csrf_token, make_supervisor, soup
from tests.conftest import SETUP, make_tenant
from tests.desk.desk_support import make_agent
from tests.sso.oidc_support import CONSOLE_CLIENT, DESK_CLIENT

PAGE = "/desk/login/Acme/prod"
CALLBACK = "/desk/sso/Acme/prod/oidc/callback"
ALICE = "alice@acme.example"


@pytest.fixture(autouse=True)
def _fresh_cache():
    oidc_published.forget_cached()
    yield
    oidc_published.forget_cached()


@pytest.fixture
def acme(app, openid_provider):
    """Acme/prod signing its agents in through the provider; Alice is provisioned."""
    tenant, _ = make_tenant()
    make_agent(tenant, ALICE, password=None)
    settings = oidc.settings_from(openid_provider.issuer, DESK_CLIENT[0], "email")
    providers.set_provider(tenant, "oidc", settings, secret=DESK_CLIENT[1], actor=SETUP)
    db.session.commit()
    return tenant


@pytest.fixture
def console(app, openid_provider, acme):
    """The console's provider: console-admins supervise everyone, acme-supervisors Acme."""
    settings = oidc.settings_from(
        openid_provider.issuer,
        CONSOLE_CLIENT[0],
        "email",
        console={
            "groups_claim": "groups",
            "all_tenants_groups": ["console-admins"],
            "tenant_groups": {"acme-supervisors": ["Acme/prod"]},
        },
    )
    providers.set_provider(None, "oidc", settings, secret=CONSOLE_CLIENT[1], actor=SETUP)
    db.session.commit()


def start(client, page=PAGE, start_path="/desk/sso/Acme/prod/start"):
    """Press the page's provider button: the provider's authorization URL."""
    token = csrf_token(soup(client.get(page)))
    answer = client.post(start_path, data={"csrf_token": token} if token else {})
    return onward(answer)


def onward(answer) -> str:
    """Where a page sending the browser on to the provider leads."""
    assert answer.status_code == 200, answer.text
    page = soup(answer)
    url = page.select_one("a[data-continue]")["href"]
    assert page.find("meta", attrs={"http-equiv": "refresh"})["content"] == f"0; url={url}"
    return url


def at_provider(authorize_url: str, login: str) -> str:
    """Sign in at the provider as a browser would (its login form, any password): the
    callback URL it sends the browser back to."""
    url, method, data = authorize_url, "GET", None
    with requests.Session() as browser:
        for _ in range(10):
            answer = browser.request(method, url, data=data, allow_redirects=False, timeout=5)
            if answer.is_redirect:
                url, method, data = urljoin(url, answer.headers["Location"]), "GET", None
                if url.startswith("http://localhost/"):
                    return url
                continue
            assert answer.status_code == 200, answer.text
            form = BeautifulSoup(answer.text, "html.parser").find("form")
            fields = form.find_all("input")
            data = {i["name"]: i.get("value", "") for i in fields if i.get("name")}
            data.update(login=login, password="any password")
            url, method = urljoin(url, form["action"]), "POST"
    raise AssertionError("the provider never sent the browser back")


def local(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def sign_in(client, login="alice", **start_options):
    return client.get(local(at_provider(start(client, **start_options), login)))


def counts():
    db.session.rollback()
    return tuple(
        db.session.scalar(select(func.count()).select_from(model))
        for model in (User, Supervisor, AuditRecord, SeenAssertion)
    )


# --- the code flow ----------------------------------------------------------------------


def test_an_agent_signs_in_through_the_provider(client, acme, openid_provider):
    authorize = start(client)
    query = parse_qs(urlsplit(authorize).query)
    assert authorize.startswith(openid_provider.issuer + "/auth?")
    assert query["code_challenge_method"] == ["S256"] and query["code_challenge"]
    assert query["redirect_uri"] == ["http://localhost" + CALLBACK]
    assert query["client_id"] == [DESK_CLIENT[0]]
    answer = client.get(local(at_provider(authorize, "alice")))
    assert answer.status_code == 302 and answer.location == "/desk"
    assert client.get("/desk").status_code == 200


def test_the_settings_are_checked_against_the_discovery_document(app, openid_provider):
    settings = oidc.settings_from(openid_provider.issuer, "desk-app", "preferred_username")
    assert settings["token_auth_method"] == "client_secret_basic"
    assert settings["scopes"] == ["openid", "email", "profile"]
    with pytest.raises(oidc.InvalidInput) as refused:
        oidc.settings_from(openid_provider.issuer + "/", "desk-app")  # not exactly its issuer
    assert str(refused.value.field) == "issuer"
    with pytest.raises(oidc.InvalidInput) as refused:
        oidc.settings_from("http://idp.example.com", "desk-app")  # plain http elsewhere
    assert str(refused.value.field) == "issuer"
    with pytest.raises(oidc.InvalidInput) as refused:
        oidc.settings_from(openid_provider.issuer, "desk-app", "name")
    assert str(refused.value.field) == "login_claim"


def test_an_unprovisioned_person_is_refused_and_nothing_is_made(client, acme):
    before = counts()
    answer = sign_in(client, "zoe")
    assert answer.status_code == 403
    assert "has no agent" in answer.text and "zoe@acme.example" in answer.text
    assert counts() == before
    assert client.get("/desk").status_code == 302


def test_an_unverified_email_does_not_sign_in(client, acme):
    make_agent(acme, "nina@acme.example", password=None)
    answer = sign_in(client, "nina")
    assert answer.status_code == 403 and "not verified your e-mail" in answer.text
    assert client.get("/desk").status_code == 302


def test_the_login_may_be_the_preferred_username(client, acme, openid_provider):
    make_agent(acme, "alice", password=None)
    settings = oidc.settings_from(openid_provider.issuer, DESK_CLIENT[0], "preferred_username")
    providers.set_provider(acme, "oidc", settings, actor=SETUP)
    db.session.commit()
    assert sign_in(client).location == "/desk"


# --- refused answers, each changing nothing ----------------------------------------------


def test_a_state_that_does_not_match_is_refused(client, acme):
    callback = at_provider(start(client), "alice")
    before = counts()
    forged = local(callback).replace("state=", "state=x")
    answer = client.get(forged)
    assert answer.status_code == 400 and "Please start again" in answer.text
    assert counts() == before
    # ...and the sign-in it interrupted is over: its real answer is refused too.
    assert client.get(local(callback)).status_code == 400
    assert client.get("/desk").status_code == 302


def test_a_callback_is_used_once(client, acme):
    callback = local(at_provider(start(client), "alice"))
    assert client.get(callback).location == "/desk"
    client.post("/desk/logout")  # a new browser session would do the same
    before = counts()
    again = client.get(callback)
    assert again.status_code == 400
    assert counts() == before


def test_a_callback_without_a_started_sign_in_is_refused(client, acme, app):
    callback = local(at_provider(start(app.test_client()), "alice"))  # another browser's
    answer = client.get(callback)
    assert answer.status_code == 400
    assert client.get("/desk").status_code == 302


def test_the_providers_error_is_shown_clearly(client, acme):
    state = parse_qs(urlsplit(start(client)).query)["state"][0]
    answer = client.get(
        CALLBACK,
        query_string={
            "state": state,
            "error": "access_denied",
            "error_description": "<b>User said no</b>",
        },  # fmt: skip
    )
    assert answer.status_code == 403
    assert "did not sign you in: &lt;b&gt;User said no&lt;/b&gt;" in answer.text


def test_an_answer_naming_another_issuer_is_refused(client, acme):
    callback = local(at_provider(start(client), "alice"))
    before = counts()
    assert "&iss=" in callback  # the provider names itself (RFC 9207)
    answer = client.get(callback.replace("&iss=", "&iss=x"))
    assert answer.status_code == 403 and "another identity provider" in answer.text
    assert counts() == before
    assert client.get("/desk").status_code == 302


def test_a_sign_in_past_its_time_is_refused(client, acme, monkeypatch):
    callback = local(at_provider(start(client), "alice"))
    later = utcnow() + timedelta(minutes=11)
    monkeypatch.setattr(oidc_flow, "utcnow", lambda: later)
    before = counts()
    assert client.get(callback).status_code == 400
    assert counts() == before


# ID tokens forged one claim at a time, checked as the callback checks them.


@pytest.fixture
def claims(openid_provider):
    now = int(utcnow().timestamp())
    return {
        "iss": openid_provider.issuer,
        "aud": DESK_CLIENT[0],
        "sub": "alice",
        "nonce": "the-nonce",
        "iat": now,
        "exp": now + 600,
        "email": ALICE,
    }


@pytest.fixture
def desk_settings(acme):
    return providers.provider_for(acme).settings


def b64(header: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(header).encode()).rstrip(b"=").decode()


def check(settings, token, now=None):
    return oidc.id_token_claims(settings, token, "the-nonce", now or utcnow())


def test_a_token_the_provider_signed_is_accepted(desk_settings, openid_provider, claims):
    assert check(desk_settings, openid_provider.sign(claims))["sub"] == "alice"


@pytest.mark.parametrize("jti", ["token-1", None])
def test_a_token_is_accepted_once(desk_settings, openid_provider, claims, jti):
    """By its jti, or its nonce when it has none."""
    tokens = {"id_token": openid_provider.sign({**claims, "jti": jti} if jti else claims)}
    pending = {"nonce": "the-nonce"}
    now = utcnow()
    assert oidc.identity_of(desk_settings, tokens, pending, now).login == ALICE
    with pytest.raises(oidc.SignInRefused, match="already used"):
        oidc.identity_of(desk_settings, tokens, pending, now)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"iss": "http://127.0.0.1:1"}, "another identity provider"),
        ({"aud": "console-app"}, "another application"),
        ({"aud": ["desk-app", "other-app"]}, "another application"),  # no azp
        ({"aud": ["desk-app", "other-app"], "azp": "other-app"}, "another application"),
        ({"nonce": "another-nonce"}, "does not belong to this sign-in"),
        ({"nonce": None}, "does not belong to this sign-in"),
        ({"exp": None}, "no valid 'exp'"),
    ],
)
def test_a_token_with_a_wrong_claim_is_refused(desk_settings, openid_provider, claims,
                                               change, message):  # fmt: skip
    forged = {k: v for k, v in {**claims, **change}.items() if v is not None}
    with pytest.raises(oidc.SignInRefused, match=message):
        check(desk_settings, openid_provider.sign(forged))


@pytest.mark.parametrize("token", ["garbage", "WzFd.e30.x", "eyJhbGciOiJSUzI1NiJ9.%%%.x"])
def test_an_unreadable_token_is_refused(desk_settings, token):
    with pytest.raises(oidc.SignInRefused):
        check(desk_settings, token)


def test_a_wrong_client_secret_is_refused_by_the_provider_and_changes_nothing(client, acme):
    provider = providers.provider_for(acme)
    providers.set_provider(acme, "oidc", provider.settings, secret="not-the-secret", actor=SETUP)
    db.session.commit()
    callback = local(at_provider(start(client), "alice"))
    before = counts()
    answer = client.get(callback)
    assert answer.status_code == 403 and "refused the sign-in (invalid_client)" in answer.text
    assert counts() == before


def test_several_audiences_with_ours_as_authorized_party_are_accepted(
    desk_settings, openid_provider, claims
):
    token = openid_provider.sign({**claims, "aud": ["desk-app", "other"], "azp": "desk-app"})
    assert check(desk_settings, token)["sub"] == "alice"


def test_an_expired_token_is_refused_after_the_skew(desk_settings, openid_provider, claims):
    token = openid_provider.sign(claims)
    expires = utcnow() + timedelta(seconds=600)
    assert check(desk_settings, token, expires + oidc.SKEW - timedelta(seconds=1))
    with pytest.raises(oidc.SignInRefused, match="expired"):
        check(desk_settings, token, expires + oidc.SKEW + timedelta(seconds=2))
    with pytest.raises(oidc.SignInRefused, match="future"):
        check(desk_settings, token, utcnow() - oidc.SKEW - timedelta(seconds=5))


def test_tokens_not_signed_by_the_providers_keys_are_refused(
    desk_settings, openid_provider, claims
):
    from joserfc.jwk import RSAKey

    stranger = RSAKey.generate_key(2048, parameters={"kid": "test-key-1"})
    with pytest.raises(oidc.SignInRefused, match="not signed with its keys"):
        check(desk_settings, openid_provider.sign(claims, key=stranger))
    unknown = RSAKey.generate_key(2048, parameters={"kid": "rotated"})
    with pytest.raises(oidc.SignInRefused, match="not signed with its keys"):
        check(desk_settings, openid_provider.sign(claims, key=unknown))
    # HS256 keyed with the provider's public key, and no signature at all.
    public = openid_provider.key.as_pem(private=False)
    header = b64({"alg": "HS256", "kid": "test-key-1"})
    body = openid_provider.sign(claims).split(".")[1]
    mac = hmac.new(public, f"{header}.{body}".encode(), hashlib.sha256).digest()
    keyed = f"{header}.{body}." + base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
    with pytest.raises(oidc.SignInRefused, match="not signed with its keys"):
        check(desk_settings, keyed)
    unsigned = b64({"alg": "none"}) + "." + body + "."
    with pytest.raises(oidc.SignInRefused, match="not signed with its keys"):
        check(desk_settings, unsigned)


def keep_keys(issuer: str, *, fetched_ago: float) -> None:
    """The service keeps a key set without the provider's current key, fetched so long ago."""
    from joserfc.jwk import KeySet, RSAKey

    old = RSAKey.generate_key(2048, parameters={"kid": "retired"}, private=False)
    now = time.monotonic()
    oidc_published._key_sets[issuer] = oidc_published._Kept(
        KeySet([old]), now + 3600, now - fetched_ago
    )


def test_keys_the_provider_rotated_in_are_fetched_again(desk_settings, openid_provider, claims):
    keep_keys(openid_provider.issuer, fetched_ago=oidc_published.REFETCH_SECONDS + 1)
    assert check(desk_settings, openid_provider.sign(claims))["sub"] == "alice"


def test_unknown_key_ids_fetch_the_keys_at_most_once_a_minute(
    desk_settings, openid_provider, claims
):
    keep_keys(openid_provider.issuer, fetched_ago=1)
    with pytest.raises(oidc.SignInRefused, match="not signed with its keys"):
        check(desk_settings, openid_provider.sign(claims))


def test_a_real_token_for_the_console_is_refused_at_the_desk(client, acme, console):
    """A token the provider issued to another client (audience) does not sign in here."""
    authorize = start(client, page="/login", start_path="/sso/start")
    callback = parse_qs(urlsplit(at_provider(authorize, "sam")).query)
    with client.session_transaction() as session:  # the console's pending sign-in
        pending = session[oidc_flow.PENDING_KEY]
    console_settings = providers.provider_for(None).settings
    tokens = oidc.exchange_code(console_settings, CONSOLE_CLIENT[1], callback["code"][0], pending)
    desk_settings = providers.provider_for(acme).settings
    with pytest.raises(oidc.SignInRefused, match="another application"):
        oidc.id_token_claims(desk_settings, tokens["id_token"], pending["nonce"], utcnow())
    assert oidc.id_token_claims(console_settings, tokens["id_token"], pending["nonce"], utcnow())


# --- the provider down ---------------------------------------------------------------------


def test_a_provider_that_does_not_answer_gets_a_clear_page_in_time(client, acme):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # accepts connections, never answers
    try:
        provider = providers.provider_for(acme)
        issuer = f"http://127.0.0.1:{silent.getsockname()[1]}"
        provider.settings = {**provider.settings, "issuer": issuer}
        db.session.commit()
        token = csrf_token(soup(client.get(PAGE)))
        started = time.monotonic()
        data = {"csrf_token": token} if token else {}
        answer = client.post("/desk/sso/Acme/prod/start", data=data)
        took = time.monotonic() - started
    finally:
        silent.close()
    assert answer.status_code == 424 and "did not answer" in answer.text
    assert took < sum(fetch.timeouts()) + 1


def test_a_provider_gone_before_its_answer_gets_a_clear_page(client, acme):
    answer = urlsplit(at_provider(start(client), "alice"))
    # The provider moved (nothing answers at its address now); its answer names no issuer.
    callback = f"{answer.path}?{re.sub(r'&iss=[^&]*', '', answer.query)}"
    assert "iss=" not in callback
    provider = providers.provider_for(acme)
    provider.settings = {**provider.settings, "issuer": "http://127.0.0.1:9"}
    db.session.commit()
    oidc_published.forget_cached()
    before = counts()
    answer = client.get(callback)
    assert answer.status_code == 424 and "did not answer" in answer.text
    assert counts() == before


# --- the console ---------------------------------------------------------------------------


def test_the_console_signs_in_a_supervisor_of_every_tenant(client, console):
    answer = sign_in(client, "sam", page="/login", start_path="/sso/start")
    assert answer.status_code == 302
    sam = db.session.scalar(select(Supervisor).filter_by(email="sam@example.com"))
    assert sam.all_tenants and sam.sso_subject.endswith("|sam")
    assert client.get("/tenants").status_code == 200


def test_an_unverified_email_never_takes_over_a_password_supervisor(client, console, acme):
    """The provider's `email` names an existing password account, without
    `email_verified`: the account is not linked and keeps its tenants."""
    uma = make_supervisor("uma@example.com", [acme])
    answer = sign_in(client, "uma", page="/login", start_path="/sso/start")
    assert answer.status_code == 403
    assert "cannot be linked to it automatically" in answer.text
    assert "subject uma" in answer.text  # what the operator needs to link it
    db.session.expire_all()
    uma = db.session.get(Supervisor, uma.id)
    assert uma.sso_subject is None and not uma.all_tenants
    assert [t.label for t in uma.tenants] == ["Acme/prod"]
    assert client.get("/tenants").status_code == 302  # nobody signed in


def test_groups_only_at_userinfo_still_map_to_tenants(client, console, acme):
    answer = sign_in(client, "tess", page="/login", start_path="/sso/start")
    assert answer.status_code == 302
    tess = db.session.scalar(select(Supervisor).filter_by(email="tess@example.com"))
    assert not tess.all_tenants and [t.label for t in tess.tenants] == [acme.label]


def test_groups_that_grant_nothing_make_nobody(client, console):
    before = counts()
    answer = sign_in(client, "carl", page="/login", start_path="/sso/start")
    assert answer.status_code == 403 and "none of your groups" in answer.text
    assert counts() == before


def test_break_glass_passwords_still_sign_in(client, console):
    from app.services.people.supervisors import set_break_glass
    from tests.admin.conftest import sign_in as password_sign_in

    boss = make_supervisor("boss@example.com")
    set_break_glass(boss, True, actor=SETUP)
    db.session.commit()
    assert password_sign_in(client, "boss@example.com").status_code == 302
    assert client.get("/tenants").status_code == 200


# --- signing out -----------------------------------------------------------------------------


def test_signing_out_of_the_desk_signs_out_at_the_provider(client, acme, openid_provider):
    sign_in(client)
    token = csrf_token(soup(client.get("/desk")))
    answer = client.post("/desk/logout", data={"csrf_token": token} if token else {})
    location = urlsplit(onward(answer))
    assert f"{location.scheme}://{location.netloc}{location.path}" == (
        openid_provider.issuer + "/session/end"
    )
    assert parse_qs(location.query) == {
        "client_id": [DESK_CLIENT[0]],
        "post_logout_redirect_uri": ["http://localhost" + PAGE],
    }
    # The provider takes it: its sign-out page asks to confirm.
    assert requests.get(onward(answer), timeout=5).status_code == 200
    assert client.get("/desk").status_code == 302


def test_signing_out_of_the_console_signs_out_at_the_provider(client, console, openid_provider):
    sign_in(client, "sam", page="/login", start_path="/sso/start")
    token = csrf_token(soup(client.get("/logout")))
    answer = client.post("/logout", data={"csrf_token": token} if token else {})
    location = urlsplit(onward(answer))
    assert location.path == "/session/end"
    assert parse_qs(location.query) == {
        "client_id": [CONSOLE_CLIENT[0]],
        "post_logout_redirect_uri": ["http://localhost/login"],
    }
    assert client.get("/tenants").status_code == 302


def test_a_password_sign_in_signs_out_here_only(client, console):
    from app.services.people.supervisors import set_break_glass
    from tests.admin.conftest import sign_in as password_sign_in

    boss = make_supervisor("boss@example.com")
    set_break_glass(boss, True, actor=SETUP)
    db.session.commit()
    password_sign_in(client, "boss@example.com")
    token = csrf_token(soup(client.get("/logout")))
    answer = client.post("/logout", data={"csrf_token": token} if token else {})
    assert answer.status_code == 302 and answer.location == "/login"


def test_a_callback_where_no_openid_provider_is_set_goes_to_the_sign_in_page(client, app):
    make_tenant()
    answer = client.get(CALLBACK + "?code=x&state=y")
    assert answer.status_code == 302 and answer.location == PAGE
    assert client.get("/desk/sso/Nobody/prod/oidc/callback").status_code == 404
    console = client.get("/sso/oidc/callback?code=x&state=y")
    assert console.status_code == 302 and console.location == "/login"


def test_a_desk_sign_in_cannot_be_finished_at_the_console(client, console):
    callback = urlsplit(at_provider(start(client), "alice"))
    before = counts()
    answer = client.get(f"/sso/oidc/callback?{callback.query}")
    assert answer.status_code == 400
    assert counts() == before
