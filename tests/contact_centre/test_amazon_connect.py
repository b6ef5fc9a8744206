"""Amazon Connect as a tenant's instance, driven through the User Provisioning API with botocore's
Stubber: each CreateUser, DescribeUser and DeleteUser request is checked against the real service
model and the exact parameters, and the service never keeps a user that Connect refused.
"""

from types import SimpleNamespace

import boto3
import pytest
from botocore.stub import Stubber
from sqlalchemy.exc import OperationalError

from app.extensions import db
from app.models import User
from app.services.errors import InvalidInput
from app.services.tenants.setup import TemplateSettings, set_instance
from tests.api.users_support import count, stored_user, users_api
from tests.conftest import SETUP, make_tenant

INSTANCE_ID = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
REGION = "eu-west-2"
USER_ID = "11111111-2222-4333-8444-555555555555"
USER_ARN = f"arn:aws:connect:{REGION}:123456789012:instance/{INSTANCE_ID}/agent/{USER_ID}"
SOFT = TemplateSettings(
    security_profile_ids=["sp-agent", "sp-reports"],
    routing_profile_id="rp-sales",
    phone_type="SOFT_PHONE",
    auto_accept=True,
    after_contact_work_seconds=30,
)
DESK = TemplateSettings(
    security_profile_ids=["sp-agent"],
    routing_profile_id="rp-support",
    hierarchy_group_id="hg-london",
    phone_type="DESK_PHONE",
    auto_accept=False,
    after_contact_work_seconds=0,
    desk_phone_number="+442071234567",
)
NAMES = {"FirstName": "Alice", "LastName": "Smith"}
EMAILS = {"primaryEmailAddr": "alice@example.com", "secondaryEmailAddr": "alerts@example.com"}
SOFT_CREATE = {
    "InstanceId": INSTANCE_ID,
    "Username": "alice",
    "IdentityInfo": {**NAMES, "Email": "alice@example.com", "SecondaryEmail": "alerts@example.com"},
    "PhoneConfig": {"PhoneType": "SOFT_PHONE", "AutoAccept": True, "AfterContactWorkTimeLimit": 30},
    "SecurityProfileIds": ["sp-agent", "sp-reports"],
    "RoutingProfileId": "rp-sales",
}
BY_ID = {"InstanceId": INSTANCE_ID, "UserId": USER_ID}


@pytest.fixture
def connect(app):
    """A Stubber-wrapped Connect client handed to the app; records regions and operations."""
    client = boto3.client(
        "connect", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x"
    )
    calls, regions = [], []
    client.meta.events.register(
        "provide-client-params.connect", lambda model, **_: calls.append(model.name)
    )

    def factory(region):
        regions.append(region)
        return client

    app.config["CONNECT_CLIENT_FACTORY"] = factory
    with Stubber(client) as stubber:
        yield SimpleNamespace(stubber=stubber, calls=calls, regions=regions)


def connect_tenant(client, auth_mode="directory", template=SOFT):
    """Acme/prod (service region us-east-1) pointed at a Connect instance in eu-west-2."""
    tenant, key = make_tenant(auth_mode=auth_mode)
    set_instance(tenant, "amazon-connect", INSTANCE_ID, REGION, actor=SETUP)
    return tenant, users_api(client, tenant, key, settings=template)


def add_in_connect(users, connect) -> dict:
    connect.stubber.add_response("create_user", {"UserId": USER_ID, "UserArn": USER_ARN})
    return users.add("alice", createInAmazonConnect=True, **EMAILS)


@pytest.mark.parametrize(
    ("auth_mode", "template", "expected"),
    [
        ("directory", SOFT, SOFT_CREATE),
        (
            "directory",
            DESK,
            {
                **SOFT_CREATE,
                "PhoneConfig": {
                    "PhoneType": "DESK_PHONE",
                    "AutoAccept": False,
                    "AfterContactWorkTimeLimit": 0,
                    "DeskPhoneNumber": "+442071234567",
                },
                "SecurityProfileIds": ["sp-agent"],
                "RoutingProfileId": "rp-support",
                "HierarchyGroupId": "hg-london",
            },
        ),
        (
            "saml",
            SOFT,
            {**SOFT_CREATE, "IdentityInfo": {**NAMES, "SecondaryEmail": "alerts@example.com"}},
        ),
    ],
    ids=["directory soft phone", "desk phone and hierarchy group", "saml sends no primary email"],
)
def test_add_user_creates_the_user_in_connect_and_stores_its_id(
    client, connect, auth_mode, template, expected
):
    tenant, users = connect_tenant(client, auth_mode, template)
    connect.stubber.add_response(
        "create_user", {"UserId": USER_ID, "UserArn": USER_ARN}, expected_params=expected
    )
    answer = users.add("alice", createInAmazonConnect=True, **EMAILS)
    assert (answer["result"], answer["connectUserId"]) == ("SUCCESS", USER_ID), answer
    assert stored_user(tenant, "alice").connect_user_id == USER_ID
    assert connect.regions == [REGION]
    connect.stubber.assert_no_pending_responses()


def test_query_existence_describes_the_connect_user(client, connect):
    _tenant, users = connect_tenant(client)
    add_in_connect(users, connect)
    connect.stubber.add_response(
        "describe_user",
        {"User": {"Id": USER_ID, "Arn": USER_ARN, "Username": "alice"}},
        expected_params=BY_ID,
    )
    answer = users.query("alice")
    assert (answer["result"], answer["amazonConnectStatus"]) == ("SUCCESS", "EXISTS"), answer
    assert answer["connectUserId"] == USER_ID
    assert connect.regions == [REGION, REGION]
    connect.stubber.assert_no_pending_responses()


def test_query_existence_answers_not_found_status_when_connect_lacks_the_user(client, connect):
    _tenant, users = connect_tenant(client)
    add_in_connect(users, connect)
    connect.stubber.add_client_error(
        "describe_user", "ResourceNotFoundException", "User not found", 404, expected_params=BY_ID
    )
    answer = users.query("alice")
    assert (answer["result"], answer["amazonConnectStatus"]) == ("SUCCESS", "NOT_FOUND"), answer
    assert answer["connectUserId"] is None
    connect.stubber.assert_no_pending_responses()


def test_query_existence_of_a_service_only_user_does_not_call_connect(client, connect):
    _tenant, users = connect_tenant(client)
    assert users.add("alice", **EMAILS)["connectUserId"] is None
    answer = users.query("alice")
    assert (answer["result"], answer["amazonConnectStatus"]) == ("SUCCESS", "NOT_FOUND")
    assert connect.calls == []
    connect.stubber.assert_no_pending_responses()


def test_a_describe_user_error_answers_fail(client, connect):
    _tenant, users = connect_tenant(client)
    add_in_connect(users, connect)
    connect.stubber.add_client_error(
        "describe_user", "AccessDeniedException", "not allowed", 403, expected_params=BY_ID
    )
    answer = users.query("alice")
    assert answer["result"] == "FAIL"
    assert "AccessDeniedException" in answer["message"]
    connect.stubber.assert_no_pending_responses()


@pytest.mark.parametrize(
    "connect_answer", ["deleted", "already gone"], ids=lambda answer: f"connect {answer}"
)
def test_delete_user_deletes_the_user_in_connect(client, connect, connect_answer):
    tenant, users = connect_tenant(client)
    add_in_connect(users, connect)
    if connect_answer == "deleted":
        connect.stubber.add_response("delete_user", {}, expected_params=BY_ID)
    else:
        connect.stubber.add_client_error(
            "delete_user", "ResourceNotFoundException", "gone", 404, expected_params=BY_ID
        )
    assert users.delete("alice")["result"] == "SUCCESS"
    assert stored_user(tenant, "alice") is None
    connect.stubber.assert_no_pending_responses()


def test_a_delete_user_error_answers_fail_and_keeps_the_service_user(client, connect):
    tenant, users = connect_tenant(client)
    add_in_connect(users, connect)
    connect.stubber.add_client_error(
        "delete_user", "InternalServiceException", "try later", 500, expected_params=BY_ID
    )
    answer = users.delete("alice")
    assert answer["result"] == "FAIL"
    assert "InternalServiceException" in answer["message"]
    assert stored_user(tenant, "alice").connect_user_id == USER_ID
    connect.stubber.assert_no_pending_responses()


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("DuplicateResourceException", 409),
        ("InvalidParameterException", 400),
        ("ResourceNotFoundException", 404),
        ("LimitExceededException", 429),
    ],
)
def test_a_create_user_error_answers_fail_and_keeps_no_user(client, connect, code, status):
    tenant, users = connect_tenant(client)
    connect.stubber.add_client_error(
        "create_user", code, "refused", status, expected_params=SOFT_CREATE
    )
    answer = users.add("alice", createInAmazonConnect=True, **EMAILS)
    assert (answer["result"], answer["connectUserId"]) == ("FAIL", None)
    assert code in answer["message"]
    assert stored_user(tenant, "alice") is None
    connect.stubber.assert_no_pending_responses()


def test_a_failed_save_after_create_user_deletes_the_connect_user_again(
    client, connect, monkeypatch
):
    tenant, users = connect_tenant(client)
    connect.stubber.add_response(
        "create_user", {"UserId": USER_ID, "UserArn": USER_ARN}, expected_params=SOFT_CREATE
    )
    connect.stubber.add_response("delete_user", {}, expected_params=BY_ID)
    session_class = type(db.session())

    def lost_connection(self):
        raise OperationalError("COMMIT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(session_class, "commit", lost_connection)
    answer = users.add("alice", createInAmazonConnect=True, **EMAILS)
    monkeypatch.undo()
    assert (answer["result"], answer["connectUserId"]) == ("FAIL", None)
    assert stored_user(tenant, "alice") is None
    connect.stubber.assert_no_pending_responses()


@pytest.mark.parametrize(
    "template",
    [
        TemplateSettings(routing_profile_id="rp-sales"),
        TemplateSettings(security_profile_ids=["sp-agent"]),
    ],
    ids=["no security profile", "no routing profile"],
)
def test_a_template_incomplete_for_connect_answers_fail_without_calling_connect(
    client, connect, template
):
    _tenant, users = connect_tenant(client, template=template)
    answer = users.add("alice", createInAmazonConnect=True, **EMAILS)
    assert answer["result"] == "FAIL"
    assert "Agent" in answer["message"]
    assert connect.calls == []
    assert count(User) == 0
    connect.stubber.assert_no_pending_responses()


@pytest.mark.parametrize(
    ("kind", "instance_id", "region"),
    [
        ("amazon-connect", None, REGION),
        ("amazon-connect", "", REGION),
        ("amazon-connect", "id with spaces", REGION),
        ("amazon-connect", "x" * 101, REGION),
        ("amazon-connect", INSTANCE_ID, None),
        ("amazon-connect", INSTANCE_ID, ""),
        ("amazon-connect", INSTANCE_ID, "Europe (London)"),
        ("amazon-connect", INSTANCE_ID, "EU-WEST-2"),
        ("genesys", INSTANCE_ID, REGION),
    ],
    ids=[
        "no instance id",
        "empty instance id",
        "instance id with spaces",
        "instance id past Connect's 100 characters",
        "no region",
        "empty region",
        "region display name",
        "upper-case region",
        "unknown kind",
    ],
)
def test_set_instance_refuses_an_incomplete_or_bad_configuration(app, kind, instance_id, region):
    tenant, _key = make_tenant()
    with pytest.raises(InvalidInput):
        set_instance(tenant, kind, instance_id, region, actor=SETUP)
    assert (tenant.instance_kind, tenant.connect_instance_id, tenant.connect_region) == (
        "local",
        None,
        None,
    )
