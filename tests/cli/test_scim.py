"""`scim token` prints the tenant's SCIM base and a new token on its last line, which the
SCIM endpoints take (the one it replaces for the grace period); `scim template` sets the
template of the users the identity provider creates, refusing one the tenant lacks."""

from __future__ import annotations

from app.extensions import db
from app.models import Tenant
from app.services.tenants import setup as tenants
from tests.cli.test_commands import assert_fails, last_line
from tests.conftest import SETUP


def test_token_prints_a_token_the_scim_endpoints_take(runner, acme, client):
    result = runner.invoke(args=["scim", "token", "Acme", "prod"])
    assert result.exit_code == 0, result.output
    assert "SCIM base URL: http://localhost:9443/scim/v2/Acme/prod" in result.output
    first = last_line(result)
    bearer = {"Authorization": f"Bearer {first}"}
    assert client.get("/scim/v2/Acme/prod/Users", headers=bearer).status_code == 200
    second = last_line(runner.invoke(args=["scim", "token", "Acme", "prod"]))
    assert second != first
    for token in (first, second):  # the first within its grace
        headers = {"Authorization": f"Bearer {token}"}
        assert client.get("/scim/v2/Acme/prod/Users", headers=headers).status_code == 200


def test_template_sets_the_provisioning_template_or_refuses_an_unknown_one(runner, acme):
    tenants.create_user_template(acme, "Agent", actor=SETUP)
    db.session.commit()
    done = runner.invoke(args=["scim", "template", "Acme", "prod", "Agent", "--in-instance"])
    assert done.exit_code == 0, done.output
    db.session.expire_all()
    saved = db.session.get(Tenant, acme.id)
    assert (saved.provisioning_template, saved.provisioning_in_instance) == ("Agent", True)
    assert_fails(runner.invoke(args=["scim", "template", "Acme", "prod", "Ghost"]), "'Ghost'")
    db.session.expire_all()
    assert db.session.get(Tenant, acme.id).provisioning_template == "Agent"


def test_map_group_maps_a_group_name_to_a_queue_and_back(runner, acme):
    done = runner.invoke(args=["scim", "map-group", "Acme", "prod", "Support agents",
                               "--queue", "Support"])  # fmt: skip
    assert done.exit_code == 0, done.output
    listed = runner.invoke(args=["scim", "mappings", "Acme", "prod"])
    assert listed.output.splitlines() == ["Support agents\tSupport"]
    assert_fails(runner.invoke(args=["scim", "map-group", "Acme", "prod", "X", "--queue", "Nope"]),
                 "Nope")  # fmt: skip
    none = runner.invoke(args=["scim", "map-group", "Acme", "prod", "Support agents", "--none"])
    assert none.exit_code == 0, none.output
    assert runner.invoke(args=["scim", "mappings", "Acme", "prod"]).output == ""
    both = runner.invoke(args=["scim", "map-group", "Acme", "prod", "X"])
    assert both.exit_code != 0 and "--queue QUEUE, --role ROLE or --none" in both.output
