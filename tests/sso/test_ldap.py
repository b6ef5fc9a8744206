"""Directory sign-in against a real OpenLDAP: the settings an operator may give, binding as
the person over StartTLS or LDAPS with the certificate checked, logins that try to name
another entry, the empty password, and a directory that is down or never answers."""

from __future__ import annotations

import time

import pytest
from ldap3.utils.dn import parse_dn

from app.extensions import db
from app.models import IdentityProvider
from app.services.errors import InvalidInput
from app.services.fields import LDAP_START_TLS
from app.services.sso import ldap
from tests.sso.ldap_directory import PEOPLE, TEMPLATE, directory, silent_port  # noqa: F401

ANN = "ann@acme.example"
SMITH = "smith, j"


def provider_of(settings: dict) -> IdentityProvider:
    return IdentityProvider(kind="ldap", settings=settings)


@pytest.fixture
def start_tls(app, directory):  # noqa: F811
    return provider_of(ldap.settings_from(directory.ldap_url, TEMPLATE, True, 2, directory.ca_file))


def test_the_person_signs_in_with_the_directorys_password_over_start_tls(start_tls):
    identity = ldap.authenticate(start_tls, ANN, PEOPLE[ANN])
    assert identity is not None
    assert (identity.kind, identity.login) == ("ldap", ANN)
    assert identity.subject == "uid=ann@acme.example,ou=people,dc=example,dc=org"


def test_ldaps_signs_in_too(app, directory):  # noqa: F811
    provider = provider_of(
        ldap.settings_from(directory.ldaps_url, TEMPLATE, False, 2, directory.ca_file)
    )
    assert ldap.authenticate(provider, ANN, PEOPLE[ANN]) is not None
    assert ldap.authenticate(provider, ANN, "not it") is None


@pytest.mark.parametrize(
    ("login", "password"),
    [
        (ANN, "a wrong password"),
        ("someone.else", "any password at all"),
        (ANN, ""),  # an anonymous bind, which the directory would accept
        ("", PEOPLE[ANN]),
        ("   ", PEOPLE[ANN]),
    ],
    ids=["wrong-password", "unknown-person", "empty-password", "empty-login", "blank-login"],
)
def test_what_the_directory_does_not_vouch_for_signs_nobody_in(start_tls, login, password):
    assert ldap.authenticate(start_tls, login, password) is None


@pytest.mark.parametrize(
    "login",
    [
        "*",
        "*)(uid=*",
        "ann@acme.example,ou=people",
        "ann@acme.example+cn=x",
        "x,uid=ann@acme.example",
        "ann@acme.example\x00",
        "#ann@acme.example",
        "ann@acme.example\\",
    ],
)
def test_a_crafted_login_names_no_other_entry(start_tls, login):
    # Each of these, unescaped, changes the DN; escaped, it names nobody in the directory.
    assert ldap.authenticate(start_tls, login, PEOPLE[ANN]) is None


def test_a_login_with_dn_specials_is_one_attribute_value(start_tls):
    identity = ldap.authenticate(start_tls, SMITH, PEOPLE[SMITH])
    assert identity is not None and identity.login == SMITH
    first, *rest = parse_dn(identity.subject)
    assert first[:2] == ("uid", r"smith\, j") and len(rest) == 3


@pytest.mark.parametrize(
    ("login", "dn"),
    [
        ("a,b=c+d", r"uid=a\,b\=c\+d,ou=p"),
        ('q"<>;\\', r"uid=q\"\<\>\;\\,ou=p"),
        ("#x ", r"uid=\#x\ ,ou=p"),
        (" lead", r"uid=\ lead,ou=p"),
        ("nul\x00", r"uid=nul\00,ou=p"),
    ],
)
def test_the_bind_dn_escapes_the_login_as_a_dn_value(login, dn):
    assert ldap.bind_dn("uid={login},ou=p", login) == dn


def test_a_directory_that_is_down_is_said_at_once(app, directory):  # noqa: F811
    provider = provider_of(
        ldap.settings_from("ldap://127.0.0.1:1", TEMPLATE, True, 2, directory.ca_file)
    )
    began = time.monotonic()
    with pytest.raises(ldap.DirectoryUnavailable, match="not answering"):
        ldap.authenticate(provider, ANN, PEOPLE[ANN])
    assert time.monotonic() - began < 2.5


@pytest.mark.parametrize("scheme", ["ldap", "ldaps"])
def test_a_directory_that_never_answers_is_given_up_within_the_timeout(
    app,
    silent_port,  # noqa: F811
    scheme,
):
    provider = provider_of(
        ldap.settings_from(f"{scheme}://127.0.0.1:{silent_port}", TEMPLATE, scheme == "ldap", 1)
    )
    began = time.monotonic()
    with pytest.raises(ldap.DirectoryUnavailable):
        ldap.authenticate(provider, ANN, PEOPLE[ANN])
    assert time.monotonic() - began < 2.5


def test_a_certificate_from_another_ca_is_refused(app, directory):  # noqa: F811
    # Without the directory's CA the system's CAs know nothing of it: no password is sent.
    provider = provider_of(ldap.settings_from(directory.ldaps_url, TEMPLATE, False, 2))
    with pytest.raises(ldap.DirectoryUnavailable):
        ldap.authenticate(provider, ANN, PEOPLE[ANN])


def test_a_certificate_for_another_name_is_refused(app, directory):  # noqa: F811
    # The certificate names 127.0.0.1 and localhost; the address ::ffff:127.0.0.1 is not
    # a name it carries, though it reaches the same server.
    url = directory.ldaps_url.replace("127.0.0.1", "[::ffff:127.0.0.1]")
    provider = provider_of(ldap.settings_from(url, TEMPLATE, False, 2, directory.ca_file))
    with pytest.raises(ldap.DirectoryUnavailable):
        ldap.authenticate(provider, ANN, PEOPLE[ANN])


def test_plain_ldap_for_a_lab_only_when_asked(app, directory):  # noqa: F811
    with pytest.raises(InvalidInput) as refused:
        ldap.settings_from(directory.ldap_url, TEMPLATE, False, 2)
    assert refused.value.field == LDAP_START_TLS
    settings = ldap.settings_from(directory.ldap_url, TEMPLATE, False, 2, insecure_plain=True)
    assert settings["insecure_plain"] is True
    assert ldap.authenticate(provider_of(settings), ANN, PEOPLE[ANN]) is not None


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        (("https://dir.example.org", TEMPLATE), "url"),
        (("ldaps://", TEMPLATE), "url"),
        (("ldaps://dir.example.org/dc=x?uid", TEMPLATE), "url"),
        (("ldaps://dir.example.org:99999", TEMPLATE), "url"),
        (("ldaps://dir.example.org", TEMPLATE, True), "start_tls"),
        (("ldaps://dir.example.org", "uid=ann,ou=people,dc=example,dc=org"), "bind_dn_template"),
        (("ldaps://dir.example.org", "uid={login},{login}"), "bind_dn_template"),
        (("ldaps://dir.example.org", "{login}@example.org"), "bind_dn_template"),
        (("ldaps://dir.example.org", "uid={login}"), "bind_dn_template"),
        (("ldaps://dir.example.org", "uid={login},ou={x}"), "bind_dn_template"),
        (("ldaps://dir.example.org", TEMPLATE, False, 0), "timeout_seconds"),
        (("ldaps://dir.example.org", TEMPLATE, False, 60), "timeout_seconds"),
        (("ldaps://dir.example.org", TEMPLATE, False, 5, "/nonexistent/ca.pem"), "ca_file"),
        (("ldaps://dir.example.org", TEMPLATE, False, 5, __file__), "ca_file"),
    ],
)
def test_settings_that_cannot_work_are_refused_naming_the_field(app, arguments, field):
    with pytest.raises(InvalidInput) as refused:
        ldap.settings_from(*arguments)
    assert str(refused.value.field) == field


def test_settings_are_kept_in_one_spelling(app, directory):  # noqa: F811
    settings = ldap.settings_from("LDAPS://Dir.Example.org", f" {TEMPLATE} ", False, None)
    assert settings == {
        "url": "ldaps://dir.example.org:636",
        "bind_dn_template": TEMPLATE,
        "start_tls": False,
        "timeout_seconds": 5,
        "ca_file": None,
        "insecure_plain": False,
    }
    db.session.rollback()
