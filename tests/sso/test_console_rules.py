"""The console's identity provider: groups decide who supervises which tenants, and local
passwords are then for break-glass accounts only."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from app.extensions import db
from app.models import AuditRecord, ProviderKind, Supervisor
from app.services.people import supervisors
from app.services.sso import providers
from app.services.sso.identity import Identity, SignInRefused, supervisor_for
from tests.conftest import SETUP, make_tenant
from tests.ui.conftest import BOSS, PASSWORD, make_supervisor, sign_in

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


def test_an_existing_account_is_linked_by_its_email(console):
    make_supervisor("sue@example.com")
    supervisor = supervisor_for(console, person("acme-sup", login="Sue@Example.com"))
    db.session.commit()
    assert supervisor.sso_subject == f"{ISSUER}|sue"
    assert db.session.query(Supervisor).count() == 1


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
