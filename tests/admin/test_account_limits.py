"""Sign-in attempts are limited per account as well as per client address (ASVS 2.2.1):
guesses spread over many addresses still lock the account, for one window only; the
right password does not open a locked account; other accounts are untouched; a sign-in
forgets the count; and an account that does not exist is locked in the same words."""

from __future__ import annotations

import time

import pytest
from limits.storage import storage_from_string

from app.extensions import db, limiter
from app.models import LoginSession
from app.services.people import sign_in_limits
from app.services.people.sign_in_limits import AccountLimit, AccountLocked
from tests.admin.conftest import BOSS, PASSWORD, make_supervisor, soup
from tests.db.test_rate_limit_counters import Clock
from tests.desk.desk_support import AGENT, make_agent

WINDOW = 15 * 60
LIMITED = {
    "RATELIMIT_ENABLED": True,
    "LOGIN_RATE_LIMIT": "1000 per minute",  # the address limit stays out of the way
    "ACCOUNT_LOGIN_LIMIT": "3 per 15 minutes",
}
OTHER = "deputy@example.com"
LOCKED = "Too many sign-in attempts for this account. Try again in 15 minutes."


@pytest.fixture
def clock(app) -> Clock:
    """The clock of the rate-limit counters (the app's database), from now: Flask-Limiter
    sets Retry-After from the real one."""
    clock = Clock(time.time())
    limiter.storage.clock = clock
    return clock


def supervisor_sign_in(client, email: str, password: str, address: str):
    return client.post(
        "/login", data={"email": email, "password": password}, environ_base={"REMOTE_ADDR": address}
    )


def desk_sign_in(client, login: str, password: str, address: str, company: str = "Acme"):
    data = {"company": company, "environment": "prod", "login_user_id": login, "password": password}
    return client.post("/desk/login", data=data, environ_base={"REMOTE_ADDR": address})


def message(response) -> str:
    return " ".join(soup(response).select_one("form").get_text(" ", strip=True).split())


# The rule, on a storage of its own ----------------------------------------------------------


@pytest.fixture
def storage(app):
    return storage_from_string("database://", clock=Clock())


def test_an_account_is_locked_past_its_attempts_until_the_window_ends(storage):
    limit, account = AccountLimit(3, 600), sign_in_limits.supervisor_account(BOSS)
    for _ in range(3):
        sign_in_limits.count_attempt(storage, account, limit)
    storage.clock.now += 60
    with pytest.raises(AccountLocked) as locked:
        sign_in_limits.count_attempt(storage, account, limit)
    assert locked.value.retry_after == 540
    assert (
        locked.value.message
        == "Too many sign-in attempts for this account. Try again in 9 minutes."
    )
    storage.clock.now += 540  # the window has ended: the account may try again
    sign_in_limits.count_attempt(storage, account, limit)


def test_a_sign_in_forgets_the_attempts_and_accounts_count_apart(storage):
    limit = AccountLimit(2, 600)
    boss, other = sign_in_limits.supervisor_account(BOSS), sign_in_limits.supervisor_account(OTHER)
    for _ in range(2):
        sign_in_limits.count_attempt(storage, boss, limit)
    for _ in range(2):
        sign_in_limits.count_attempt(storage, other, limit)
    sign_in_limits.forget_attempts(storage, boss)
    for _ in range(2):
        sign_in_limits.count_attempt(storage, boss, limit)
    with pytest.raises(AccountLocked):
        sign_in_limits.count_attempt(storage, other, limit)


def test_an_account_is_named_as_sign_in_reads_it():
    assert sign_in_limits.supervisor_account(" Boss@Example.COM ") == (
        sign_in_limits.supervisor_account(BOSS)
    )
    assert BOSS not in sign_in_limits.supervisor_account(BOSS)  # no address kept in clear


@pytest.mark.parametrize(
    ("rule", "limit"), [("10 per 15 minutes", (10, 900)), ("5/hour", (5, 3600))]
)
def test_the_limit_is_read_in_limits_notation(rule, limit):
    assert AccountLimit.parse(rule) == AccountLimit(*limit)


# Supervisors ------------------------------------------------------------------------------


@pytest.mark.parametrize("settings", [LIMITED], indirect=True)
def test_guesses_from_many_addresses_lock_the_account_for_one_window(client, boss, clock):
    make_supervisor(OTHER)
    for n in range(3):
        response = supervisor_sign_in(client, BOSS, "wrong password", f"10.0.0.{n}")
        assert response.status_code == 200 and "Invalid e-mail address or password" in message(
            response
        )
    locked = supervisor_sign_in(client, BOSS, PASSWORD, "10.0.1.1")  # the right password
    assert locked.status_code == 429
    assert WINDOW - 2 <= int(locked.headers["Retry-After"]) <= WINDOW
    assert LOCKED in message(locked)
    assert db.session.query(LoginSession).count() == 0
    # Another account, from the same address, signs in.
    assert supervisor_sign_in(client, OTHER, PASSWORD, "10.0.0.1").status_code == 302

    clock.now += WINDOW - 1
    assert supervisor_sign_in(client, BOSS, PASSWORD, "10.0.1.1").status_code == 429
    clock.now += 1  # the window has ended
    assert supervisor_sign_in(client, BOSS, PASSWORD, "10.0.1.1").status_code == 302


@pytest.mark.parametrize("settings", [LIMITED], indirect=True)
def test_a_sign_in_forgets_the_failed_attempts(client, boss, clock):
    for _ in range(2):
        supervisor_sign_in(client, BOSS, "wrong password", "10.0.0.1")
    assert supervisor_sign_in(client, BOSS, PASSWORD, "10.0.0.1").status_code == 302
    for _ in range(2):
        supervisor_sign_in(client, BOSS, "wrong password", "10.0.0.1")
    assert supervisor_sign_in(client, BOSS, PASSWORD, "10.0.0.1").status_code == 302


@pytest.mark.parametrize("settings", [LIMITED], indirect=True)
def test_an_unknown_account_is_locked_in_the_same_words(client, boss, clock):
    for email in ("nobody@example.com", BOSS):
        for n in range(3):
            supervisor_sign_in(client, email, "wrong password", f"10.0.0.{n}")
        locked = supervisor_sign_in(client, email, "wrong password", "10.0.0.9")
        assert (locked.status_code, message(locked).count(LOCKED)) == (429, 1)
        assert soup(locked).find("input", attrs={"name": "email"})["value"] == email


def test_without_rate_limits_no_account_is_locked(client, boss):
    for _ in range(12):
        supervisor_sign_in(client, BOSS, "wrong password", "10.0.0.1")
    assert supervisor_sign_in(client, BOSS, PASSWORD, "10.0.0.1").status_code == 302


# Agents at the desk -----------------------------------------------------------------------


@pytest.mark.parametrize("settings", [LIMITED], indirect=True)
def test_desk_guesses_lock_the_agent_account_only(client, acme, clock):
    make_agent(acme)
    make_agent(acme, "bob@acme.example")
    for n in range(3):
        assert desk_sign_in(client, AGENT, "wrong password", f"10.0.0.{n}").status_code == 422
    locked = desk_sign_in(client, AGENT, PASSWORD, "10.0.1.1")
    assert locked.status_code == 429
    assert WINDOW - 2 <= int(locked.headers["Retry-After"]) <= WINDOW
    assert LOCKED in message(locked)
    assert desk_sign_in(client, "bob@acme.example", PASSWORD, "10.0.0.1").status_code == 302

    clock.now += WINDOW
    assert desk_sign_in(client, AGENT, PASSWORD, "10.0.1.1").status_code == 302


@pytest.mark.parametrize("settings", [LIMITED], indirect=True)
def test_an_unknown_tenant_or_agent_is_locked_in_the_same_words(client, acme, clock):
    make_agent(acme)
    for login, company in (("nobody@acme.example", "Acme"), (AGENT, "Nope")):
        for n in range(3):
            desk_sign_in(client, login, "wrong password", f"10.0.0.{n}", company)
        locked = desk_sign_in(client, login, PASSWORD, "10.0.0.9", company)
        assert (locked.status_code, message(locked).count(LOCKED)) == (429, 1)
    assert desk_sign_in(client, AGENT, PASSWORD, "10.0.0.9").status_code == 302
