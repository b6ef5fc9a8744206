"""The OpenAPI 3.1 document of the JSON APIs, generated from the models the code uses.

Request schemas come from the very pydantic models the views validate with, response
schemas from app/api/responses.py; both go through pydantic's `models_json_schema`, so the
document cannot drift from the code. A new JSON API (the agents' desk) adds one `Api` entry
to `apis()`; tests/api/test_openapi.py fails while any route under an API prefix is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from app.api import responses
from app.api.auth import HEADERS

REF = "#/components/schemas/{model}"
# No request string may hold U+0000, published as `not: {pattern: NUL}`: test generators
# handle that far faster than a pattern of allowed characters.
NUL = "\\u0000"
HTTP_ERRORS = {
    "400": "The body is not valid JSON, not an object, or holds a NUL character.",
    "401": "A X-sc- header is missing or malformed, or the key is not valid for the tenant "
    "(on the User Provisioning API also an endpoint URL that is not valid).",
    "413": "The body is larger than the service accepts.",
    "415": "The Content-Type is not application/json.",
    "429": "Too many requests for this tenant; `Retry-After` says when to try again.",
}
INTRO = """\
Two JSON APIs of one service: the Preview Campaign Realtime API (five actions on the tasks
of a campaign) and the User Provisioning API (three operations on users).

**Every request** is a POST with `Content-Type: application/json` and the five `X-sc-`
headers (see the security schemes; all five are required together). The body repeats the
platform, company code and environment of the headers.

**HTTP 200 does not mean success.** Once a request is authenticated and its body is a JSON
object, the answer is HTTP 200 and the outcome is in the body:
`previewResult.previewResultStatus` (SUCCESS, FAILED, INVALIDCLIENTID, INVALIDRECORDDATAKEY,
NORECORDFOUND) on the Preview API, `result` (SUCCESS, INVALID_ARGUMENTS, NOT_FOUND, ...) on
the User Provisioning API. A field of the wrong type, a missing field or a value that breaks a rule
gives such a 200 answer naming the field (e.g. `previewRecordData[2].value`); the request
schemas below describe a **valid** request. No string of a request may hold U+0000 (400).
An integer is written as a JSON integer (`2`, not `2.0`), else the answer is FAILED.

**HTTP errors** (400, 401, 405, 413, 415, 429, and 500 should the service fail) have a
JSON body `{"status", "error", "message"}`, plus `result` on the User Provisioning API.
Any method other than POST on an operation's path gets 405 with an `Allow` header.
"""


@dataclass(frozen=True)
class Operation:
    """One POST operation: its path below the API's prefix and the models of its bodies."""

    path: str
    operation_id: str
    summary: str
    request: type[BaseModel]
    response: type[BaseModel]
    description: str = ""
    # Operations that can act on what this one wrote, by the body fields that locate it.
    links: tuple[str, ...] = ()
    carried: tuple[str, ...] = ()


@dataclass(frozen=True)
class Api:
    """One JSON API: a tag in the document, a URL prefix, the body of its HTTP errors."""

    tag: str
    prefix: str
    description: str
    error: type[BaseModel]
    operations: tuple[Operation, ...]
    # Properties every request body of the API carries besides the operation's model.
    body_extras: dict[str, type[BaseModel]] = field(default_factory=dict)


def apis() -> tuple[Api, ...]:
    """Every JSON API the service serves (imported here: the views import their schemas)."""
    from app.api import preview, schemas, users, wire

    def action(name: str, summary: str, request: type[BaseModel], description: str = "", **more):
        response = responses.SearchResponse if name == "searchPreviewCampaign" else None
        return Operation(
            f"/{name}",
            name,
            summary,
            request,
            response or responses.PreviewResponse,
            description,
            **more,
        )

    return (
        Api(
            tag="Preview Campaign Realtime API",
            prefix=preview.PREFIX,
            description="Read, write, move and remove the tasks of a Preview campaign.",
            error=responses.HttpError,
            operations=(
                action(
                    "addOrUpdateCampaignRecord",
                    "Add a task, or replace all the data of an existing one",
                    schemas.AddOrUpdateRequest,
                    "An update replaces every data item. A missing clientId answers "
                    "INVALIDCLIENTID; a data key equal to clientIdFieldName answers "
                    "INVALIDRECORDDATAKEY.",
                    links=(
                        "searchPreviewCampaign",
                        "changeCampaignRecordStatus",
                        "transferCampaignRecord",
                        "deleteRecordFromCampaign",
                    ),
                    carried=(*wire.ECHOED, "clientId"),
                ),
                action(
                    "searchPreviewCampaign",
                    "Look up one task by id, or the tasks matching every criterion",
                    schemas.SearchRequest,
                    "previewRecordData (criteria) is required unless previewRecordId or "
                    "clientId is given. maxRecords defaults to 1000.",
                ),
                action(
                    "changeCampaignRecordStatus",
                    "Set a task's worked state and, optionally, its queue, agent, time, zone",
                    schemas.ChangeStatusRequest,
                ),
                action(
                    "transferCampaignRecord",
                    "Move a task to another campaign and/or skill queue",
                    schemas.TransferRequest,
                ),
                action(
                    "deleteRecordFromCampaign",
                    "Remove a task from its campaign",
                    schemas.DeleteRequest,
                ),
            ),
        ),
        Api(
            tag="User Provisioning API",
            prefix=users.PREFIX,
            description="Add, look up and delete the users and agents of an environment.",
            error=responses.UserHttpError,
            body_extras={"tenant": users.TenantRef},
            operations=(
                Operation(
                    "/users/add-user",
                    "add-user",
                    "Create a user in the service and, optionally, in the instance",
                    users.AddUserRequest,
                    responses.AddUserResponse,
                    links=("query-existence", "delete-user"),
                    carried=("tenant", "loginUserId"),
                ),
                Operation(
                    "/users/query-existence",
                    "query-existence",
                    "Tell whether a user exists in the service and in the instance",
                    users.UserRequest,
                    responses.QueryExistenceResponse,
                ),
                Operation(
                    "/users/delete-user",
                    "delete-user",
                    "Delete a user from the service and, where it exists, from the instance",
                    users.UserRequest,
                    responses.UserResponse,
                ),
            ),
        ),
        desk_api(),
    )


def desk_api() -> Api:
    """The Desk API: one agent's state, next task, and how the task ends."""
    from app.api import users
    from app.desk import api as desk
    from app.desk import schemas

    def operation(name: str, summary: str, request, response, description: str = ""):
        return Operation(f"/{name}", name, summary, request, response, description)

    return Api(
        tag="Desk API",
        prefix=desk.PREFIX,
        description="An agent's desk for integrations: state, next task, close or release.",
        error=responses.HttpError,
        body_extras={"tenant": users.TenantRef},
        operations=(
            operation(
                "setAgentState",
                "Set the agent's state (OFFLINE releases the agent's task)",
                schemas.SetAgentStateRequest,
                schemas.AgentStateResponse,
            ),
            operation(
                "nextTask",
                "The agent's task: the one held, the next deliverable one, or why none",
                schemas.NextTaskRequest,
                schemas.NextTaskResponse,
                "NOT_AVAILABLE unless the agent is AVAILABLE. An agent holding a task gets it "
                "again; otherwise the next task is reserved for the agent.",
            ),
            operation(
                "closeTask",
                "End the agent's task with an outcome; counts an attempt",
                schemas.CloseTaskRequest,
                schemas.TaskResponse,
                "A task the agent does not hold answers NOT_FOUND.",
            ),
            operation(
                "releaseTask",
                "Give the agent's task back to the queue without counting an attempt",
                schemas.ReleaseTaskRequest,
                schemas.TaskResponse,
                "A task the agent does not hold answers NOT_FOUND.",
            ),
        ),
    )


class _Schemas(GenerateJsonSchema):
    """Property names speak for themselves: no generated `title` on each field. A request
    string never holds U+0000 (app/api/body.py answers 400: no database stores it)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def str_schema(self, schema: Any) -> dict[str, Any]:
        generated = super().str_schema(schema)
        if self.mode == "validation":
            generated["not"] = {"pattern": NUL}
        return generated


def _component_schemas(all_apis: tuple[Api, ...]) -> dict[str, Any]:
    """Requests in validation mode, answers in serialization mode, one `$defs` for all."""
    requests: list[type[BaseModel]] = []
    answers: list[type[BaseModel]] = []
    for api in all_apis:
        requests += api.body_extras.values()
        answers.append(api.error)
        for operation in api.operations:
            requests.append(operation.request)
            answers.append(operation.response)
    _, top = models_json_schema(
        [(model, "validation") for model in dict.fromkeys(requests)]
        + [(model, "serialization") for model in dict.fromkeys(answers)],
        ref_template=REF,
        schema_generator=_Schemas,
    )
    components = top["$defs"]
    for api in all_apis:
        for operation in api.operations:
            _add_properties(components[operation.request.__name__], api.body_extras)
    for schema in components.values():
        if "properties" in schema:
            # A valid request sends only the published properties (the service ignores
            # others); an answer never holds a key that is not published.
            schema.setdefault("additionalProperties", False)
    return components


def _add_properties(schema: dict[str, Any], extras: dict[str, type[BaseModel]]) -> None:
    """The API's own body properties (e.g. `tenant`), checked before the operation's model."""
    if extras and not set(extras) <= schema["properties"].keys():
        schema["properties"] = {**{n: _ref(m) for n, m in extras.items()}, **schema["properties"]}
        schema["required"] = [*extras, *schema.get("required", [])]


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": REF.format(model=model.__name__)}


def _json(model: type[BaseModel], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(model)}}}


def _responses(api: Api, operation: Operation) -> dict[str, Any]:
    answers = {"200": _json(operation.response, "The outcome, in the body (see the intro).")}
    if operation.links:
        carried = {name: f"$request.body#/{name}" for name in operation.carried}
        answers["200"]["links"] = {
            target: {"operationId": target, "requestBody": carried} for target in operation.links
        }
    for code, text in HTTP_ERRORS.items():
        answers[code] = _json(api.error, text)
    answers["429"]["headers"] = {
        "Retry-After": {
            "description": "Seconds to wait before the next request.",
            "required": True,
            "schema": {"type": "integer", "minimum": 0},
        }
    }
    return answers


def _security() -> tuple[dict[str, Any], list[dict[str, list]]]:
    schemes = {
        name: {"type": "apiKey", "in": "header", "name": name, "description": text}
        for name, text in zip(
            HEADERS,
            (
                "The platform constant.",
                "The company alias.",
                "The environment name.",
                "The cloud region of the caller's secrets manager, e.g. `us-east-1`.",
                "The company API key (rotated; never cache it longer than an hour).",
            ),
            strict=True,
        )
    }
    return schemes, [{name: [] for name in HEADERS}]


@cache
def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document (built once: it depends only on code)."""
    all_apis = apis()
    schemes, security = _security()
    paths: dict[str, Any] = {}
    for api in all_apis:
        for operation in api.operations:
            paths[api.prefix + operation.path] = {
                "post": {
                    "tags": [api.tag],
                    "operationId": operation.operation_id,
                    "summary": operation.summary,
                    "description": operation.description or operation.summary + ".",
                    "security": security,
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _ref(operation.request)}},
                    },
                    "responses": _responses(api, operation),
                }
            }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Preview campaigns and user provisioning",
            "version": "1",
            "description": INTRO,
        },
        "tags": [{"name": api.tag, "description": api.description} for api in all_apis],
        "paths": paths,
        "components": {"schemas": _component_schemas(all_apis), "securitySchemes": schemes},
        "security": security,
    }
