"""/Users of a tenant's SCIM endpoints, on the Flask client: who may call, what a user is
as a resource, filters and paging, create, replace, patch (the shapes Okta and Entra ID
send), versions, and deactivation, each through the User Provisioning API's services with
their audit records and events; a refusal is a SCIM error and stores nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Event, User
from app.services.tenants import api_keys
from tests.conftest import SETUP, make_tenant
from tests.scim.conftest import BASE, ENTERPRISE, SCIM_JSON, USER_SCHEMA, user_body

ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"


def stored(login: str) -> User | None:
    db.session.expire_all()
    return db.session.scalar(select(User).where(User.login_user_id == login))


def users() -> int:
    return db.session.scalar(select(func.count(User.id))) or 0


def assert_error(answer, status: int, scim_type: str | None = None) -> str:
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert answer.content_type == SCIM_JSON
    body = answer.json
    assert body["schemas"] == [ERROR] and body["status"] == str(status)
    assert body.get("scimType") == scim_type
    return body["detail"]


def created(scim, login="ann@acme.example", **extra) -> dict:
    answer = scim.post("/Users", user_body(login, **extra))
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.json


# --- who may call ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}],
    ids=["none", "wrong", "not bearer"],
)
def test_a_call_without_the_tenants_token_is_401_and_says_nothing_else(scim, headers):
    answer = scim.client.get(BASE + "/Users", headers=headers)
    assert_error(answer, 401)
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_api_key_or_another_tenants_token_opens_nothing(scim, api):
    assert_error(scim.get("/Users", token=api.key), 401)
    other, _ = make_tenant("Other", "prod")
    theirs = api_keys.rotate_key(other, timedelta(0), actor=SETUP, purpose=api_keys.SCIM)
    db.session.commit()
    assert_error(scim.get("/Users", token=theirs), 401)
    assert scim.get("/scim/v2/Other/prod/Users", token=theirs).status_code == 200


def test_a_rotated_token_works_for_its_grace_then_stops(scim, provisioned):
    new = api_keys.rotate_key(provisioned, timedelta(hours=2), actor=SETUP, purpose=api_keys.SCIM)
    db.session.commit()
    assert scim.get("/Users").status_code == 200  # the old one, within its grace
    assert scim.get("/Users", token=new).status_code == 200
    api_keys.rotate_key(provisioned, timedelta(0), actor=SETUP, purpose=api_keys.SCIM)
    db.session.commit()
    assert_error(scim.get("/Users", token=new), 401)


# --- create ----------------------------------------------------------------------------


def test_a_created_user_is_the_contracts_user_with_its_trail(scim):
    sent = user_body(externalId="okta-1", emails=[
        {"value": "ann@acme.example", "type": "work", "primary": True},
        {"value": "ann@home.example", "type": "home"},
    ])  # fmt: skip
    answer = scim.post("/Users", sent, headers={"Content-Type": "application/json"})
    assert answer.status_code == 201 and answer.content_type == SCIM_JSON
    body = answer.json
    assert answer.headers["Location"] == f"http://localhost{BASE}/Users/{body['id']}"
    assert answer.headers["ETag"] == body["meta"]["version"] == 'W/"1"'
    assert (body["userName"], body["externalId"], body["active"]) == (
        "ann@acme.example",
        "okta-1",
        True,
    )
    assert body["name"] == {"givenName": "Ann", "familyName": "Agent"}
    assert body["emails"] == sent["emails"]
    user = stored("ann@acme.example")
    assert (user.first_name, user.last_name, user.template.name) == ("Ann", "Agent", "Agent")
    # A SAML tenant keeps no primaryEmailAddr (the contract); the other is the secondary.
    assert (user.primary_email, user.secondary_email) == (None, "ann@home.example")
    assert [q.name for q in user.skill_queues] == ["Sales"]
    [event] = db.session.scalars(select(Event).where(Event.type == "user.added")).all()
    assert event.payload["data"]["loginUserId"] == "ann@acme.example"
    actor = db.session.scalar(
        select(AuditRecord.actor_kind).where(AuditRecord.action == "user.added")
    )
    assert actor == "provisioning"


def test_the_department_names_the_template_else_the_tenants_is_used(scim):
    body = user_body(schemas=[USER_SCHEMA, ENTERPRISE], **{ENTERPRISE: {"department": "Lead"}})
    assert scim.post("/Users", body).status_code == 201
    lead = stored("ann@acme.example")
    assert (lead.template.name, [q.name for q in lead.skill_queues]) == ("Lead", ["Support"])
    other = user_body("bob@acme.example", **{ENTERPRISE: {"department": "Finance"}})
    assert scim.post("/Users", other).json[ENTERPRISE] == {"department": "Finance"}
    assert stored("bob@acme.example").template.name == "Agent"


@pytest.mark.parametrize(
    ("body", "status", "scim_type", "words"),
    [
        (user_body(name={"givenName": "Ann"}), 400, "invalidValue", "must not be empty"),
        (user_body(emails=[{"value": "not-an-address"}]), 400, "invalidValue", "email address"),
        (user_body(userName=None), 400, "invalidValue", "userName"),
        (user_body(externalId="x" * 300), 400, "invalidValue", "externalId"),
    ],
    ids=["no family name", "bad e-mail", "no userName", "long externalId"],
)
def test_a_refused_create_stores_nothing(scim, body, status, scim_type, words):
    detail = assert_error(scim.post("/Users", body), status, scim_type)
    assert words in detail
    assert users() == 0


def test_a_userName_taken_in_any_case_is_a_uniqueness_error(scim):
    created(scim, "Ann@Acme.example")
    assert_error(scim.post("/Users", user_body("ann@acme.EXAMPLE")), 409, "uniqueness")
    assert users() == 1


def test_without_any_template_the_create_is_refused(scim, provisioned):
    provisioned.provisioning_template = None
    db.session.commit()
    detail = assert_error(scim.post("/Users", user_body()), 400, "invalidValue")
    assert "no user template" in detail


def test_a_body_that_is_not_json_is_refused(scim):
    answer = scim.client.post(BASE + "/Users", data="userName=x",
                              headers={"Authorization": f"Bearer {scim.token}",
                                       "Content-Type": "text/plain"})  # fmt: skip
    assert_error(answer, 415)


# --- read, filter, page ----------------------------------------------------------------


@pytest.fixture
def three(scim):
    created(scim, "ann@acme.example", externalId="e-ann")
    created(scim, "bob@acme.example", name={"givenName": "Bob", "familyName": "Baker"},
            emails=[{"value": "bob@work.example", "type": "work", "primary": True}])  # fmt: skip
    carl = created(scim, "carl@other.example", name={"givenName": "Carl", "familyName": "Diaz"})
    scim.patch(f"/Users/{carl['id']}", [{"op": "replace", "path": "active", "value": False}])
    return scim


@pytest.mark.parametrize(
    ("text", "logins"),
    [
        ('userName eq "ANN@acme.example"', ["ann@acme.example"]),
        ('userName sw "b"', ["bob@acme.example"]),
        ('userName co "acme"', ["ann@acme.example", "bob@acme.example"]),
        ('userName ew ".example" and active eq true', ["ann@acme.example", "bob@acme.example"]),
        ("active eq false", ["carl@other.example"]),
        ('externalId eq "e-ann"', ["ann@acme.example"]),
        ('externalId eq "E-ANN"', []),
        ("externalId pr", ["ann@acme.example"]),
        ('emails.value eq "bob@work.example"', ["bob@acme.example"]),
        ('emails[value co "WORK"]', ["bob@acme.example"]),
        ('emails co "other.example"', ["carl@other.example"]),
        ('displayName eq "bob baker"', ["bob@acme.example"]),
        ('userName sw "a" or userName sw "c"', ["ann@acme.example", "carl@other.example"]),
        ('not (userName sw "a")', ["bob@acme.example", "carl@other.example"]),
        ('meta.created gt "2000-01-01T00:00:00Z"', ["ann@acme.example", "bob@acme.example",
                                                     "carl@other.example"]),
    ],
)  # fmt: skip
def test_a_filter_selects_exactly_its_users(three, text, logins):
    answer = three.get("/Users", query_string={"filter": text})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.json
    assert body["totalResults"] == len(logins)
    assert sorted(u["userName"] for u in body.get("Resources", [])) == logins


@pytest.mark.parametrize(
    "text", ["userName eq", 'title eq "x"', 'emails[type eq "work"]', 'userName zz "a"']
)
def test_a_filter_it_cannot_say_is_invalidFilter(three, text):
    assert_error(three.get("/Users", query_string={"filter": text}), 400, "invalidFilter")


def test_pages_by_startIndex_and_count(three):
    first = three.get("/Users", query_string={"startIndex": 1, "count": 2}).json
    second = three.get("/Users", query_string={"startIndex": 3, "count": 2}).json
    assert (first["totalResults"], first["itemsPerPage"], second["itemsPerPage"]) == (3, 2, 1)
    names = [u["userName"] for u in first["Resources"] + second["Resources"]]
    assert sorted(names) == ["ann@acme.example", "bob@acme.example", "carl@other.example"]
    counted = three.get("/Users", query_string={"count": 0}).json
    assert (counted["totalResults"], counted.get("Resources")) == (3, None)


def test_attributes_and_excluded_attributes_shape_the_answer(three):
    only = three.get("/Users", query_string={"attributes": "userName"}).json["Resources"][0]
    assert set(only) == {"schemas", "id", "userName"}
    one = three.get("/Users").json["Resources"][0]["id"]
    without = three.get(f"/Users/{one}", query_string={"excludedAttributes": "emails,name"}).json
    assert "emails" not in without and "name" not in without and "userName" in without


def test_a_read_answers_304_to_its_own_version_and_404_for_another_tenant(scim):
    user = created(scim)
    same = scim.get(f"/Users/{user['id']}", headers={"If-None-Match": 'W/"1"'})
    assert same.status_code == 304
    other, _ = make_tenant("Other", "prod")
    theirs = api_keys.rotate_key(other, timedelta(0), actor=SETUP, purpose=api_keys.SCIM)
    db.session.commit()
    assert_error(scim.get(f"/scim/v2/Other/prod/Users/{user['id']}", token=theirs), 404)


# --- replace, patch, versions ----------------------------------------------------------


def test_a_replace_changes_the_profile_and_the_version(scim):
    user = created(scim)
    body = user_body(name={"givenName": "Anne", "familyName": "Smith"}, externalId="x-2")
    answer = scim.put(f"/Users/{user['id']}", body, headers={"If-Match": 'W/"1"'})
    assert answer.status_code == 200 and answer.headers["ETag"] == 'W/"2"'
    found = stored("ann@acme.example")
    assert (found.first_name, found.last_name, found.external_id) == ("Anne", "Smith", "x-2")
    [event] = db.session.scalars(select(Event).where(Event.type == "user.updated")).all()
    assert event.payload["data"]["after"] == {"firstName": "Anne", "lastName": "Smith",
                                              "externalId": "x-2"}  # fmt: skip


def test_a_stale_version_is_412_and_a_userName_change_is_mutability(scim):
    user = created(scim)
    url = f"/Users/{user['id']}"
    scim.patch(url, [{"op": "replace", "path": "name.givenName", "value": "Anne"}])
    assert_error(scim.put(url, user_body(), headers={"If-Match": 'W/"1"'}), 412)
    assert_error(scim.put(url, user_body("other@acme.example")), 400, "mutability")
    assert stored("ann@acme.example").first_name == "Anne"


@pytest.mark.parametrize(
    ("operations", "expected"),
    [
        ([{"op": "Replace", "path": "name.familyName", "value": "Jones"}], ("Ann", "Jones", True)),
        ([{"op": "replace", "value": {"name.givenName": "Anna", "active": "False"}}],
         ("Anna", "Agent", False)),
        ([{"op": "Replace", "path": "active", "value": "False"}], ("Ann", "Agent", False)),
        ([{"op": "replace", "value": {"active": False}}], ("Ann", "Agent", False)),
    ],
    ids=["Entra path", "no path", "Entra active string", "Okta deactivate"],
)  # fmt: skip
def test_a_patch_in_each_providers_shape(scim, operations, expected):
    user = created(scim)
    answer = scim.patch(f"/Users/{user['id']}", operations)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    found = stored("ann@acme.example")
    assert (found.first_name, found.last_name, found.active) == expected
    assert answer.json["active"] is expected[2]


def test_a_patch_by_value_filter_changes_that_email(scim):
    user = created(scim)
    path = 'emails[type eq "work"].value'
    answer = scim.patch(f"/Users/{user['id']}", [{"op": "replace", "path": path,
                                                  "value": "ann@new.example"}])  # fmt: skip
    assert answer.json["emails"] == [{"value": "ann@new.example", "type": "work", "primary": True}]
    assert stored("ann@acme.example").email_index == ",ann@new.example,"


def test_a_refused_patch_changes_nothing(scim):
    user = created(scim)
    answer = scim.patch(f"/Users/{user['id']}", [
        {"op": "replace", "path": "name.givenName", "value": "Anne"},
        {"op": "replace", "path": "name.familyName", "value": ""},
    ])  # fmt: skip
    assert_error(answer, 400, "invalidValue")
    found = stored("ann@acme.example")
    assert (found.first_name, found.last_name, found.version) == ("Ann", "Agent", 1)


def test_delete_removes_the_user_once(scim):
    user = created(scim)
    assert scim.delete(f"/Users/{user['id']}").status_code == 204
    assert stored("ann@acme.example") is None
    assert_error(scim.delete(f"/Users/{user['id']}"), 404)
    assert db.session.scalar(select(func.count(Event.id)).where(Event.type == "user.deleted")) == 1
