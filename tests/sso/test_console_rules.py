"""The console's identity provider: groups decide who supervises which tenants, and local
passwords are then for break-glass accounts only."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from app.cli.sso import console_settings
from app.extensions import db
from app.models import AuditRecord, ProviderKind, Supervisor
from app.services.people import supervisors
from app.services.sso import providers
from app.services.sso.identity import Identity, SignInRefused, supervisor_for
from tests.admin.conftest import BOSS, PASSWORD, make_supervisor, sign_in
from tests.conftest import SETUP, make_tenant

ISSUER = "https://idp.example"
CONSOLE = {
    "issuer": ISSUER,
    "client_id": "console",
    "login_claim": "email",
    "groups_claim": "groups",
    "all_tenants_groups": ["cc-admins"],
    "tenant_groups": {"acme-sup": ["Acme/prod"], "beta-sup": ["Beta/prod", "Gone/prod"]},
}


@pytest.fixture
def console(app):
    make_tenant()
    make_tenant("Beta", queues=("Sales",), campaigns_=())
    provider = providers.set_provider(None, ProviderKind.OIDC, CONSOLE, secret="x", actor=SETUP)
    db.session.commit()
    return provider


def person(*groups: str, login="sue@example.com", subject="sue") -> Identity:
    return Identity("oidc", ISSUER, subject, login, groups=groups)


@pytest.mark.parametrize(
    ("groups", "all_tenants", "labels"),
    [
        (("cc-admins",), True, []),
        (("acme-sup",), False, ["Acme/prod"]),
        (("acme-sup", "beta-sup"), False, ["Acme/prod", "Beta/prod"]),
        (("beta-sup", "other"), False, ["Beta/prod"]),
    ],
)
def test_groups_decide_which_tenants_a_supervisor_sees(console, groups, all_tenants, labels):
    supervisor = supervisor_for(console, person(*groups))
    db.session.commit()
    assert supervisor.all_tenants is all_tenants
    assert sorted(t.label for t in supervisor.tenants) == labels
    assert supervisor.password_hash == ""  # no password of ours
    assert db.session.query(AuditRecord).filter_by(action="supervisor.added").count() == 1


def test_a_person_whose_groups_grant_nothing_is_refused_and_nothing_is_made(console):
    with pytest.raises(SignInRefused, match="none of your groups"):
        supervisor_for(console, person("marketing"))
    db.session.rollback()
    assert db.session.query(Supervisor).count() == 0


def test_a_group_taken_away_takes_the_tenants_away_at_the_next_sign_in(console):
    supervisor_for(console, person("acme-sup", "beta-sup"))
    db.session.commit()
    supervisor = supervisor_for(console, person("beta-sup"))
    db.session.commit()
    assert [t.label for t in supervisor.tenants] == ["Beta/prod"]
    assert db.session.query(AuditRecord).filter_by(action="supervisor.access_changed").count()


def test_an_account_without_a_password_is_linked_by_its_verified_email(console):
    db.session.add(Supervisor(email="sue@example.com", password_hash="", all_tenants=False))
    db.session.commit()
    verified = Identity(
        "oidc", ISSUER, "sue", "Sue@Example.com", ("acme-sup",), email_verified=True
    )
    supervisor = supervisor_for(console, verified)
    db.session.commit()
    assert supervisor.sso_subject == f"{ISSUER}|sue"
    assert db.session.query(Supervisor).count() == 1
    linked = db.session.query(AuditRecord).filter_by(action="supervisor.identity_linked").one()
    assert linked.after["identity"] == f"{ISSUER}|sue"


def _account(kind: str) -> Supervisor:
    if kind == "no-password":
        account = Supervisor(email="sue@example.com", password_hash="", all_tenants=True)
        db.session.add(account)
    else:
        account = make_supervisor("sue@example.com")
    if kind == "break-glass":
        supervisors.set_break_glass(account, True, actor=SETUP)
    if kind == "linked-elsewhere":
        account.password_hash, account.sso_subject = "", f"{ISSUER}|someone-else"
    db.session.commit()
    return account


@pytest.mark.parametrize(
    ("kind", "verified"),
    [
        ("password", False),
        ("password", True),
        ("break-glass", True),
        ("no-password", False),
        ("linked-elsewhere", True),
    ],
)
def test_an_account_is_never_taken_over_by_e_mail_alone(console, kind, verified):
    account = _account(kind)
    before = (account.all_tenants, [t.label for t in account.tenants], account.sso_subject)
    identity = Identity(
        "oidc", ISSUER, "sue", "sue@example.com", ("acme-sup",), email_verified=verified
    )
    with pytest.raises(SignInRefused, match="Ask an operator to link it") as refused:
        supervisor_for(console, identity)
    assert f"issuer {ISSUER}, subject sue" in refused.value.message
    db.session.rollback()
    account = db.session.get(Supervisor, account.id)
    assert (account.all_tenants, [t.label for t in account.tenants], account.sso_subject) == before


def test_an_operator_links_an_account_and_its_groups_then_decide(app, console):
    account = make_supervisor("sue@example.com")
    runner = CliRunner()
    linked = runner.invoke(
        app.cli,
        ["supervisor", "link-identity", "sue@example.com", "--issuer", ISSUER, "--subject", "sue"],
    )
    assert linked.exit_code == 0, linked.output
    assert db.session.query(AuditRecord).filter_by(action="supervisor.identity_linked").count() == 1
    supervisor = supervisor_for(console, person("acme-sup"))
    db.session.commit()
    assert supervisor.id == account.id
    assert [t.label for t in supervisor.tenants] == ["Acme/prod"] and not supervisor.all_tenants
    other = make_supervisor("tom@example.com")
    taken = runner.invoke(
        app.cli,
        ["supervisor", "link-identity", other.email, "--issuer", ISSUER, "--subject", "sue"],
    )
    assert taken.exit_code == 1 and "linked to sue@example.com already" in taken.output
    unlinked = runner.invoke(app.cli, ["supervisor", "unlink-identity", "sue@example.com"])
    assert unlinked.exit_code == 0
    db.session.expire_all()
    assert db.session.get(Supervisor, account.id).sso_subject is None


def test_with_a_console_provider_only_break_glass_accounts_use_passwords(client, app):
    boss = make_supervisor()
    assert supervisors.authenticate(BOSS, PASSWORD) is not None
    providers.set_provider(None, ProviderKind.OIDC, CONSOLE, secret="x", actor=SETUP)
    db.session.commit()
    assert supervisors.authenticate(BOSS, PASSWORD) is None
    assert sign_in(client).status_code == 200  # the form again, nobody signed in
    supervisors.set_break_glass(boss, True, actor=SETUP)
    db.session.commit()
    assert supervisors.authenticate(BOSS, PASSWORD) is not None
    assert sign_in(client).status_code == 302


def test_the_cli_shows_no_secret_and_switches_passwords(app, console):
    runner = CliRunner()
    shown = runner.invoke(app.cli, ["sso", "show", "--console"])
    assert shown.exit_code == 0 and '"secretSet": true' in shown.output
    assert '"x"' not in shown.output
    off = runner.invoke(app.cli, ["sso", "passwords", "Acme", "prod", "--off"])
    assert off.exit_code == 1 and "only once the tenant has an identity provider" in off.output
    both = runner.invoke(app.cli, ["sso", "show", "Acme", "prod", "--console"])
    assert both.exit_code == 2


ROLE_GROUPS = {
    "acme-read": ["Acme/prod:analyst"],
    "acme-admin": ["Acme/prod:administrator"],
    "beta-read": ["Beta/prod:analyst"],
}
ALL_GROUPS = {**CONSOLE["tenant_groups"], **ROLE_GROUPS}


@pytest.mark.parametrize(
    ("groups", "roles"),
    [
        (("acme-read",), {"Acme/prod": "analyst"}),
        (("acme-sup",), {"Acme/prod": "supervisor"}),
        (("acme-read", "acme-sup"), {"Acme/prod": "supervisor"}),
        (("acme-sup", "acme-admin", "acme-read"), {"Acme/prod": "administrator"}),
        (
            ("acme-read", "beta-read", "beta-sup"),
            {"Acme/prod": "analyst", "Beta/prod": "supervisor"},
        ),
    ],
)
def test_groups_give_a_role_in_each_tenant_and_the_highest_wins(console, groups, roles):
    console.settings = {
        **console.settings,
        "tenant_groups": {**CONSOLE["tenant_groups"], **ROLE_GROUPS},
    }
    db.session.commit()
    supervisor = supervisor_for(console, person(*groups))
    db.session.commit()
    assert {g.tenant.label: g.role for g in supervisor.roles} == roles
    (added,) = db.session.query(AuditRecord).filter_by(action="supervisor.added").all()
    assert added.after["tenants"] == roles


def test_a_role_taken_away_in_the_provider_lowers_it_at_the_next_sign_in(console):
    console.settings = {
        **console.settings,
        "tenant_groups": {**CONSOLE["tenant_groups"], **ROLE_GROUPS},
    }
    db.session.commit()
    supervisor_for(console, person("acme-admin"))
    db.session.commit()
    supervisor = supervisor_for(console, person("acme-read"))
    db.session.commit()
    acme = supervisor.roles[0].tenant
    assert supervisor.role_in(acme.id).value == "analyst"
    changed = db.session.query(AuditRecord).filter_by(action="supervisor.access_changed").one()
    assert changed.before["tenants"] == {"Acme/prod": "administrator"}
    assert changed.after["tenants"] == {"Acme/prod": "analyst"}


def test_the_console_provider_command_takes_a_role_per_tenant_group(app, console):
    pairs = ("acme-read=Acme/prod:analyst", "acme-sup=Acme/prod:supervisor", "b=Beta/prod")
    mapping = console_settings(None, "groups", (), pairs)
    assert mapping["tenant_groups"] == {
        "acme-read": ["Acme/prod:analyst"],
        "acme-sup": ["Acme/prod"],
        "b": ["Beta/prod"],
    }
    refused = app.test_cli_runner().invoke(
        args=[
            "sso", "oidc", "--console", "--issuer", ISSUER, "--client-id", "console",
            "--client-secret-file", "-", "--tenant-group", "beta=Beta/prod:owner",
        ],
        input="x",
    )  # fmt: skip
    assert refused.exit_code != 0
    assert "GROUP=COMPANY/ENVIRONMENT[:ROLE]" in refused.output
