"""The User Provisioning API (spec part B, issue 3) on the embedded local instance: the spec's
tables, every result value, field rules per auth mode, tenancy, and JSON answers to bad requests.

Result mapping under test: bad headers or an unknown operation path -> 401 UNAUTHORIZED; a body
that is not a JSON object -> 400 INVALID_ARGUMENTS; a missing or malformed `tenant` ->
INVALID_TENANT; a `tenant` naming another tenant -> UNAUTHORIZED; `internal` auth mode ->
NOT_SUPPORTED; bad fields or an unknown template -> INVALID_ARGUMENTS; an instance failure -> FAIL.
"""

import uuid

import pytest

from app.extensions import db
from app.models import LocalInstanceUser, User
from app.services.contact_centre import InstanceError
from app.services.contact_centre.local import LocalInstance
from tests.api.users_support import (
    MISSING,
    OPERATIONS,
    PERSON,
    USERS,
    answer_of,
    count,
    instance_user,
    stored_user,
    users_api,
)
from tests.conftest import make_tenant


@pytest.fixture
def users(client, tenant):
    """Acme/prod (saml, local instance) with the user template Agent."""
    return users_api(client, *tenant)


def other_tenant(client, company: str, auth_mode: str = "saml"):
    tenant, key = make_tenant(company=company, auth_mode=auth_mode)
    return tenant, users_api(client, tenant, key)


def body_of(operation: str) -> dict:
    """A valid body (without `tenant`) for the operation."""
    if operation == "add-user":
        return {"loginUserId": "alice", **PERSON}
    return {"loginUserId": "alice"}


# --- The spec's tables ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("situation", "result", "status"),
    [
        ("service only", "SUCCESS", "NOT_FOUND"),
        ("service only, instance user since removed", "SUCCESS", "NOT_FOUND"),
        ("service and instance", "SUCCESS", "EXISTS"),
        ("nowhere", "NOT_FOUND", None),
    ],
)
def test_query_existence_follows_the_spec_table(users, situation, result, status):
    created_id = None
    if situation != "nowhere":
        in_instance = situation != "service only"
        created_id = users.add("alice", createInAmazonConnect=in_instance)["connectUserId"]
    if situation.endswith("since removed"):
        db.session.delete(instance_user(created_id))
        db.session.commit()

    answer = users.query("alice")

    assert (answer["result"], answer["amazonConnectStatus"]) == (result, status)
    if status == "EXISTS":
        assert isinstance(answer["connectUserId"], str) and answer["connectUserId"] == created_id
    else:
        assert answer["connectUserId"] is None


@pytest.mark.parametrize(("exists", "result"), [(True, "SUCCESS"), (False, "NOT_FOUND")])
def test_delete_user_answers_success_for_an_existing_user_and_not_found_otherwise(
    users, acme, exists, result
):
    if exists:
        users.add("alice")
    answer = users.delete("alice")
    assert answer["result"] == result
    assert set(answer) == {"result", "message"}
    assert stored_user(acme, "alice") is None
    assert users.query("alice")["result"] == "NOT_FOUND"


def test_add_user_stores_the_user_and_answers_a_null_connect_user_id(users, acme):
    answer = users.add("alice", createInAmazonConnect=False)
    assert answer["result"] == "SUCCESS"
    assert answer["connectUserId"] is None
    user = stored_user(acme, "alice")
    assert (user.first_name, user.last_name, user.template.name) == ("Alice", "Smith", "Agent")
    assert user.connect_user_id is None
    assert count(LocalInstanceUser) == 0


def test_adding_an_existing_user_answers_already_exists_and_keeps_the_first(users, acme):
    users.add("alice")
    answer = users.add("alice", firstName="Mallory")
    assert answer["result"] == "ALREADY_EXISTS"
    assert answer["connectUserId"] is None
    assert stored_user(acme, "alice").first_name == "Alice"


# --- Identity and tenancy -------------------------------------------------------------------


def test_login_user_id_is_case_sensitive(users, acme):
    users.add("Bob")
    assert users.query("bob")["result"] == "NOT_FOUND"
    assert users.delete("bob")["result"] == "NOT_FOUND"
    assert users.add("bob", firstName="Lower")["result"] == "SUCCESS"
    assert users.delete("bob")["result"] == "SUCCESS"
    assert users.query("Bob")["result"] == "SUCCESS"
    assert stored_user(acme, "Bob").first_name == "Alice"


def test_a_user_of_one_tenant_is_invisible_to_another(client, users):
    users.add("alice", createInAmazonConnect=True)
    other, other_users = other_tenant(client, "Other")

    assert other_users.query("alice")["result"] == "NOT_FOUND"
    assert other_users.delete("alice")["result"] == "NOT_FOUND"
    assert other_users.add("alice", createInAmazonConnect=True)["result"] == "SUCCESS"
    assert other_users.delete("alice")["result"] == "SUCCESS"

    assert users.query("alice")["amazonConnectStatus"] == "EXISTS"
    assert stored_user(other, "alice") is None


def test_a_template_of_another_tenant_is_unknown(client, users):
    other, other_users = other_tenant(client, "Other")
    users_api(client, other, other_users.key, template="Supervisor")
    answer = users.add("alice", userTemplateName="Supervisor")
    assert answer["result"] == "INVALID_ARGUMENTS"
    assert "userTemplateName" in answer["message"]


# --- Tenant checks and auth modes -----------------------------------------------------------


@pytest.mark.parametrize("operation", OPERATIONS)
def test_every_operation_answers_not_supported_for_internal_auth_tenants(client, operation):
    _internal, internal_users = other_tenant(client, "Internal", auth_mode="internal")
    answer = internal_users.call(operation, **body_of(operation))
    assert answer["result"] == "NOT_SUPPORTED"
    assert count(User) == 0


# A field name stands for the good tenant without that field; a non-empty dict is merged into
# the good tenant; any other value is sent as it is.
TENANT_CASES = {
    "missing": MISSING,
    "null": None,
    "a string": "Acme",
    "a list": ["AWS Connect", "Acme", "prod"],
    "empty object": {},
    **{f"without {f}": f for f in ("platform", "companyCode", "environment")},
    "platform a number": {"platform": 5},
    "companyCode null": {"companyCode": None},
    "environment empty": {"environment": ""},
}


@pytest.mark.parametrize("case", TENANT_CASES)
def test_a_missing_or_malformed_tenant_answers_invalid_tenant(users, subtests, case):
    value = TENANT_CASES[case]
    if isinstance(value, str) and value in users.tenant:
        value = {k: v for k, v in users.tenant.items() if k != value}
    elif isinstance(value, dict) and value:
        value = {**users.tenant, **value}
    users.add("alice")
    for operation in OPERATIONS:
        with subtests.test(operation):
            body = {**body_of(operation), "loginUserId": "bob"}
            answer = users.call(operation, tenant=value, **body)
            assert answer["result"] == "INVALID_TENANT"
            assert "tenant" in answer["message"]
    assert users.query("bob")["result"] == "NOT_FOUND"


@pytest.mark.parametrize(
    "other",
    [
        {"platform": "Genesys Cloud"},
        {"companyCode": "Other"},
        {"companyCode": "acme"},
        {"environment": "dev"},
    ],
    ids=lambda other: "-".join(f"{k}={v}" for k, v in other.items()),
)
def test_a_tenant_other_than_the_headers_answers_unauthorized(client, users, subtests, other):
    _other, other_users = other_tenant(client, "Other")
    other_users.add("alice")
    users.add("alice")
    for operation in OPERATIONS:
        with subtests.test(operation):
            body = {**body_of(operation), "loginUserId": "alice"}
            answer = users.call(operation, tenant={**users.tenant, **other}, **body)
            assert answer["result"] == "UNAUTHORIZED"
            assert next(iter(other)) in answer["message"]
    assert users.query("alice")["result"] == "SUCCESS"
    assert other_users.query("alice")["result"] == "SUCCESS"


# --- add-user fields ------------------------------------------------------------------------

BAD_REQUIRED = {
    "missing": MISSING,
    "null": None,
    "empty": "",
    "blank": "   ",
    "a number": 7,
    "a list": ["alice"],
}


@pytest.mark.parametrize("field", ["loginUserId", "firstName", "lastName", "userTemplateName"])
def test_a_required_add_user_field_missing_empty_or_ill_typed_answers_invalid_arguments(
    users, subtests, field
):
    for case, value in BAD_REQUIRED.items():
        with subtests.test(case):
            answer = users.add("alice", **{field: value})
            assert answer["result"] == "INVALID_ARGUMENTS"
            assert field in answer["message"]
            assert answer["connectUserId"] is None
    assert count(User) == 0


def test_create_in_amazon_connect_must_be_a_boolean(users, subtests):
    for value in ("true", 1, 0, None, "yes", {}):
        with subtests.test(value=value):
            answer = users.add("alice", createInAmazonConnect=value)
            assert answer["result"] == "INVALID_ARGUMENTS"
            assert "createInAmazonConnect" in answer["message"]
    assert count(User) == count(LocalInstanceUser) == 0


@pytest.mark.parametrize("operation", ["query-existence", "delete-user"])
def test_query_and_delete_need_a_string_login_user_id(users, subtests, operation):
    users.add("alice")
    for value in (MISSING, None, 5, ["alice"], {"id": "alice"}):
        with subtests.test(value=value):
            answer = users.call(operation, loginUserId=value)
            assert answer["result"] == "INVALID_ARGUMENTS"
            assert "loginUserId" in answer["message"]
    assert users.query("alice")["result"] == "SUCCESS"


INVALID_EMAILS = ["not-an-address", "ann@", "@example.com", "ann smith@example.com", "ann@@x.org"]


def test_directory_tenants_require_a_primary_email(client, subtests):
    _directory, directory_users = other_tenant(client, "Dir", auth_mode="directory")
    for value in (MISSING, None, ""):
        with subtests.test(value=value):
            answer = directory_users.add("alice", primaryEmailAddr=value)
            assert answer["result"] == "INVALID_ARGUMENTS"
            assert "primaryEmailAddr" in answer["message"]
    assert count(User) == 0


def test_directory_tenants_refuse_an_invalid_primary_email(client, subtests):
    _directory, directory_users = other_tenant(client, "Dir", auth_mode="directory")
    for value in [*INVALID_EMAILS, 42]:
        with subtests.test(value=value):
            answer = directory_users.add("alice", primaryEmailAddr=value)
            assert answer["result"] == "INVALID_ARGUMENTS"
            assert "primaryEmailAddr" in answer["message"]
    assert count(User) == 0


def test_directory_tenants_store_the_primary_email(client):
    directory, directory_users = other_tenant(client, "Dir", auth_mode="directory")
    answer = directory_users.add("alice", primaryEmailAddr="alice@example.com")
    assert answer["result"] == "SUCCESS"
    assert stored_user(directory, "alice").primary_email == "alice@example.com"


@pytest.mark.parametrize("primary", [MISSING, None, "", "not-an-address", "alice@example.com"])
def test_saml_tenants_ignore_the_primary_email(users, acme, primary):
    answer = users.add("alice", primaryEmailAddr=primary)
    assert answer["result"] == "SUCCESS"
    assert stored_user(acme, "alice").primary_email is None


@pytest.mark.parametrize("auth_mode", ["saml", "directory"])
def test_the_secondary_email_is_validated_when_given(client, subtests, auth_mode):
    tenant, tenant_users = other_tenant(client, "Mail", auth_mode=auth_mode)
    primary = {"primaryEmailAddr": "alice@example.com"}
    for value in INVALID_EMAILS:
        with subtests.test(value=value):
            answer = tenant_users.add("alice", secondaryEmailAddr=value, **primary)
            assert answer["result"] == "INVALID_ARGUMENTS"
            assert "secondaryEmailAddr" in answer["message"]
    assert count(User) == 0
    answer = tenant_users.add("alice", secondaryEmailAddr="alerts@example.com", **primary)
    assert answer["result"] == "SUCCESS"
    assert stored_user(tenant, "alice").secondary_email == "alerts@example.com"
    assert tenant_users.add("bob", **primary)["result"] == "SUCCESS"


def test_an_unknown_user_template_answers_invalid_arguments(users):
    answer = users.add("alice", userTemplateName="Supervisor")
    assert answer["result"] == "INVALID_ARGUMENTS"
    assert "userTemplateName" in answer["message"]
    assert count(User) == 0


# --- The local instance ---------------------------------------------------------------------


def test_create_in_amazon_connect_creates_the_user_in_the_local_instance(users, acme):
    answer = users.add("alice", createInAmazonConnect=True)
    assert answer["result"] == "SUCCESS"
    connect_id = answer["connectUserId"]
    assert isinstance(connect_id, str) and connect_id
    row = instance_user(connect_id)
    assert (row.tenant_id, row.username, row.first_name) == (acme.id, "alice", "Alice")
    assert stored_user(acme, "alice").connect_user_id == connect_id


def test_delete_user_also_removes_the_user_from_the_local_instance(users, acme):
    connect_id = users.add("alice", createInAmazonConnect=True)["connectUserId"]
    assert users.delete("alice")["result"] == "SUCCESS"
    assert instance_user(connect_id) is None
    assert stored_user(acme, "alice") is None


def _refuse_after_creating(monkeypatch):
    """The instance creates its row, then fails."""
    create = LocalInstance.create_user

    def failing(self, user):
        create(self, user)
        raise InstanceError("the instance is unavailable")

    monkeypatch.setattr(LocalInstance, "create_user", failing)


def _username_taken(acme):
    db.session.add(
        LocalInstanceUser(
            tenant_id=acme.id,
            user_id=str(uuid.uuid4()),
            username="alice",
            first_name="Old",
            last_name="Alice",
        )
    )
    db.session.commit()


@pytest.mark.parametrize("refusal", ["instance fails", "username taken in the instance"])
def test_an_instance_refusal_answers_fail_and_keeps_no_user(users, acme, monkeypatch, refusal):
    if refusal == "instance fails":
        _refuse_after_creating(monkeypatch)
    else:
        _username_taken(acme)
    before = count(LocalInstanceUser)
    answer = users.add("alice", createInAmazonConnect=True)
    assert answer["result"] == "FAIL"
    assert answer["connectUserId"] is None
    assert stored_user(acme, "alice") is None
    assert count(LocalInstanceUser) == before


def test_an_instance_failure_on_delete_answers_fail_and_keeps_the_user(users, monkeypatch):
    connect_id = users.add("alice", createInAmazonConnect=True)["connectUserId"]

    def failing(self, user_id):
        raise InstanceError("the instance is unavailable")

    monkeypatch.setattr(LocalInstance, "delete_user", failing)
    assert users.delete("alice")["result"] == "FAIL"
    monkeypatch.undo()
    answer = users.query("alice")
    assert (answer["amazonConnectStatus"], answer["connectUserId"]) == ("EXISTS", connect_id)


# --- Transport: always a JSON answer --------------------------------------------------------


def assert_json_error(response, status: int, result: str) -> dict:
    assert response.status_code == status, response.data
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["result"] == result
    assert isinstance(body["message"], str) and body["message"].strip()
    return body


HEADER_CASES = {
    **{
        f"without {name}": {name: None}
        for name in (
            "platform-code",
            "company-code",
            "company-environment",
            "secrets-region",
            "company-api-key",
        )
    },
    "empty key": {"company-api-key": ""},
    "wrong key": {"company-api-key": "wrong"},
    "unknown company": {"company-code": "Initech"},
    "other platform": {"platform-code": "Genesys Cloud"},
    "region not a region": {"secrets-region": "not-a-region"},
    "control character": {"company-code": "Ac\x07me"},
}


@pytest.mark.parametrize("operation", OPERATIONS)
def test_bad_headers_answer_401_json_unauthorized(users, subtests, operation):
    users.add("alice")
    for case, change in HEADER_CASES.items():
        with subtests.test(case):
            headers = dict(users.headers)
            for name, value in change.items():
                headers.pop(f"X-sc-{name}")
                if value is not None:
                    headers[f"X-sc-{name}"] = value
            body = {"tenant": users.tenant, **body_of(operation)}
            response = users.client.post(USERS + operation, json=body, headers=headers)
            assert_json_error(response, 401, "UNAUTHORIZED")
    assert users.query("alice")["result"] == "SUCCESS"


@pytest.mark.parametrize("path", ["users/nope", "users/add-user/more", "users/Add-User", "nope"])
def test_an_unknown_operation_path_answers_401_json_unauthorized(users, path):
    body = {"tenant": users.tenant, **body_of("add-user")}
    response = users.client.post(f"/service-admin/api/{path}", json=body, headers=users.headers)
    assert_json_error(response, 401, "UNAUTHORIZED")
    assert count(User) == 0


@pytest.mark.parametrize("operation", OPERATIONS)
def test_get_on_an_operation_answers_405_json(users, operation):
    response = users.client.get(USERS + operation, headers=users.headers)
    assert response.status_code == 405
    assert response.mimetype == "application/json"
    assert response.get_json()["result"] and response.get_json()["message"]
    assert "POST" in response.headers["Allow"]


@pytest.mark.parametrize(
    "data", [b'{"tenant": ', b"", b"{'tenant': 1}", b"[]", b'"alice"', b"null", b"42"]
)
def test_a_body_that_is_not_a_json_object_answers_400_invalid_arguments(users, data):
    for operation in OPERATIONS:
        response = users.client.post(
            USERS + operation, data=data, content_type="application/json", headers=users.headers
        )
        assert_json_error(response, 400, "INVALID_ARGUMENTS")


def test_a_body_that_is_not_json_answers_415_json(users):
    body = b'{"loginUserId": "alice"}'
    response = users.client.post(
        USERS + "query-existence", data=body, content_type="text/plain", headers=users.headers
    )
    assert_json_error(response, 415, "INVALID_ARGUMENTS")


ODD_FIELDS = {
    "every field a list": {k: [] for k in (*PERSON, "loginUserId", "secondaryEmailAddr")},
    "nested objects": {"loginUserId": {"a": {"b": [1, {"c": None}]}}},
    "huge login": {"loginUserId": "x" * 100_000},
    "long names": {"firstName": "F" * 1000, "lastName": "L" * 300},
    "unicode": {"loginUserId": "zoë@例え.jp", "firstName": "Zoë", "lastName": "😀"},
    "big number": {"createInAmazonConnect": 10**40},
}


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_nul_character_answers_400_invalid_arguments_on_every_database(users, operation):
    fields = {**body_of(operation), "loginUserId": "al\x00ice", "firstName": "A\x00"}
    assert_json_error(users.post(operation, **fields), 400, "INVALID_ARGUMENTS")
    assert count(User) == 0


@pytest.mark.parametrize("case", ODD_FIELDS)
def test_odd_fields_get_a_json_answer_never_a_500(users, subtests, case):
    for operation in OPERATIONS:
        with subtests.test(operation):
            fields = {**body_of(operation), **ODD_FIELDS[case]}
            answer = answer_of(users.post(operation, **fields), operation)
            if answer["result"] != "SUCCESS":
                assert count(User) == 0
