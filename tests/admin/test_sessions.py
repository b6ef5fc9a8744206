"""Sessions kept on the server: signing out ends one for every copy of its cookie, a new
password ends every other session of that supervisor, idle and too-old sessions end, and
the remember-me cookie is no way around any of it."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from flask_login.utils import encode_cookie
from sqlalchemy import func, select
from werkzeug.security import check_password_hash

from app.extensions import db
from app.models import LoginSession, Supervisor
from app.services.people import sessions
from tests.admin.conftest import (
    BOSS,
    PASSWORD,
    RequestClient,
    csrf_token,
    find_form,
    form_values,
    page,
    refusal,
    sign_in,
)

START = "/tenants"
NEW_PASSWORD = "marble-otter-41-lantern"


def is_signed_in(client) -> bool:
    response = client.get(START)
    assert response.status_code in (200, 302), response.status_code
    return response.status_code == 200


def browser(app, signed_in_as: str | None = BOSS, password: str = PASSWORD) -> RequestClient:
    """A client of its own (its own cookies), signed in through the login form."""
    app.test_client_class = RequestClient
    client = app.test_client()
    if signed_in_as:
        assert sign_in(client, signed_in_as, password).status_code == 302
    return client


def copy_of(app, client) -> RequestClient:
    """Another client holding a copy of `client`'s session cookie, as a thief would."""
    thief = browser(app, signed_in_as=None)
    thief.set_cookie("session", client.get_cookie("session").value)
    return thief


def session_count() -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count()).select_from(LoginSession))


def sign_out(client):
    return client.post("/logout")


def test_a_session_cookie_copied_before_sign_out_opens_nothing_afterwards(app, boss):
    client = browser(app)
    thief = copy_of(app, client)
    assert is_signed_in(thief)  # the copy works while the session lives

    assert sign_out(client).status_code == 302
    response = thief.get(START)
    assert (response.status_code, response.location) == (302, "/login?next=/tenants")
    assert thief.post("/logout").status_code == 302 and session_count() == 0
    assert not is_signed_in(client)


def test_the_server_keeps_only_a_hash_of_the_cookies_token(app, boss):
    client = browser(app)
    with client.session_transaction() as cookie:
        token = cookie["_user_id"]
    (row,) = db.session.scalars(select(LoginSession))
    assert row.id == hashlib.sha256(token.encode()).hexdigest() != token
    assert str(boss.id) != token


def test_each_sign_in_is_its_own_session_and_signing_in_again_ends_the_old_one(app, boss):
    laptop, phone = browser(app), browser(app)
    assert session_count() == 2
    old_cookie = copy_of(app, laptop)
    assert sign_in(laptop).status_code == 302  # again, in the same browser
    assert session_count() == 2
    assert not is_signed_in(old_cookie)
    assert is_signed_in(laptop) and is_signed_in(phone)
    sign_out(phone)
    assert is_signed_in(laptop) and not is_signed_in(phone)


# --- Changing one's password ---------------------------------------------------------------


def change_password(client, current=PASSWORD, new=NEW_PASSWORD, again=None):
    form = find_form(page(client, "/account/password"), None)
    values = form_values(form)
    for name, value in {"current": current, "new": new, "again": again or new}.items():
        values[name] = value
    return client.post("/account/password", data=values)


def test_a_new_password_ends_every_other_session_and_keeps_this_browser_signed_in(app, boss):
    here, elsewhere = browser(app), browser(app)
    copy_of_here = copy_of(app, here)
    response = change_password(here)
    assert (response.status_code, response.location) == (302, START)
    assert is_signed_in(here)
    assert not is_signed_in(elsewhere)
    assert not is_signed_in(copy_of_here)  # this browser got a new token
    assert session_count() == 1
    db.session.expire_all()
    assert check_password_hash(boss.password_hash, NEW_PASSWORD)
    assert sign_in(browser(app, None), BOSS, PASSWORD).status_code == 200  # refused
    assert is_signed_in(browser(app, BOSS, NEW_PASSWORD))


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"current": "not my password"}, "current password is not right"),
        ({"again": NEW_PASSWORD + "x"}, "The two new passwords differ."),
        ({"new": "short-pw-11"}, "at least 12 characters"),
        ({"new": "password1234"}, "common or breached"),
        ({"new": "qwertyuiop123"}, "common or breached"),
        ({"new": PASSWORD}, "must differ from the current one"),
        ({"current": ""}, "This field is required."),
    ],
    ids=["wrong-current", "mismatch", "short", "common", "keyboard-walk", "same", "no-current"],
)
def test_a_refused_password_change_changes_nothing(app, boss, fields, reason):
    here, elsewhere = browser(app), browser(app)
    response = change_password(here, **fields)
    assert reason in refusal(response)
    db.session.expire_all()
    assert check_password_hash(boss.password_hash, PASSWORD)
    assert is_signed_in(here) and is_signed_in(elsewhere)


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True, ids=["csrf"])
def test_the_password_change_needs_its_csrf_token(app, boss):
    client = browser(app)
    data = {"current": PASSWORD, "new": NEW_PASSWORD, "again": NEW_PASSWORD}
    assert client.post("/account/password", data=data).status_code == 400
    db.session.expire_all()
    assert check_password_hash(boss.password_hash, PASSWORD)
    data["csrf_token"] = csrf_token(page(client, "/account/password"))
    assert client.post("/account/password", data=data).status_code == 302


def test_the_password_page_needs_a_sign_in_and_is_linked_from_every_page(app, boss):
    signed_out = browser(app, None)
    assert signed_out.get("/account/password").location == "/login?next=/account/password"
    links = page(browser(app), START).select("a[href='/account/password']")
    assert len(links) == 1


# --- Idle and lifetime limits, on a controlled clock ---------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(sessions, "utcnow", clock)
    return clock


def last_seen() -> datetime:
    db.session.expire_all()
    return db.session.scalar(select(LoginSession.last_seen_at))


@pytest.mark.parametrize(
    "settings", [{"SESSION_IDLE_MINUTES": 30, "SESSION_MAX_HOURS": 12}], indirect=True
)
def test_a_session_idle_past_the_limit_ends(app, boss, clock):
    client = browser(app)
    signed_in_at = clock.now
    clock.advance(minutes=29, seconds=59)
    assert is_signed_in(client)  # each request pushes the idle limit back
    assert last_seen() == clock.now
    clock.advance(seconds=30)
    assert is_signed_in(client)
    assert last_seen() == signed_in_at + timedelta(minutes=29, seconds=59)  # a minute apart
    clock.advance(minutes=29, seconds=29)
    assert is_signed_in(client)
    clock.advance(minutes=30)
    assert not is_signed_in(client)
    assert session_count() == 0  # an ended session is deleted when it comes back


@pytest.mark.parametrize(
    "settings", [{"SESSION_IDLE_MINUTES": 30, "SESSION_MAX_HOURS": 12}], indirect=True
)
def test_a_session_ends_at_its_lifetime_however_busy(app, boss, clock):
    client = browser(app)
    for _ in range(12 * 3 - 1):
        clock.advance(minutes=20)
        assert is_signed_in(client)
    clock.advance(minutes=20)  # 12 hours after signing in
    assert not is_signed_in(client)
    assert sign_in(client).status_code == 302 and is_signed_in(client)


def test_signing_in_sweeps_out_sessions_past_their_limits(app, boss, clock):
    browser(app), browser(app)
    clock.advance(hours=13)
    browser(app)
    assert session_count() == 1


# --- The remember-me cookie ----------------------------------------------------------------


def test_signing_in_sets_no_remember_me_cookie(app, boss):
    client = browser(app, None)
    response = sign_in(client)
    cookies = [c.split("=")[0] for c in response.headers.getlist("Set-Cookie")]
    assert cookies == ["session"]


def test_a_remember_me_cookie_opens_nothing_once_its_session_ended(app, boss):
    client = browser(app)
    with client.session_transaction() as cookie:
        token = cookie["_user_id"]
    by_id = browser(app, None)  # a remember cookie naming the supervisor's id, as by default
    by_id.set_cookie("remember_token", encode_cookie(str(boss.id)))
    assert not is_signed_in(by_id)
    by_token = browser(app, None)
    by_token.set_cookie("remember_token", encode_cookie(token))
    assert is_signed_in(by_token)  # it is only as good as the session it names...
    sign_out(client)
    again = browser(app, None)
    again.set_cookie("remember_token", encode_cookie(token))
    assert not is_signed_in(again)  # ...which signing out ended
    assert db.session.get(Supervisor, boss.id) is not None
