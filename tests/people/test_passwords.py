"""Password hashes use the configured method; an unknown account costs a wrong password's
work, of the same method."""

from __future__ import annotations

import pytest
from werkzeug import security

from app import config
from app.services.people import agents, passwords, supervisors
from tests.admin.conftest import BOSS, PASSWORD, make_supervisor
from tests.conftest import SETUP


@pytest.fixture
def settings(settings):
    # What a deployment gets without PASSWORD_HASH_METHOD (the tests' own is one round).
    return {**settings, "PASSWORD_HASH_METHOD": config.password_hash_method({})}


def test_a_deployment_hashes_passwords_with_scrypt(app):
    supervisor = make_supervisor()
    assert supervisor.password_hash.startswith("scrypt:32768:8:1$")
    assert supervisors.authenticate(supervisor.email, PASSWORD) == supervisor
    assert supervisors.authenticate(supervisor.email, PASSWORD + "x") is None


def test_an_unknown_account_is_checked_against_a_hash_of_the_same_method(app, monkeypatch):
    checked = []
    check = security.check_password_hash

    def recorded(stored: str, password: str) -> bool:
        checked.append(stored.split("$", 1)[0])
        return check(stored, password)

    monkeypatch.setattr(passwords, "check_password_hash", recorded)
    make_supervisor()
    assert supervisors.authenticate("nobody@example.com", PASSWORD) is None
    assert agents.authenticate(None, "nobody", PASSWORD) is None
    assert supervisors.authenticate(BOSS, "wrong password") is None
    assert checked == ["scrypt:32768:8:1"] * 3


def test_a_password_set_by_an_operator_uses_the_configured_method(app):
    supervisor = make_supervisor()
    app.config["PASSWORD_HASH_METHOD"] = "pbkdf2:sha256:1000"
    supervisors.set_password(supervisor, "juniper-cobalt-71-harbor", actor=SETUP)
    assert supervisor.password_hash.startswith("pbkdf2:sha256:1000$")
    assert passwords.password_matches(supervisor.password_hash, "juniper-cobalt-71-harbor")
