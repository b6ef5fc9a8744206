"""Every change to users, keys, tenants, queues, campaigns, templates and supervisors leaves
one audit record (and, for users, one event) in its own transaction: who, what, before and
after, never a secret; a refused change leaves neither."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import ApiKey, AuditRecord, Event
from app.services.actors import Actor
from app.services.campaigns import catalogue as campaigns
from app.services.contact_centre import InstanceError
from app.services.contact_centre.local import LocalInstance
from app.services.errors import Conflict, InvalidInput
from app.services.people import supervisors
from app.services.tenants import api_keys as keys
from app.services.tenants import setup as tenants
from tests.api.users_support import users_api
from tests.conftest import PLATFORM, SETUP, make_tenant

BOSS = Actor.supervisor("boss@example.com")
USER_FIELDS = {
    "loginUserId",
    "firstName",
    "lastName",
    "primaryEmailAddr",
    "secondaryEmailAddr",
    "userTemplateName",
    "connectUserId",
}


def trail() -> list[AuditRecord]:
    db.session.expire_all()
    return list(db.session.scalars(select(AuditRecord).order_by(AuditRecord.id)))


def events() -> list[Event]:
    db.session.expire_all()
    return list(db.session.scalars(select(Event).order_by(Event.id)))


def counts() -> tuple[int, int]:
    db.session.expire_all()
    return tuple(
        db.session.scalar(select(func.count()).select_from(model)) for model in (AuditRecord, Event)
    )


def as_text(record: AuditRecord) -> str:
    return json.dumps([record.before, record.after])


@pytest.fixture
def users(client, tenant):
    """Acme/prod with the template Agent, its setup's records cleared."""
    api = users_api(client, *tenant)
    db.session.execute(AuditRecord.__table__.delete())
    db.session.commit()
    return api


def current_key_id(tenant) -> int:
    return db.session.scalar(select(ApiKey.id).filter_by(tenant_id=tenant.id))


# --- Users, through the API door --------------------------------------------------------------


def test_add_user_records_who_and_the_user_and_emits_user_added(users, acme):
    users.add("alice", secondaryEmailAddr="alerts@example.com", createInAmazonConnect=True)
    [record] = trail()
    assert (record.actor_kind, record.actor_id) == ("api_key", str(current_key_id(acme)))
    assert (record.action, record.entity_kind, record.entity_id) == ("user.added", "user", "alice")
    assert record.tenant_id == acme.id and record.before is None
    assert record.after.keys() == USER_FIELDS
    assert record.after["secondaryEmailAddr"] == "alerts@example.com"
    assert record.after["connectUserId"]  # created in the instance, in the same change
    [event] = events()
    assert event.type == "user.added" and event.tenant_id == acme.id
    data = event.payload["data"]
    assert {name: data[name] for name in USER_FIELDS} == record.after
    assert data["actor"] == {"kind": "api_key", "id": str(current_key_id(acme))}


def test_delete_user_records_the_user_before_and_emits_user_deleted(users, acme):
    users.add("alice")
    assert users.delete("alice")["result"] == "SUCCESS"
    added, deleted = trail()
    assert (deleted.action, deleted.entity_id, deleted.after) == ("user.deleted", "alice", None)
    assert deleted.before == added.after
    assert [event.type for event in events()] == ["user.added", "user.deleted"]
    assert events()[1].payload["data"]["loginUserId"] == "alice"


def _instance_fails(monkeypatch, operation: str) -> None:
    def failing(self, *args):
        raise InstanceError("the instance is unavailable")

    monkeypatch.setattr(LocalInstance, operation, failing)


@pytest.mark.parametrize(
    ("refusal", "result"),
    [
        ("already exists", "ALREADY_EXISTS"),
        ("unknown template", "INVALID_ARGUMENTS"),
        ("empty first name", "INVALID_ARGUMENTS"),
        ("instance fails", "FAIL"),
    ],
)
def test_a_refused_add_user_records_nothing(users, monkeypatch, refusal, result):
    users.add("alice")
    before = counts()
    if refusal == "instance fails":
        _instance_fails(monkeypatch, "create_user")
    fields = {
        "already exists": {},
        "unknown template": {"userTemplateName": "Nope"},
        "empty first name": {"firstName": ""},
        "instance fails": {"createInAmazonConnect": True},
    }[refusal]
    login = "alice" if refusal == "already exists" else "bob"
    assert users.add(login, **fields)["result"] == result
    assert counts() == before


@pytest.mark.parametrize(("refusal", "result"), [("unknown", "NOT_FOUND"), ("instance", "FAIL")])
def test_a_refused_delete_user_records_nothing(users, monkeypatch, refusal, result):
    users.add("alice", createInAmazonConnect=True)
    before = counts()
    if refusal == "instance":
        _instance_fails(monkeypatch, "delete_user")
    assert users.delete("bob" if refusal == "unknown" else "alice")["result"] == result
    assert counts() == before


def test_query_existence_changes_nothing_and_records_nothing(users):
    users.add("alice")
    before = counts()
    assert users.query("alice")["result"] == "SUCCESS"
    assert counts() == before


# --- Keys: their ids and expiries, never the key ------------------------------------------------


def test_issued_and_rotated_keys_are_recorded_by_id_without_key_material(app):
    tenant = tenants.create_tenant(PLATFORM, "Acme", "prod", "us-east-1", "saml", actor=SETUP)
    first = keys.issue_key(tenant, actor=SETUP)
    second = keys.rotate_key(tenant, timedelta(hours=2), actor=BOSS)
    db.session.commit()
    old, new = sorted(tenant.api_keys, key=lambda key: key.id)
    issued, rotated = [r for r in trail() if r.entity_kind == "api_key"]
    assert (issued.action, issued.entity_id) == ("api_key.issued", str(old.id))
    assert issued.after == {"id": old.id, "expiresAt": None}
    assert (rotated.action, rotated.entity_id, rotated.actor_id) == (
        "api_key.rotated",
        str(new.id),
        "boss@example.com",
    )
    assert rotated.after["retired"] == [
        {"id": old.id, "expiresAt": old.expires_at.isoformat(timespec="milliseconds")}
    ]
    for record in trail():
        for secret in (first, second, old.key_hash, new.key_hash, first[:6], second[:6]):
            assert secret not in as_text(record)
    assert counts()[1] == 0  # keys are no one else's business


# --- Tenants, queues, campaigns, templates -------------------------------------------------------


def test_setting_up_a_tenant_records_each_change_with_its_kind_and_id(app):
    tenant, _key = make_tenant(queues=("Sales",), campaigns_=(("Renewals", "Sales", "UTC"),))
    template = tenants.create_user_template(
        tenant, "Agent", tenants.TemplateSettings(routing_profile_id="rp-1"), actor=BOSS
    )
    db.session.commit()
    queue = tenants.find_skill_queue(tenant, "Sales")
    campaign = campaigns.find_campaign(tenant, "Renewals")
    assert [(r.action, r.entity_kind, r.entity_id, r.tenant_id) for r in trail()] == [
        ("tenant.added", "tenant", str(tenant.id), tenant.id),
        ("api_key.issued", "api_key", str(tenant.api_keys[0].id), tenant.id),
        ("skill_queue.added", "skill_queue", str(queue.id), tenant.id),
        ("campaign.added", "campaign", str(campaign.id), tenant.id),
        ("user_template.added", "user_template", str(template.id), tenant.id),
    ]
    by_action = {record.action: record for record in trail()}
    assert by_action["tenant.added"].after["companyCode"] == "Acme"
    assert by_action["campaign.added"].after == {
        "name": "Renewals",
        "type": "preview",
        "skillQueue": "Sales",
        "timeZone": "UTC",
        "clientIdFieldName": "Id",
    }
    assert by_action["user_template.added"].after["routing_profile_id"] == "rp-1"
    assert {r.actor_kind for r in trail()} == {"operator", "supervisor"}


def test_set_instance_records_the_instance_before_and_after(app):
    tenant, _key = make_tenant()
    tenants.set_instance(tenant, "amazon-connect", "inst-1", "eu-west-2", actor=BOSS)
    db.session.commit()
    record = trail()[-1]
    assert record.action == "tenant.instance_set"
    assert record.before == {
        "instanceKind": "local",
        "connectInstanceId": None,
        "connectRegion": None,
    }
    assert record.after == {
        "instanceKind": "amazon-connect",
        "connectInstanceId": "inst-1",
        "connectRegion": "eu-west-2",
    }


@pytest.mark.parametrize(
    "refused",
    [
        lambda t: tenants.create_skill_queue(t, "Sales", actor=BOSS),
        lambda t: tenants.create_skill_queue(t, " ", actor=BOSS),
        lambda t: campaigns.create_campaign(t, "Renewals", "Sales", "UTC", actor=BOSS),
        lambda t: campaigns.create_campaign(t, "New", "Nope", "UTC", actor=BOSS),
        lambda t: tenants.set_instance(t, "amazon-connect", None, "eu-west-2", actor=BOSS),
        lambda t: tenants.create_user_template(t, "", actor=BOSS),
        lambda t: tenants.create_tenant(PLATFORM, "Acme", "prod", "us-east-1", "saml", actor=BOSS),
    ],
    ids=[
        "duplicate queue",
        "blank queue",
        "duplicate campaign",
        "unknown queue",
        "no instance id",
        "blank template",
        "duplicate tenant",
    ],
)
def test_a_refused_change_records_nothing_even_before_the_rollback(app, refused):
    tenant, _key = make_tenant()
    before = counts()
    with pytest.raises((Conflict, InvalidInput)):
        refused(tenant)
    assert counts() == before


# --- Supervisors: no tenant, never a password -----------------------------------------------


PASSWORD = "correct horse battery"


def test_supervisor_changes_are_recorded_without_tenant_or_password(app):
    tenant, _key = make_tenant()
    boss = supervisors.create_supervisor(" Boss@Example.com ", PASSWORD, [tenant], actor=SETUP)
    db.session.flush()
    supervisors.change_password(boss, PASSWORD, PASSWORD + " staple", actor=BOSS)
    db.session.commit()
    added, changed = [r for r in trail() if r.entity_kind == "supervisor"]
    assert (added.action, added.entity_id, added.tenant_id) == (
        "supervisor.added",
        "boss@example.com",
        None,
    )
    assert added.after == {"email": "boss@example.com", "tenants": {"Acme/prod": "supervisor"}}
    assert (changed.action, changed.actor_id) == ("supervisor.password_changed", BOSS.id)
    for record in (added, changed):
        assert PASSWORD not in as_text(record)
        assert "pbkdf2" not in as_text(record) and "scrypt" not in as_text(record)


def test_a_refused_password_change_records_nothing(app):
    boss = supervisors.create_supervisor("boss@example.com", PASSWORD, actor=SETUP)
    db.session.commit()
    before = counts()
    with pytest.raises(InvalidInput):
        supervisors.change_password(boss, "not the password", PASSWORD + " x", actor=BOSS)
    with pytest.raises(InvalidInput):
        supervisors.set_password(boss, "short", actor=BOSS)
    assert counts() == before
