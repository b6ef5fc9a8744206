"""SCIM role groups: a group name the tenant maps to a console role gives each member that
role in the tenant's console, as the account of their primary e-mail address, from the
moment they join until they leave, are deactivated or deleted, change address, or the
mapping goes; a role a person gave stays theirs, and the console's identity provider keeps
what SCIM gives when the person signs in."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, GivenBy, ProviderKind, Role, Supervisor
from app.services.people import directory_groups, supervisors
from app.services.sso import providers
from app.services.sso.identity import Identity, SignInRefused, supervisor_for
from tests.admin.conftest import PASSWORD, browser, make_supervisor, session_for
from tests.conftest import SETUP
from tests.scim.conftest import user_body
from tests.scim.test_groups import pushed

ANN, BOB = "ann@acme.example", "bob@acme.example"


def role_of(email: str, tenant) -> Role | None:
    db.session.expire_all()
    account = db.session.scalar(select(Supervisor).filter_by(email=email))
    return None if account is None else account.role_in(tenant.id)


@pytest.fixture
def people(scim, provisioned):
    """ann and bob, users of Acme/prod; "Team leads" gives supervisors, "Directors"
    administrators."""
    directory_groups.map_group(provisioned, "Team leads", None, role=Role.SUPERVISOR, actor=SETUP)
    directory_groups.map_group(provisioned, "Directors", None, role=Role.ADMINISTRATOR,
                               actor=SETUP)  # fmt: skip
    db.session.commit()
    made = {}
    for login in (ANN, BOB):
        answer = scim.post("/Users", user_body(login))
        assert answer.status_code == 201, answer.get_data(as_text=True)
        made[login] = answer.json["id"]
    return made


def test_joining_a_role_group_gives_the_role_and_leaving_takes_it(scim, people, provisioned):
    group = pushed(scim, "Team leads", people[ANN])
    assert (role_of(ANN, provisioned), role_of(BOB, provisioned)) == (Role.SUPERVISOR, None)
    account = db.session.scalar(select(Supervisor).filter_by(email=ANN))
    assert account.password_hash == "" and not account.all_tenants
    assert account.roles[0].given_by == GivenBy.SCIM
    # Entra adds by path; the higher of two groups wins.
    directors = pushed(scim, "Directors")
    add = [{"op": "Add", "path": "members", "value": [{"value": people[ANN]}]}]
    assert scim.patch(f"/Groups/{directors['id']}", add).status_code == 200
    assert role_of(ANN, provisioned) is Role.ADMINISTRATOR
    remove = [{"op": "Remove", "path": f'members[value eq "{people[ANN]}"]'}]
    assert scim.patch(f"/Groups/{directors['id']}", remove).status_code == 200
    assert role_of(ANN, provisioned) is Role.SUPERVISOR
    assert scim.delete(f"/Groups/{group['id']}").status_code == 204
    assert role_of(ANN, provisioned) is None
    trail = db.session.scalars(
        select(AuditRecord).where(AuditRecord.entity_kind == "supervisor").order_by(AuditRecord.id)
    ).all()
    assert [r.action for r in trail] == ["supervisor.added"] + ["supervisor.access_changed"] * 3
    assert {r.actor_kind for r in trail} == {"provisioning"}  # the tenant's SCIM token


def test_the_role_opens_the_console_and_deactivation_closes_it_at_once(
    app, scim, people, provisioned
):
    pushed(scim, "Team leads", people[ANN])
    account = db.session.scalar(select(Supervisor).filter_by(email=ANN))
    console = session_for(browser(app), account)
    assert console.get(f"/tenants/{provisioned.id}/campaigns").status_code == 200
    off = [{"op": "Replace", "value": {"active": "False"}}]  # as Entra sends it
    assert scim.patch(f"/Users/{people[ANN]}", off).status_code == 200
    assert role_of(ANN, provisioned) is None
    assert console.get(f"/tenants/{provisioned.id}/campaigns").status_code == 404
    on = [{"op": "replace", "path": "active", "value": True}]
    assert scim.patch(f"/Users/{people[ANN]}", on).status_code == 200
    assert role_of(ANN, provisioned) is Role.SUPERVISOR


def test_a_new_address_moves_the_role_and_deleting_the_user_takes_it(scim, people, provisioned):
    pushed(scim, "Team leads", people[ANN])
    moved = [{"op": "replace", "path": 'emails[type eq "work"].value', "value": "ann@new.example"}]
    assert scim.patch(f"/Users/{people[ANN]}", moved).status_code == 200
    assert (role_of(ANN, provisioned), role_of("ann@new.example", provisioned)) == (
        None, Role.SUPERVISOR,
    )  # fmt: skip
    assert scim.delete(f"/Users/{people[ANN]}").status_code == 204
    assert role_of("ann@new.example", provisioned) is None


def test_a_mapping_made_changed_or_removed_later_applies_at_once(scim, people, provisioned):
    pushed(scim, "Analysts", people[BOB])
    assert role_of(BOB, provisioned) is None
    directory_groups.map_group(provisioned, "analysts", None, role=Role.ANALYST, actor=SETUP)
    db.session.commit()
    assert role_of(BOB, provisioned) is Role.ANALYST
    directory_groups.map_group(provisioned, "Analysts", "Support", actor=SETUP)
    db.session.commit()
    assert role_of(BOB, provisioned) is None  # the group now gives a queue instead
    with pytest.raises(Exception, match="not both"):
        directory_groups.map_group(provisioned, "Analysts", "Support", role=Role.ANALYST,
                                   actor=SETUP)  # fmt: skip


def test_a_role_a_person_gave_stays_and_is_not_changed_by_scim(scim, people, provisioned):
    supervisors.create_supervisor(ANN, PASSWORD, [provisioned], role=Role.ANALYST, actor=SETUP)
    db.session.commit()
    group = pushed(scim, "Directors", people[ANN])
    assert role_of(ANN, provisioned) is Role.ANALYST
    assert scim.delete(f"/Groups/{group['id']}").status_code == 204
    assert role_of(ANN, provisioned) is Role.ANALYST


def test_the_people_page_and_the_operator_leave_a_scim_role_to_the_provider(
    scim, people, provisioned
):
    pushed(scim, "Team leads", people[ANN])
    account = db.session.scalar(select(Supervisor).filter_by(email=ANN))
    assert "SCIM role group" in supervisors.kept_by(account, provisioned)
    with pytest.raises(Exception, match="kept by"):
        supervisors.grant_role(account, provisioned, Role.ANALYST, actor=SETUP)


CONSOLE = {
    "issuer": "https://idp.example",
    "client_id": "console",
    "login_claim": "email",
    "groups_claim": "groups",
    "all_tenants_groups": ["cc-admins"],
    "tenant_groups": {"beta-sup": ["Beta/prod"]},
}


def test_the_console_provider_signs_in_a_scim_role_and_keeps_it(scim, people, provisioned):
    from tests.conftest import make_tenant

    make_tenant("Beta", queues=("Sales",), campaigns_=())
    provider = providers.set_provider(None, ProviderKind.OIDC, CONSOLE, secret="x", actor=SETUP)
    db.session.commit()
    nobody = Identity("oidc", CONSOLE["issuer"], "bob", BOB, (), email_verified=True)
    with pytest.raises(SignInRefused):
        supervisor_for(provider, nobody)  # no group, no role group
    db.session.rollback()
    pushed(scim, "Team leads", people[ANN])
    ann = Identity("oidc", CONSOLE["issuer"], "ann", ANN, ("beta-sup",), email_verified=True)
    account = supervisor_for(provider, ann)
    db.session.commit()
    assert {g.tenant.label: (g.role, g.given_by) for g in account.roles} == {
        "Acme/prod": ("supervisor", "scim"),
        "Beta/prod": ("supervisor", "console-provider"),
    }
    alone = Identity("oidc", CONSOLE["issuer"], "ann", ANN, (), email_verified=True)
    account = supervisor_for(provider, alone)  # the console's groups give nothing now
    db.session.commit()
    assert [g.tenant.label for g in account.roles] == ["Acme/prod"]


def test_the_cli_maps_a_group_to_a_role_and_lists_it(app, scim, people, provisioned):
    runner = app.test_cli_runner()
    made = runner.invoke(args=["scim", "map-group", "Acme", "prod", "Viewers", "--role", "analyst"])
    assert made.exit_code == 0, made.output
    assert "analysts of its console" in made.output
    listed = runner.invoke(args=["scim", "mappings", "Acme", "prod"])
    assert "Viewers\trole:analyst" in listed.output.splitlines()
    both = runner.invoke(
        args=[
            "scim",
            "map-group",
            "Acme",
            "prod",
            "Viewers",
            "--role",
            "analyst",
            "--queue",
            "Sales",
        ]
    )
    assert both.exit_code != 0 and "--queue QUEUE, --role ROLE or --none" in both.output


def test_the_sign_in_page_maps_a_group_to_a_role(app, scim, people, provisioned):
    admin = session_for(browser(app), make_supervisor())
    url = f"/tenants/{provisioned.id}/sign-in/group-mapping"
    both = admin.post(url, data={"group": "Viewers", "queue": "Sales", "role": "analyst"})
    assert both.status_code == 422 and "not both" in both.get_data(as_text=True)
    odd = admin.post(url, data={"group": "Viewers", "queue": "", "role": "owner"})
    assert odd.status_code == 422
    made = admin.post(url, data={"group": "Viewers", "queue": "", "role": "analyst"})
    assert made.status_code == 303
    page = admin.get(made.location).get_data(as_text=True)
    assert "are analysts of this console" in page and "Console role: analyst" in page
    pushed(scim, "Viewers", people[BOB])
    assert role_of(BOB, provisioned) is Role.ANALYST
