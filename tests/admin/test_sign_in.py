"""Signing in and out: the login form, one generic failure message, safe `next`, the
session cookie's flags, sign-in required everywhere, and rate-limited attempts."""

from __future__ import annotations

import pytest

from app.admin.auth import FAILED_LOGIN
from app.extensions import db
from app.services.tasks.changes import find_tenant_task
from tests.admin.conftest import BOSS, PASSWORD, add_task, page, sign_in, soup

START = "/tenants"


def session_cookie(response) -> str:
    (cookie,) = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("session=")]
    return cookie


def is_signed_in(client) -> bool:
    return client.get(START).status_code == 200


def test_login_page_has_email_and_password_fields(client):
    form = page(client, "/login").find("form", method="post")
    email, password = form.find(attrs={"name": "email"}), form.find(attrs={"name": "password"})
    assert (email["type"], password["type"]) == ("email", "password")
    for field in (email, password):
        assert form.find("label", attrs={"for": field["id"]}) is not None


def test_the_right_password_signs_in(client, boss):
    response = sign_in(client)
    assert (response.status_code, response.location) == (302, START)
    assert is_signed_in(client)


@pytest.mark.parametrize(
    ("email", "password"),
    [
        pytest.param(BOSS, "wrong password", id="wrong-password"),
        pytest.param("nobody@example.com", PASSWORD, id="unknown-email"),
        pytest.param("nobody@example.com", "wrong password", id="both-wrong"),
    ],
)
def test_every_failure_gives_one_generic_message(client, boss, email, password):
    response = sign_in(client, email, password)
    assert response.status_code == 200
    errors = [e.get_text(strip=True) for e in soup(response).select(".field-error, [role=alert]")]
    assert errors == [FAILED_LOGIN]
    assert not is_signed_in(client)


@pytest.mark.parametrize(
    ("target", "lands_on"),
    [
        ("/tenants", "/tenants"),
        ("/tenants/7/keys?x=1", "/tenants/7/keys?x=1"),
        ("https://evil.example", START),
        ("https://evil.example/tenants", START),
        ("//evil.example", START),
        ("/\\evil.example", START),
        ("\\\\evil.example", START),
        ("javascript:alert(1)", START),
        ("http:evil.example", START),
        (" //evil.example", START),
    ],
)
def test_next_is_followed_only_to_this_site(client, boss, target, lands_on):
    response = sign_in(client, next_=target)
    assert (response.status_code, response.location) == (302, lands_on)


def test_a_page_asked_for_while_signed_out_is_shown_after_signing_in(client, boss, acme):
    asked = f"/tenants/{acme.id}/keys"
    to_login = client.get(asked)
    assert to_login.status_code == 302
    form = page(client, to_login.location).find("form", method="post")
    assert not form.get("action")  # the form posts back to the URL that carries `next`
    response = client.post(to_login.location, data={"email": BOSS, "password": PASSWORD})
    assert response.location == asked


def test_logout_is_a_post(client, boss):
    sign_in(client)
    asked = client.get("/logout")  # a link or a reload: asks, signs nobody out
    assert asked.status_code == 200
    assert soup(asked).select('main form[method=post][action="/logout"]')
    assert is_signed_in(client)
    response = client.post("/logout")
    assert (response.status_code, response.location) == (302, "/login")
    assert not is_signed_in(client)


PAGES = [
    ("GET", "/"),
    ("GET", "/tenants"),
    ("GET", "/tenants/{t}/campaigns"),
    ("GET", "/tenants/{t}/campaigns/{c}"),
    ("GET", "/tenants/{t}/campaigns/{c}/tasks/new"),
    ("GET", "/tenants/{t}/tasks/{r}"),
    ("GET", "/tenants/{t}/tasks/{r}/agent"),
    ("GET", "/tenants/{t}/tasks/{r}/delete"),
    ("GET", "/tenants/{t}/users"),
    ("GET", "/tenants/{t}/keys"),
    ("POST", "/tenants/{t}/keys/rotate"),
    ("POST", "/tenants/{t}/tasks/{r}/delete"),
]


@pytest.mark.parametrize(("method", "path"), PAGES)
def test_pages_redirect_to_login_when_signed_out(client, acme, renewals, method, path):
    task = add_task(renewals, "C1")
    url = path.format(t=acme.id, c=renewals.id, r=task.record_id)
    response = client.open(url, method=method)
    assert response.status_code == 302
    assert response.location.startswith("/login?next=")
    db.session.expire_all()
    assert len(acme.api_keys) == 1
    assert find_tenant_task(acme.id, task.record_id) is not None


def test_the_session_cookie_is_httponly_and_samesite_lax(client, boss):
    cookie = session_cookie(sign_in(client)).split("; ")
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # plain HTTP: a Secure cookie would never come back


def test_the_session_cookie_is_secure_over_https(client, boss):
    response = client.post(
        "/login", data={"email": BOSS, "password": PASSWORD}, base_url="https://localhost"
    )
    assert response.status_code == 302
    cookie = session_cookie(response).split("; ")
    assert {"Secure", "HttpOnly", "SameSite=Lax"} <= set(cookie)


@pytest.mark.parametrize(
    "settings",
    [{"RATELIMIT_ENABLED": True, "LOGIN_RATE_LIMIT": "3 per minute"}],
    indirect=True,
    ids=["3-per-minute"],
)
def test_login_attempts_are_rate_limited(client, boss):
    assert client.get("/login").status_code == 200
    for _ in range(3):
        assert sign_in(client, password="wrong password").status_code == 200
    assert sign_in(client).status_code == 429  # even with the right password
    assert not is_signed_in(client)
    assert client.get("/login").status_code == 200  # the form itself stays reachable
