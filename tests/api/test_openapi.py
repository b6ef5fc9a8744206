"""The published contract: /openapi.json is valid OpenAPI 3.1, lists every API route, and
real answers of every operation (successes, refusals, HTTP errors) match its schemas."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import OpenAPIV31SpecValidator
from sqlalchemy import select

from app.api import schemas, users
from app.api.catalog import apis
from app.extensions import db
from app.models import Task, WorkCode
from app.web import json_actions
from app.web.api_paths import API_PREFIXES, SCIM_PREFIX
from tests.api.users_support import USERS, users_api
from tests.conftest import PREVIEW

# Routes under an API prefix that are not operations: the User Provisioning API answers an
# unknown operation path with 401, as the spec asks.
NOT_OPERATIONS = {"users.unknown_operation"}


def schema_errors(document: dict, name: str, instance: object) -> list[str]:
    """Why `instance` does not match components/schemas/<name> of the document (none: [])."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    validator = Draft202012Validator(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(instance)]


def conforms(document: dict, path: str, response) -> None:
    """The answer's status is documented for POST `path`, and its JSON body matches."""
    assert response.mimetype == "application/json"
    documented = document["paths"][path]["post"]["responses"]
    assert str(response.status_code) in documented, response.status_code
    ref = documented[str(response.status_code)]["content"]["application/json"]["schema"]["$ref"]
    body = response.get_json()
    assert schema_errors(document, ref.rsplit("/", 1)[-1], body) == [], body


# --- the document ---------------------------------------------------------------------------


def test_the_document_is_valid_openapi_3_1(document):
    assert document["openapi"].startswith("3.1.")
    OpenAPIV31SpecValidator(document).validate()


def test_the_document_lists_every_route_under_an_api_prefix(app, document):
    routes = {
        (rule.rule, method.lower())
        for rule in app.url_map.iter_rules()
        # The SCIM endpoints describe themselves (/Schemas, /ResourceTypes), as SCIM asks.
        if rule.rule.startswith(API_PREFIXES)
        and not rule.rule.startswith(SCIM_PREFIX)
        and rule.endpoint not in NOT_OPERATIONS
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    published = {(path, method) for path, item in document["paths"].items() for method in item}
    assert routes == published
    assert len(published) == 20  # five Preview actions, three user, seven desk, five reports


def test_every_operation_describes_the_headers_and_http_errors(document):
    headers = {scheme["name"] for scheme in document["components"]["securitySchemes"].values()}
    assert headers == {
        "X-sc-platform-code",
        "X-sc-company-code",
        "X-sc-company-environment",
        "X-sc-secrets-region",
        "X-sc-company-api-key",
    }
    for path, item in document["paths"].items():
        operation = item["post"]
        assert operation["security"] == [dict.fromkeys(headers, [])]
        assert {"200", "400", "401", "413", "415", "429"} <= operation["responses"].keys()
        error = operation["responses"]["401"]["content"]["application/json"]["schema"]["$ref"]
        expected = "UserHttpError" if path.startswith(users.PREFIX) else "HttpError"
        assert error.endswith("/" + expected)


@pytest.mark.parametrize(
    "model",
    [
        schemas.AddOrUpdateRequest,
        schemas.SearchRequest,
        schemas.ChangeStatusRequest,
        schemas.TransferRequest,
        schemas.DeleteRequest,
        users.AddUserRequest,
        users.UserRequest,
        json_actions.TenantRef,
    ],
)
def test_request_schemas_are_the_models_the_views_validate_with(document, model):
    published = document["components"]["schemas"][model.__name__]
    fields = {
        field.validation_alias.choices[0] if field.validation_alias else name
        for name, field in model.model_fields.items()
    }
    tenant = {"tenant"} if model in (users.AddUserRequest, users.UserRequest) else set()
    assert set(published["properties"]) == fields | tenant
    assert set(published["required"]) >= {
        n for n, f in model.model_fields.items() if f.is_required()
    }


def test_every_operation_names_its_request_model(document):
    for api in apis():
        for operation in api.operations:
            body = document["paths"][api.prefix + operation.path]["post"]["requestBody"]
            assert operation.request.__name__ in str(body)


def test_the_published_request_says_what_a_valid_request_is(document):
    add = document["components"]["schemas"]["AddOrUpdateRequest"]
    assert {"clientId", "previewRecordData"} <= set(add["required"])
    assert add["properties"]["clientId"]["type"] == "string"
    assert add["properties"]["clientId"]["minLength"] == 1
    key = document["components"]["schemas"]["DataItem"]["properties"]["key"]
    assert key["minLength"] == 1 and key["not"] == {"pattern": "\\u0000"}  # no NUL: 400
    item = document["components"]["schemas"]["DataItem"]["properties"]["displayOrder"]
    assert item["type"] == "integer" and item["minimum"] == 1
    state = document["components"]["schemas"]["ChangeStatusRequest"]["properties"]
    assert state["previewRecordStateEnum"]["enum"] == [
        "NOTWORKED",
        "WORKED",
        "COMPLETED",
        "REMOVED",
    ]


# --- real answers match the published schemas -----------------------------------------------


def preview_call(api, document, action: str, **fields) -> dict:
    response = api.post(action, **fields)
    conforms(document, PREVIEW.rstrip("/") + "/" + action, response)
    return response.get_json()


def test_a_task_without_display_order_omits_the_key(api, document):
    api.add(
        "C1", [{"key": "Name", "value": "Ada", "displayOrder": 2}, {"key": "City", "value": "P"}]
    )
    answer = preview_call(api, document, "searchPreviewCampaign", clientId="C1")
    items = answer["previewRecordClientData"][0]["previewRecordData"]
    assert {"key": "City", "value": "P"} in items
    assert {"key": "Name", "value": "Ada", "displayOrder": 2} in items


def test_search_answers_match_the_task_schema(api, document):
    api.add("C1", preferredAgent="agent.smith", nextEarliestWorkTimeUTC=1700000000123)
    api.add("C2")
    task = db.session.scalar(select(Task).filter_by(client_id="C1"))
    task.work_attempts = 2
    task.last_attempt_agent = "agent.jones"
    task.last_attempt_at = datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)
    db.session.add(WorkCode(task_id=task.id, key="Outcome", value="Sale", position=0))
    db.session.commit()

    found = preview_call(api, document, "searchPreviewCampaign", clientId="C1")
    record = found["previewRecordClientData"][0]
    assert record["workCodes"] == [{"key": "Outcome", "value": "Sale"}]
    assert record["lastAttemptTime"] == "2024-01-02 03:04:05.006"
    every = preview_call(
        api,
        document,
        "searchPreviewCampaign",
        previewRecordData=[
            {"key": "sys_worked_state", "condition": "EQUALS", "value": "NOTWORKED"}
        ],
    )
    assert len(every["previewRecordClientData"]) == 2
    missing = preview_call(api, document, "searchPreviewCampaign", clientId="nobody")
    assert missing["previewResult"]["previewResultStatus"] == "NORECORDFOUND"
    refused = preview_call(api, document, "searchPreviewCampaign", maxRecords="ten")
    assert refused["previewResult"]["previewResultStatus"] == "FAILED"


@pytest.mark.parametrize(
    ("action", "fields", "status"),
    [
        ("addOrUpdateCampaignRecord", {"clientId": "N1", "previewRecordData": []}, "SUCCESS"),
        ("addOrUpdateCampaignRecord", {"previewRecordData": []}, "INVALIDCLIENTID"),
        (
            "addOrUpdateCampaignRecord",
            {"clientId": "N2", "previewRecordData": [{"key": "Id", "value": "x"}]},
            "INVALIDRECORDDATAKEY",
        ),
        ("addOrUpdateCampaignRecord", {"clientId": 7, "previewRecordData": []}, "FAILED"),
        ("addOrUpdateCampaignRecord", {"platform": 1, "clientId": "N3"}, "FAILED"),
        ("changeCampaignRecordStatus", {"clientId": "C1", "previewRecordStateEnum": "COMPLETED"},
         "SUCCESS"),
        ("changeCampaignRecordStatus", {"clientId": "C9", "previewRecordStateEnum": "COMPLETED"},
         "NORECORDFOUND"),
        ("changeCampaignRecordStatus", {"clientId": "C1", "previewRecordStateEnum": "WORKED"},
         "FAILED"),
        ("transferCampaignRecord", {"clientId": "C1", "transferToCampaign": "Winback"}, "SUCCESS"),
        ("transferCampaignRecord", {"clientId": "C1", "transferToCampaign": "Nope"}, "FAILED"),
        ("deleteRecordFromCampaign", {"clientId": "C1"}, "SUCCESS"),
        ("deleteRecordFromCampaign", {"previewRecordId": "missing"}, "NORECORDFOUND"),
    ],
)  # fmt: skip
def test_preview_answers_match_the_common_response(api, document, action, fields, status):
    api.add("C1")
    answer = preview_call(api, document, action, **fields)
    assert answer["previewResult"]["previewResultStatus"] == status, answer


def test_user_provisioning_answers_match_their_schemas(client, tenant, document):
    people = users_api(client, *tenant)
    person = {"firstName": "Alice", "lastName": "Smith", "userTemplateName": "Agent"}
    cases = [
        ("add-user", {"loginUserId": "alice", **person, "createInAmazonConnect": True}, "SUCCESS"),
        ("add-user", {"loginUserId": "bob", **person}, "SUCCESS"),
        ("add-user", {"loginUserId": "alice", **person}, "ALREADY_EXISTS"),
        ("add-user", {"loginUserId": 5}, "INVALID_ARGUMENTS"),
        ("add-user", {"tenant": None, "loginUserId": "carol", **person}, "INVALID_TENANT"),
        ("query-existence", {"loginUserId": "alice"}, "SUCCESS"),
        ("query-existence", {"loginUserId": "bob"}, "SUCCESS"),
        ("query-existence", {"loginUserId": "nobody"}, "NOT_FOUND"),
        ("delete-user", {"loginUserId": "alice"}, "SUCCESS"),
        ("delete-user", {"loginUserId": "alice"}, "NOT_FOUND"),
    ]
    for operation, fields, result in cases:
        response = people.post(operation, **fields)
        conforms(document, USERS + operation, response)
        assert response.get_json()["result"] == result, (operation, response.get_json())


@pytest.mark.parametrize("path", [PREVIEW + "searchPreviewCampaign", USERS + "query-existence"])
@pytest.mark.parametrize(
    ("send", "status"),
    [
        ({"data": "{}"}, 401),  # no headers
        ({"data": "[1]", "content_type": "application/json", "auth": True}, 400),
        ({"data": "{", "content_type": "application/json", "auth": True}, 400),
        ({"data": "{}", "content_type": "text/plain", "auth": True}, 415),
        ({"data": "{}" + " " * 3000, "content_type": "application/json", "auth": True}, 413),
    ],
)
def test_http_errors_match_the_error_schema(app, api, document, path, send, status):
    app.config["MAX_CONTENT_LENGTH"] = 2000
    send = dict(send)
    headers = api.headers if send.pop("auth", False) else {}
    response = api.client.post(path, headers=headers, **send)
    assert response.status_code == status
    conforms(document, path, response)


@pytest.mark.parametrize(
    ("path", "schema"),
    [(PREVIEW + "deleteRecordFromCampaign", "HttpError"), (USERS + "delete-user", "UserHttpError")],
)
def test_a_method_other_than_post_answers_405_matching_the_error_schema(
    client, document, path, schema
):
    response = client.get(path)
    assert response.status_code == 405
    assert response.headers["Allow"]
    assert schema_errors(document, schema, response.get_json()) == []


# --- the reference page ---------------------------------------------------------------------


def test_the_reference_page_lists_every_operation(client, document):
    response = client.get("/api-docs")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    for path, item in document["paths"].items():
        assert path in page
        assert f'id="{item["post"]["operationId"]}"' in page
    for name in document["components"]["schemas"]:
        assert f'id="schema-{name}"' in page
    assert "X-sc-company-api-key" in page


def test_the_reference_page_fits_the_content_security_policy(client):
    response = client.get("/api-docs")
    page = response.get_data(as_text=True)
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert "<style" not in page and " style=" not in page
    assert "<script>" not in page  # only <script src=...> from this app
    assert "http://" not in page and "https://" not in page  # nothing from another host


def test_the_pages_link_to_the_reference(client):
    page = client.get("/login", follow_redirects=True).get_data(as_text=True)
    assert 'href="/api-docs"' in page


def test_the_reference_page_counts_and_names_every_api_it_documents(client, document):
    """It said "Two JSON APIs" while documenting three."""
    page = client.get("/api-docs").get_data(as_text=True)
    first = page.split("<p>", 3)[2].split("</p>")[0]  # the intro's first paragraph
    tags = [tag["name"] for tag in document["tags"]]
    assert len(tags) == 4
    assert first.startswith("Four JSON APIs of one service")
    for tag in tags:
        operations = [p for p in document["paths"].values() if p["post"]["tags"] == [tag]]
        assert f"the {tag} ({len(operations)} operations)" in first
