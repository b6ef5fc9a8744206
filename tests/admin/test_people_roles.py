"""The tenant's People page: an administrator gives, changes and takes away console roles;
the rules hold (no account, one's own role, an operator's account, one the console's
identity provider keeps), each change is in the audit trail, and a person whose tenant is
taken away meets 404 at their next request."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, ProviderKind, Role, Supervisor
from app.services.people import supervisors
from app.services.sso import providers
from tests.admin.conftest import PASSWORD, browser, page, said_beside, session_for, soup
from tests.conftest import SETUP

ADMIN, ANN = "admin@example.com", "ann@example.com"


def _account(email: str, tenants, role: Role = Role.SUPERVISOR) -> Supervisor:
    person = supervisors.create_supervisor(email, PASSWORD, tenants, role=role, actor=SETUP)
    db.session.commit()
    return person


@pytest.fixture
def admin(app, acme):
    return session_for(browser(app), _account(ADMIN, [acme], Role.ADMINISTRATOR))


def _grant(client, acme, email: str, role: str):
    return client.post(
        f"/tenants/{acme.id}/people", data={"grant-email": email, "grant-role": role}
    )


def _role_of(email: str, tenant) -> Role | None:
    db.session.rollback()
    return db.session.scalar(select(Supervisor).filter_by(email=email)).role_in(tenant.id)


def test_the_page_lists_everyone_who_may_see_the_tenant_with_their_role(admin, acme, boss):
    _account(ANN, [acme], Role.ANALYST)
    rows = page(admin, f"/tenants/{acme.id}/people").select("tr[data-person]")
    listed = {row["data-person"]: row["data-role"] for row in rows}
    assert listed == {BOSS_EMAIL: "administrator", ADMIN: "administrator", ANN: "analyst"}


BOSS_EMAIL = "boss@example.com"


def test_an_administrator_gives_changes_and_takes_away_a_role(app, admin, acme, beta):
    ann = _account(ANN, [beta], Role.ADMINISTRATOR)  # an administrator elsewhere
    ann_client = session_for(browser(app), ann)
    assert ann_client.get(f"/tenants/{acme.id}/campaigns").status_code == 404

    given = _grant(admin, acme, " Ann@Example.com ", "analyst")
    assert given.status_code == 302
    assert "ann@example.com is now analyst of Acme/prod" in page(admin, given.location).text
    assert _role_of(ANN, acme) is Role.ANALYST and _role_of(ANN, beta) is Role.ADMINISTRATOR
    assert ann_client.get(f"/tenants/{acme.id}/campaigns").status_code == 200
    assert ann_client.get(f"/tenants/{acme.id}/campaigns/0/pause").status_code == 404

    assert _grant(admin, acme, ANN, "supervisor").status_code == 302
    assert _role_of(ANN, acme) is Role.SUPERVISOR
    assert _grant(admin, acme, ANN, "none").status_code == 302
    assert _role_of(ANN, acme) is None and _role_of(ANN, beta) is Role.ADMINISTRATOR
    assert ann_client.get(f"/tenants/{acme.id}/campaigns").status_code == 404

    trail = db.session.scalars(
        select(AuditRecord).filter_by(action="supervisor.access_changed").order_by(AuditRecord.id)
    ).all()
    assert [(r.actor_id, r.tenant_id) for r in trail] == [(ADMIN, acme.id)] * 3
    assert trail[0].before["tenants"] == {"Beta/prod": "administrator"}
    assert trail[0].after["tenants"] == {"Acme/prod": "analyst", "Beta/prod": "administrator"}


@pytest.fixture
def beta(app):
    from tests.conftest import make_tenant

    tenant, *_ = make_tenant("Beta", queues=("Sales",), campaigns_=())
    db.session.commit()
    return tenant


def test_the_same_grant_again_changes_nothing_and_says_so(admin, acme):
    _account(ANN, [acme], Role.ANALYST)
    audited = db.session.scalar(select(func.count(AuditRecord.id)))
    again = _grant(admin, acme, ANN, "analyst")
    assert "Nothing changed" in page(admin, again.location).text
    assert db.session.scalar(select(func.count(AuditRecord.id))) == audited


@pytest.mark.parametrize(
    ("email", "words", "beside"),
    [
        ("nobody@example.com", "no console account for nobody@example.com", True),
        (ADMIN, "your own role is another administrator's to change", True),
        (BOSS_EMAIL, "administers every tenant", False),
    ],
    ids=["no-account", "own-role", "operator"],
)
def test_a_refused_grant_says_why_and_changes_nothing(admin, acme, boss, email, words, beside):
    audited = db.session.scalar(select(func.count(AuditRecord.id)))
    refused = _grant(admin, acme, email, "analyst")
    assert refused.status_code == 422
    shown = soup(refused)
    assert words in (said_beside(shown, "grant-email") if beside else shown.text)
    assert shown.find("input", attrs={"name": "grant-email"})["value"] == email
    assert db.session.scalar(select(func.count(AuditRecord.id))) == audited
    assert _role_of(ADMIN, acme) is Role.ADMINISTRATOR


def test_an_account_the_console_provider_keeps_is_changed_there(admin, acme):
    ann = _account(ANN, [acme], Role.ANALYST)
    ann.sso_subject = "https://idp.example|ann"
    providers.set_provider(
        None,
        ProviderKind.OIDC,
        {
            "issuer": "https://idp.example",
            "client_id": "console",
            "login_claim": "email",
            "groups_claim": "groups",
            "all_tenants_groups": ["cc-admins"],
            "tenant_groups": {},
        },
        secret="x",
        actor=SETUP,
    )
    db.session.commit()
    row = page(admin, f"/tenants/{acme.id}/people").select_one(f'tr[data-person="{ANN}"]')
    assert "identity provider" in row.text and row.find("form") is None
    refused = _grant(admin, acme, ANN, "supervisor")
    assert refused.status_code == 422 and "change it there" in soup(refused).text
    assert _role_of(ANN, acme) is Role.ANALYST


def test_a_supervisor_neither_sees_nor_posts_the_people_page(app, acme):
    sup = session_for(browser(app), _account(ANN, [acme]))
    assert sup.get(f"/tenants/{acme.id}/people").status_code == 404
    assert _grant(sup, acme, ANN, "administrator").status_code == 404
    assert _role_of(ANN, acme) is Role.SUPERVISOR


# --- the operator's command ----------------------------------------------------------------


@pytest.fixture
def cli(app):
    runner = app.test_cli_runner()
    assert isinstance(runner, CliRunner)
    return runner


def test_the_operator_grants_and_revokes_roles_from_the_command_line(cli, acme):
    made = cli.invoke(
        args=["supervisor", "create", ANN, "--password", PASSWORD, "--tenant", "Acme/prod",
              "--role", "analyst"]
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "analyst of Acme/prod" in made.output
    assert _role_of(ANN, acme) is Role.ANALYST
    granted = cli.invoke(
        args=["supervisor", "grant", ANN, "Acme", "prod", "--role", "administrator"]
    )
    assert granted.exit_code == 0, granted.output
    assert granted.output.strip().splitlines()[-1] == f"{ANN} is administrator of Acme/prod."
    assert _role_of(ANN, acme) is Role.ADMINISTRATOR
    revoked = cli.invoke(args=["supervisor", "revoke", ANN, "Acme", "prod"])
    assert revoked.exit_code == 0, revoked.output
    assert _role_of(ANN, acme) is None
    operator = db.session.scalar(select(AuditRecord).filter_by(action="supervisor.access_changed"))
    assert operator.actor_kind == "operator"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["grant", ANN, "Acme", "prod", "--role", "owner"], "'owner' is not one of"),
        (["grant", "nobody@example.com", "Acme", "prod", "--role", "analyst"], "no supervisor"),
        (["grant", ANN, "Nope", "prod", "--role", "analyst"], "Nope"),
    ],
    ids=["unknown-role", "unknown-account", "unknown-tenant"],
)
def test_the_grant_command_refuses_what_it_cannot_do(cli, acme, args, words):
    _account(ANN, [acme], Role.ANALYST)
    result = cli.invoke(args=["supervisor", *args])
    assert result.exit_code != 0
    assert words in result.output
    assert _role_of(ANN, acme) is Role.ANALYST
