"""Authentication of the Preview API: the five X-sc- headers, the tenant's key and its rotation,
and the body's tenant fields checked against the headers."""

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import ApiKey
from app.models.types import utcnow
from app.services.tenants import api_keys as keys
from app.services.tenants import setup as tenants
from tests.conftest import PREVIEW, SETUP, make_tenant

HEADERS = (
    "X-sc-platform-code",
    "X-sc-company-code",
    "X-sc-company-environment",
    "X-sc-secrets-region",
    "X-sc-company-api-key",
)
ACTIONS = {
    "addOrUpdateCampaignRecord": {"clientId": "C9", "previewRecordData": []},
    "searchPreviewCampaign": {"clientId": "C1"},
    "changeCampaignRecordStatus": {"clientId": "C1", "previewRecordStateEnum": "COMPLETED"},
    "transferCampaignRecord": {"clientId": "C1", "transferToCampaign": "Winback"},
    "deleteRecordFromCampaign": {"clientId": "C1"},
}
CONTROL = {"bell": "\x07", "escape": "\x1b", "delete": "\x7f"}
BAD_VALUES = {
    "empty": "",
    **{f"{name} character": f"Ac{char}me" for name, char in CONTROL.items()},
    "over 256 characters": "x" * 257,
}


def post(api, headers: dict, action: str = "changeCampaignRecordStatus"):
    return api.client.post(PREVIEW + action, json=api.body(**ACTIONS[action]), headers=headers)


def assert_unauthorized(response) -> str:
    """A 401 with a JSON body; returns its message."""
    assert response.status_code == 401, response.data
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert isinstance(body["message"], str) and body["message"]
    return body["message"]


def test_the_fixture_headers_are_accepted_in_any_letter_case(api):
    api.add("C1")
    assert post(api, api.headers).status_code == 200
    lower = {name.lower(): value for name, value in api.headers.items()}
    assert post(api, lower).get_json()["previewResult"]["previewResultStatus"] == "SUCCESS"


@pytest.mark.parametrize("header", HEADERS)
def test_a_missing_empty_or_malformed_header_answers_401(api, subtests, header):
    api.add("C1")
    without = {name: value for name, value in api.headers.items() if name != header}
    with subtests.test("missing"):
        assert_unauthorized(post(api, without))
    for problem, value in BAD_VALUES.items():
        with subtests.test(problem):
            assert_unauthorized(post(api, {**api.headers, header: value}))
    assert api.find("C1")["workedState"] == "NOTWORKED"


def test_malformed_headers_are_refused_even_when_they_name_a_real_tenant_and_key(
    api, tenant, subtests
):
    tenant_row, _key = tenant
    cases = {"over 256 characters": {"X-sc-secrets-region": "us-" + "east" * 64 + "-1"}}
    cases["long key"] = {"X-sc-company-api-key": keys.issue_key(tenant_row, "k" * 257, actor=SETUP)}
    for name, char in CONTROL.items():
        _company, company_key = make_tenant(f"Ac{char}me")
        _environment, environment_key = make_tenant("Acme", f"pr{char}od")
        cases[f"{name} in company"] = {
            "X-sc-company-code": f"Ac{char}me",
            "X-sc-company-api-key": company_key,
        }
        cases[f"{name} in environment"] = {
            "X-sc-company-environment": f"pr{char}od",
            "X-sc-company-api-key": environment_key,
        }
        cases[f"{name} in key"] = {
            "X-sc-company-api-key": keys.issue_key(tenant_row, f"key{char}{name}", actor=SETUP)
        }
    db.session.commit()
    for case, headers in cases.items():
        with subtests.test(case):
            assert_unauthorized(post(api, {**api.headers, **headers}))


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_requires_the_headers(api, action):
    headers = {**api.headers, "X-sc-company-api-key": "wrong"}
    assert_unauthorized(post(api, headers, action))


def test_a_secrets_region_that_is_not_a_region_name_answers_401(api, subtests):
    for region in ("not-a-region", "us_east_1", "US-EAST-1", "useast1", "1"):
        with subtests.test(region=region):
            assert_unauthorized(post(api, {**api.headers, "X-sc-secrets-region": region}))


UNKNOWN = [
    ("X-sc-company-code", "Initech"),
    ("X-sc-company-code", "acme"),
    ("X-sc-company-environment", "test"),
    ("X-sc-platform-code", "Genesys Cloud"),
    ("X-sc-platform-code", "aws connect"),
]


def test_an_unknown_tenant_or_wrong_platform_answers_401(api, subtests):
    for header, value in UNKNOWN:
        with subtests.test(header=header, value=value):
            assert_unauthorized(post(api, {**api.headers, header: value}))


def test_a_tenant_registered_under_another_platform_is_refused(api):
    other = tenants.create_tenant("Genesys Cloud", "Acme", "prod", "us-east-1", "saml", actor=SETUP)
    key = keys.issue_key(other, actor=SETUP)
    db.session.commit()
    headers = {**api.headers, "X-sc-platform-code": "Genesys Cloud", "X-sc-company-api-key": key}
    assert_unauthorized(post(api, headers))


def test_the_key_of_another_tenant_answers_401(api):
    _globex, globex_key = make_tenant("Globex")
    _staging, staging_key = make_tenant("Acme", "staging")
    for key in (globex_key, staging_key):
        assert_unauthorized(post(api, {**api.headers, "X-sc-company-api-key": key}))


def test_unknown_tenant_and_wrong_key_give_the_same_message(api):
    wrong_key = assert_unauthorized(post(api, {**api.headers, "X-sc-company-api-key": "nope"}))
    unknown = assert_unauthorized(post(api, {**api.headers, "X-sc-company-code": "Initech"}))
    platform = assert_unauthorized(post(api, {**api.headers, "X-sc-platform-code": "Genesys"}))
    assert wrong_key == unknown == platform


def test_the_default_grace_outlasts_the_hour_a_client_may_cache_a_key(app):
    assert app.config["KEY_GRACE_SECONDS"] > 3600


@pytest.fixture
def rotated(api, tenant):
    """The tenant's key rotated with a two-hour grace: (old key, new key)."""
    tenant_row, old_key = tenant
    new_key = keys.rotate_key(tenant_row, timedelta(hours=2), actor=SETUP)
    db.session.commit()
    return old_key, new_key


def with_key(api, key: str):
    return post(api, {**api.headers, "X-sc-company-api-key": key}, "searchPreviewCampaign")


def test_after_rotation_the_new_key_works(api, rotated):
    old, new = rotated
    assert new != old
    assert with_key(api, new).status_code == 200


def test_the_previous_key_works_within_the_grace(api, rotated):
    old, _new = rotated
    assert with_key(api, old).status_code == 200


def test_the_previous_key_is_refused_after_the_grace(api, tenant, rotated):
    old, new = rotated
    tenant_row, _ = tenant
    for key in tenant_row.api_keys:
        if key.expires_at is not None:
            key.expires_at = utcnow() - timedelta(seconds=1)
    db.session.commit()
    assert_unauthorized(with_key(api, old))
    assert with_key(api, new).status_code == 200


@pytest.mark.parametrize("grace", [timedelta(0), timedelta(seconds=-5)])
def test_without_grace_the_previous_key_is_refused_at_once(api, tenant, grace):
    tenant_row, old = tenant
    new = keys.rotate_key(tenant_row, grace, actor=SETUP)
    db.session.commit()
    assert_unauthorized(with_key(api, old))
    assert with_key(api, new).status_code == 200


def test_a_second_rotation_keeps_only_the_keys_in_grace(api, tenant):
    tenant_row, first = tenant
    second = keys.rotate_key(tenant_row, timedelta(seconds=-1), actor=SETUP)
    third = keys.rotate_key(tenant_row, timedelta(hours=2), actor=SETUP)
    db.session.commit()
    assert_unauthorized(with_key(api, first))
    assert with_key(api, second).status_code == 200
    assert with_key(api, third).status_code == 200


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("platform", "Genesys Cloud"),
        ("companyCode", "Globex"),
        ("companyCode", "acme"),
        ("environment", "staging"),
        ("region", "eu-west-2"),
        ("region", "US-EAST-1"),
    ],
)
def test_a_body_naming_another_tenant_or_region_fails_naming_the_field(api, subtests, field, value):
    make_tenant("Globex")
    make_tenant("Acme", "staging", region="eu-west-2")
    api.add("C1")
    before = api.find("C1")
    for action, fields in ACTIONS.items():
        with subtests.test(action=action):
            answer = api.call(action, **{**fields, field: value})
            assert answer["previewResult"]["previewResultStatus"] == "FAILED"
            assert field in answer["previewResult"]["error"]
            assert api.find("C1") == before


def test_the_secrets_region_header_may_differ_from_the_campaign_region(api):
    api.extra_headers["X-sc-secrets-region"] = "eu-central-1"
    assert api.add("C1")["previewResult"]["previewResultStatus"] == "SUCCESS"


@pytest.mark.parametrize("action", ACTIONS)
def test_every_response_echoes_the_common_fields(api, subtests, action):
    api.add("C1")
    for campaign, status in (("Renewals", "SUCCESS"), ("Nowhere", "FAILED")):
        with subtests.test(campaign=campaign):
            api.campaign = campaign
            answer = api.call(action, **ACTIONS[action])
            assert {name: answer[name] for name in api.body()} == api.body()
            assert answer["previewResult"]["previewResultStatus"] == status
            error = answer["previewResult"]["error"]
            if status == "SUCCESS":
                assert error is None
            else:
                assert "Nowhere" in error


def test_keys_are_stored_only_as_hashes(api, tenant):
    tenant_row, key = tenant
    new_key = keys.rotate_key(tenant_row, timedelta(hours=2), actor=SETUP)
    db.session.commit()
    rows = db.session.execute(select(ApiKey.__table__)).all()
    assert len(rows) == 2
    stored = repr(rows)
    assert key not in stored
    assert new_key not in stored
