"""/Groups of a tenant's SCIM endpoints: groups of the tenant's users pushed by the identity
provider (the shapes Okta and Entra ID send), and the skill queue a mapped group name gives
its members, from the moment they join to the moment they leave (a patch, a replace, a
rename, the group's deletion, the mapping's removal), with the queue's callbacks handed
back; a refusal stores nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import DirectoryGroup, User
from app.services.people import directory_groups
from tests.calls.calls_support import events
from tests.conftest import SETUP
from tests.scim.conftest import user_body
from tests.scim.test_users import assert_error

GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"


def queues(login: str) -> list[str]:
    db.session.expire_all()
    user = db.session.scalar(select(User).where(User.login_user_id == login))
    return [q.name for q in user.skill_queues]


def groups() -> int:
    return db.session.scalar(select(func.count(DirectoryGroup.id))) or 0


@pytest.fixture
def people(scim, provisioned):
    """ann and bob, made from template Agent (Sales); "Support agents" gives Support."""
    directory_groups.map_group(provisioned, "Support agents", "Support", actor=SETUP)
    db.session.commit()
    made = {}
    for login in ("ann", "bob"):
        answer = scim.post("/Users", user_body(login, emails=[]))
        assert answer.status_code == 201, answer.get_data(as_text=True)
        made[login] = answer.json["id"]
    return made


def pushed(scim, name: str, *members: str, **extra) -> dict:
    body = {"schemas": [GROUP_SCHEMA], "displayName": name,
            "members": [{"value": m} for m in members], **extra}  # fmt: skip
    answer = scim.post("/Groups", body)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.json


def test_a_pushed_group_gives_its_members_the_mapped_queue(scim, people):
    group = pushed(scim, "Support agents", people["ann"], externalId="okta-g1")
    assert [m["value"] for m in group["members"]] == [people["ann"]]
    assert group["meta"]["version"] == 'W/"1"'
    assert (queues("ann"), queues("bob")) == (["Sales", "Support"], ["Sales"])
    [created] = events("group.created")
    assert created["after"]["members"] == ["ann"]


def test_entra_adds_and_removes_members_by_path(scim, people):
    group = pushed(scim, "Support agents")
    url = f"/Groups/{group['id']}"
    add = [{"op": "Add", "path": "members", "value": [{"value": people["bob"]}]}]
    assert scim.patch(url, add).status_code == 200
    assert queues("bob") == ["Sales", "Support"]
    remove = [{"op": "Remove", "path": f'members[value eq "{people["bob"]}"]'}]
    answer = scim.patch(url, remove)
    assert answer.status_code == 200 and "members" not in answer.json
    assert queues("bob") == ["Sales"]


def test_okta_renames_and_replaces_members(scim, people, provisioned):
    group = pushed(scim, "Sales floor", people["ann"])
    assert queues("ann") == ["Sales"]  # its name is not mapped
    url = f"/Groups/{group['id']}"
    rename = [{"op": "replace", "value": {"id": group["id"], "displayName": "Support agents"}}]
    assert scim.patch(url, rename).json["displayName"] == "Support agents"
    assert queues("ann") == ["Sales", "Support"]
    body = {"schemas": [GROUP_SCHEMA], "displayName": "Support agents",
            "members": [{"value": people["bob"]}]}  # fmt: skip
    assert scim.put(url, body).status_code == 200
    assert (queues("ann"), queues("bob")) == (["Sales"], ["Sales", "Support"])


def test_a_mapping_made_or_removed_later_applies_to_the_members_at_once(scim, people, provisioned):
    pushed(scim, "Night shift", people["ann"], people["bob"])
    directory_groups.map_group(provisioned, "night SHIFT", "Support", actor=SETUP)
    db.session.commit()
    assert (queues("ann"), queues("bob")) == (["Sales", "Support"], ["Sales", "Support"])
    directory_groups.map_group(provisioned, "Night shift", None, actor=SETUP)
    db.session.commit()
    assert (queues("ann"), queues("bob")) == (["Sales"], ["Sales"])


def test_a_queue_two_groups_give_stays_until_both_are_left(scim, people, provisioned):
    directory_groups.map_group(provisioned, "Escalations", "Support", actor=SETUP)
    db.session.commit()
    first = pushed(scim, "Support agents", people["ann"])
    pushed(scim, "Escalations", people["ann"])
    assert scim.delete(f"/Groups/{first['id']}").status_code == 204
    assert queues("ann") == ["Sales", "Support"]


def test_deleting_a_group_takes_its_queue_away(scim, people):
    group = pushed(scim, "Support agents", people["ann"])
    assert scim.delete(f"/Groups/{group['id']}").status_code == 204
    assert queues("ann") == ["Sales"]
    assert_error(scim.get(f"/Groups/{group['id']}"), 404)
    assert len(events("group.deleted")) == 1


@pytest.mark.parametrize(
    ("members", "status", "scim_type"),
    [(["no-such-user"], 400, "invalidValue")],
)
def test_a_member_that_is_not_a_user_is_refused(scim, people, members, status, scim_type):
    body = {"schemas": [GROUP_SCHEMA], "displayName": "Support agents",
            "members": [{"value": people["ann"]}, *({"value": m} for m in members)]}  # fmt: skip
    assert_error(scim.post("/Groups", body), status, scim_type)
    assert groups() == 0 and queues("ann") == ["Sales"]


def test_a_name_taken_in_any_case_is_uniqueness(scim, people):
    pushed(scim, "Support agents")
    body = {"schemas": [GROUP_SCHEMA], "displayName": "SUPPORT agents"}
    assert_error(scim.post("/Groups", body), 409, "uniqueness")
    assert groups() == 1


def test_groups_are_filtered_by_name_member_and_external_id(scim, people):
    support = pushed(scim, "Support agents", people["ann"], externalId="g-1")
    pushed(scim, "Night shift", people["bob"])
    cases = {
        'displayName eq "support AGENTS"': ["Support agents"],
        f'members[value eq "{people["bob"]}"]': ["Night shift"],
        f'members.value eq "{people["ann"]}"': ["Support agents"],
        'externalId eq "g-1"': ["Support agents"],
        'displayName sw "N" or externalId pr': ["Night shift", "Support agents"],
    }
    for text, names in cases.items():
        body = scim.get("/Groups", query_string={"filter": text}).json
        assert sorted(g["displayName"] for g in body.get("Resources", [])) == names, text
    slim = scim.get(f"/Groups/{support['id']}", query_string={"excludedAttributes": "members"})
    assert "members" not in slim.json and slim.json["displayName"] == "Support agents"
    assert_error(scim.get("/Groups", query_string={"filter": 'userName eq "x"'}), 400,
                 "invalidFilter")  # fmt: skip


def test_the_root_search_finds_users_then_groups(scim, people):
    pushed(scim, "Support agents", people["ann"])
    search = "urn:ietf:params:scim:api:messages:2.0:SearchRequest"
    body = scim.post("/.search", {"schemas": [search], "startIndex": 2, "count": 2}).json
    assert body["totalResults"] == 3
    assert [r.get("userName") or r.get("displayName") for r in body["Resources"]] == [
        "bob", "Support agents",
    ]  # fmt: skip
    by_name = scim.post("/.search", {"filter": 'userName eq "ann"'}).json
    assert [r["userName"] for r in by_name["Resources"]] == ["ann"]
