"""The requests Okta and Microsoft Entra ID send, as their SCIM guides show them, played
against a live server (create, read, update, deactivate, reactivate, group push, delete):
each answer, and the users, their queues and their desk sessions the database then holds
(read fresh after every call, with no transaction kept open while the server writes)."""

from __future__ import annotations

import json

import pytest
from httpx2 import Client
from sqlalchemy import func, select

from app.extensions import db
from app.models import AgentSession, AgentState, User
from app.services.delivery.agent_state import set_agent_state
from app.services.people import directory_groups, sessions
from tests.browser.shared import live_server  # noqa: F401 - the session's gunicorn
from tests.conftest import SETUP, make_tenant
from tests.scim.conftest import BASE, ENTERPRISE, PATCH_OP, SCIM_JSON, USER_SCHEMA

pytestmark = pytest.mark.server

LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"


@pytest.fixture
def idp(scim, live_server, provisioned):  # noqa: F811
    """The live server as an identity provider calls it: Acme/prod's SCIM token; group
    names "Support agents" and "Sales agents" give their queues."""
    directory_groups.map_group(provisioned, "Support agents", "Support", actor=SETUP)
    directory_groups.map_group(provisioned, "Sales agents", "Sales", actor=SETUP)
    db.session.commit()
    with Client(base_url=live_server.url + BASE, timeout=30,
                headers={"Authorization": f"Bearer {scim.token}"}) as http:  # fmt: skip
        yield http


def send(http: Client, method: str, path: str, body: dict | None = None, **kw):
    content = json.dumps(body) if body is not None else None
    headers = {"Content-Type": SCIM_JSON} if body is not None else {}
    return http.request(method, path, content=content, headers=headers, **kw)


def patch(http: Client, resource_id: str, *operations: dict):
    return send(http, "PATCH", f"/Users/{resource_id}",
                {"schemas": [PATCH_OP], "Operations": list(operations)})  # fmt: skip


def stored(login: str) -> dict | None:
    """The user as the database holds it now; the read's transaction then ended."""
    db.session.expire_all()
    user = db.session.scalar(select(User).where(User.login_user_id == login))
    found = None
    if user is not None:
        found = {
            "id": user.resource_id, "first": user.first_name, "last": user.last_name,
            "primary_email": user.primary_email, "emails": user.email_entries,
            "external_id": user.external_id, "active": user.active, "desk": user.desk_state,
            "template": user.template.name, "queues": [q.name for q in user.skill_queues],
            "sessions": db.session.scalar(select(func.count()).select_from(AgentSession)
                                          .where(AgentSession.user_id == user.id)),
        }  # fmt: skip
    db.session.rollback()
    return found


def not_found(http: Client, attribute: str, value: str) -> None:
    answered = http.get("/Users", params={"filter": f'{attribute} eq "{value}"',
                                          "startIndex": 1, "count": 100})  # fmt: skip
    assert answered.status_code == 200, answered.text
    assert answered.headers["Content-Type"].startswith(SCIM_JSON)
    listed = answered.json()
    assert (listed["schemas"], listed["totalResults"]) == ([LIST], 0)
    assert listed.get("Resources", []) == []


def at_the_desk(app, login: str) -> None:
    """The agent signed in at the desk and AVAILABLE (committed, for the server to see)."""
    user = db.session.scalar(select(User).where(User.login_user_id == login))
    sessions.start_session(user, sessions.SessionLimits.of(app.config), sessions.AGENTS)
    set_agent_state(user, AgentState.AVAILABLE, actor=SETUP)
    db.session.commit()


def test_okta_creates_reads_replaces_deactivates_reactivates_and_deletes_a_user(app, idp):
    """Okta's calls: the lookup by userName finds none, the create (with displayName,
    locale, groups and password, which are not kept) stores the user from the provisioning
    template, a PUT changes the family name, `replace` of `active` without a path ends the
    agent's desk sessions and sets it OFFLINE, and back; DELETE removes it."""
    login, okta_id = "test.user@acme.example", "00ujl29u0le5T6Aj10h7"
    email = {"primary": True, "value": login, "type": "work"}
    not_found(idp, "userName", login)
    created = send(idp, "POST", "/Users", {
        "schemas": [USER_SCHEMA], "userName": login,
        "name": {"givenName": "Test", "familyName": "User"}, "emails": [email],
        "displayName": "Test User", "locale": "en-US", "externalId": okta_id, "groups": [],
        "password": "1mz050nq", "active": True,
    })  # fmt: skip
    assert created.status_code == 201, created.text
    resource_id = created.json()["id"]
    assert stored(login) == {
        "id": resource_id, "first": "Test", "last": "User", "primary_email": None,
        "emails": [{"value": login, "type": "work", "primary": True}],
        "external_id": okta_id, "active": True, "desk": "OFFLINE", "template": "Agent",
        "queues": ["Sales"], "sessions": 0,
    }  # fmt: skip

    read = idp.get(f"/Users/{resource_id}")
    assert read.status_code == 200, read.text
    shown = read.json()
    assert (shown["id"], shown["userName"], shown["externalId"]) == (resource_id, login, okta_id)
    assert shown["name"] == {"givenName": "Test", "familyName": "User"}
    assert shown["emails"] == [{"value": login, "type": "work", "primary": True}]

    replaced = send(idp, "PUT", f"/Users/{resource_id}", {
        "schemas": [USER_SCHEMA], "id": resource_id, "userName": login,
        "name": {"givenName": "Test", "middleName": "", "familyName": "Person"},
        "emails": [{**email, "display": login}], "locale": "en-US", "externalId": okta_id,
        "groups": [], "active": True,
        "meta": {"resourceType": "User", "created": "2010-01-23T04:56:22Z",
                 "lastModified": "2011-05-13T04:42:34Z"},
    })  # fmt: skip
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["name"] == {"givenName": "Test", "familyName": "Person"}
    assert (stored(login)["first"], stored(login)["last"]) == ("Test", "Person")

    at_the_desk(app, login)
    assert (stored(login)["sessions"], stored(login)["desk"]) == (1, "AVAILABLE")
    off = patch(idp, resource_id, {"op": "replace", "value": {"active": False}})
    assert off.status_code == 200, off.text
    assert off.json()["active"] is False
    after = stored(login)
    assert (after["active"], after["sessions"], after["desk"]) == (False, 0, "OFFLINE")

    on = patch(idp, resource_id, {"op": "replace", "value": {"active": True}})
    assert on.status_code == 200, on.text
    assert (on.json()["active"], stored(login)["active"]) == (True, True)

    # Push Groups: the group with its member, then the member taken out of it.
    group = send(idp, "POST", "/Groups", {
        "schemas": [GROUP_SCHEMA], "displayName": "Support agents",
        "members": [{"value": resource_id, "display": login}],
    })  # fmt: skip
    assert group.status_code == 201, group.text
    assert stored(login)["queues"] == ["Sales", "Support"]
    leave = {"op": "remove", "path": f'members[value eq "{resource_id}"]'}
    out = send(idp, "PATCH", f"/Groups/{group.json()['id']}",
               {"schemas": [PATCH_OP], "Operations": [leave]})  # fmt: skip
    assert out.status_code == 200, out.text
    assert stored(login)["queues"] == ["Sales"]

    assert send(idp, "DELETE", f"/Users/{resource_id}").status_code == 204
    assert stored(login) is None
    assert idp.get(f"/Users/{resource_id}").status_code == 404


def test_entra_creates_from_department_patches_each_attribute_and_deletes_a_user(idp):
    """Entra's calls: the lookup finds none; the create names template Lead in the
    enterprise extension (its meta and roles are not kept), so the user gets Lead's queue;
    capitalised `Replace` of `active` with the string "False" deactivates it; `Add` on
    emails[type eq "work"].value, `Replace` of name.familyName and of externalId change
    just those (the user stays inactive); the new externalId finds it; DELETE removes it."""
    login, entra_id = "adele.vance@acme.example", "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"
    not_found(idp, "userName", login)
    created = send(idp, "POST", "/Users", {
        "schemas": [USER_SCHEMA, ENTERPRISE], "externalId": entra_id, "userName": login,
        "active": True, "emails": [{"primary": True, "type": "work", "value": login}],
        "meta": {"resourceType": "User"}, "roles": [],
        "name": {"formatted": "Adele Vance", "familyName": "Vance", "givenName": "Adele"},
        ENTERPRISE: {"department": "Lead"},
    })  # fmt: skip
    assert created.status_code == 201, created.text
    assert created.json()[ENTERPRISE] == {"department": "Lead"}
    resource_id = created.json()["id"]
    user = stored(login)
    assert (user["id"], user["active"], user["external_id"]) == (resource_id, True, entra_id)
    assert (user["template"], user["queues"]) == ("Lead", ["Support"])

    off = patch(idp, resource_id, {"op": "Replace", "path": "active", "value": "False"})
    assert off.status_code == 200, off.text
    assert (off.json()["active"], stored(login)["active"]) == (False, False)

    new_email = [{"value": "new@acme.example", "type": "work", "primary": True}]
    added = patch(idp, resource_id, {"op": "Add", "path": 'emails[type eq "work"].value',
                                     "value": "new@acme.example"})  # fmt: skip
    assert added.status_code == 200, added.text
    assert (added.json()["emails"], stored(login)["emails"]) == (new_email, new_email)

    renamed = patch(idp, resource_id,
                    {"op": "Replace", "path": "name.familyName", "value": "Jones"})  # fmt: skip
    assert renamed.status_code == 200, renamed.text
    assert (stored(login)["first"], stored(login)["last"]) == ("Adele", "Jones")

    moved = patch(idp, resource_id, {"op": "Replace", "path": "externalId", "value": "e-42"})
    assert moved.status_code == 200, moved.text
    user = stored(login)
    assert (user["external_id"], user["last"], user["emails"], user["active"]) == (
        "e-42", "Jones", new_email, False)  # fmt: skip
    assert (user["template"], user["queues"]) == ("Lead", ["Support"])

    found = idp.get("/Users", params={"filter": 'externalId eq "e-42"'}).json()
    assert found["totalResults"] == 1
    assert [(r["id"], r["userName"]) for r in found["Resources"]] == [(resource_id, login)]
    not_found(idp, "externalId", entra_id)

    # Group provisioning: look the group up, create it empty, add the member by path.
    looked = idp.get("/Groups", params={"filter": 'displayName eq "Sales agents"',
                                        "excludedAttributes": "members"})  # fmt: skip
    assert (looked.status_code, looked.json()["totalResults"]) == (200, 0)
    group = send(idp, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": "Sales agents",
                                          "externalId": "g-7", "members": []})  # fmt: skip
    assert group.status_code == 201, group.text
    joined = send(idp, "PATCH", f"/Groups/{group.json()['id']}", {"schemas": [PATCH_OP],
                  "Operations": [{"op": "Add", "path": "members",
                                  "value": [{"value": resource_id}]}]})  # fmt: skip
    assert joined.status_code == 200, joined.text
    assert stored(login)["queues"] == ["Sales", "Support"]

    assert send(idp, "DELETE", f"/Users/{resource_id}").status_code == 204
    assert stored(login) is None
    members = idp.get(f"/Groups/{group.json()['id']}").json()
    assert members.get("members") is None  # the deleted user left the group with it


@pytest.mark.parametrize("path, token", [(BASE, "not-the-token"), ("/scim/v2/Globex/prod", None)],
                         ids=["wrong token", "another tenant's path"])  # fmt: skip
def test_a_wrong_token_or_another_tenants_path_is_a_scim_401(scim, live_server, path, token):  # noqa: F811
    """A token that is not the tenant's, or the tenant's token on another tenant's path,
    is refused with 401 and a SCIM error body, before any user is read."""
    make_tenant(company="Globex")
    with Client(base_url=live_server.url, timeout=30) as http:
        answered = http.get(f"{path}/Users", params={"filter": 'userName eq "a@acme.example"'},
                            headers={"Authorization": f"Bearer {token or scim.token}"})  # fmt: skip
    assert answered.status_code == 401
    assert answered.headers["Content-Type"].startswith(SCIM_JSON)
    refusal = answered.json()
    assert (refusal["schemas"], refusal["status"]) == ([ERROR], "401")
