"""The OpenAPI 3.1 document of the JSON APIs, generated from the models the code uses.

Request schemas come from the very pydantic models the views validate with, response
schemas from app/api/responses.py and app/desk/schemas.py; both go through pydantic's
`models_json_schema`, so the document cannot drift from the code. Which APIs and operations
it holds is app/api/catalog.py; tests/api/test_openapi.py fails while any route under an API
prefix is missing.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from app.api.catalog import Api, Operation, apis
from app.web.api_keys import HEADERS

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
# The first sentence counts and names the APIs of `catalog.apis()` (see `_overview`), so it
# never says two when three are published.
NUMBERS = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")
INTRO = """\
**Every request** is a POST with `Content-Type: application/json` and the five `X-sc-`
headers (see the security schemes; all five are required together). The body repeats the
platform, company code and environment of the headers.

**HTTP 200 does not mean success.** Once a request is authenticated and its body is a JSON
object, the answer is HTTP 200 and the outcome is in the body:
`previewResult.previewResultStatus` (SUCCESS, FAILED, INVALIDCLIENTID, INVALIDRECORDDATAKEY,
NORECORDFOUND) on the Preview API, `result` (SUCCESS, INVALID_ARGUMENTS, NOT_FOUND, ...) on
the User Provisioning API and the Desk API. A field of the wrong type, a missing field or a
value that breaks a rule gives such a 200 answer naming the field (e.g.
`previewRecordData[2].value`); the request
schemas below describe a **valid** request. No string of a request may hold U+0000 (400).
An integer is written as a JSON integer (`2`, not `2.0`), else the answer is FAILED.

**HTTP errors** (400, 401, 405, 413, 415, 429, and 500 should the service fail) have a
JSON body `{"status", "error", "message"}`, plus `result` on the User Provisioning API.
Any method other than POST on an operation's path gets 405 with an `Allow` header.
"""


class _Schemas(GenerateJsonSchema):
    """Property names speak for themselves: no generated `title` on each field. A request
    string never holds U+0000 (app/web/bodies.py answers 400: no database stores it)."""

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


def _overview(all_apis: tuple[Api, ...]) -> str:
    """ "Three JSON APIs of one service: the A (5 operations), the B (3) and the C (4)." """
    named = [f"the {api.tag} ({_operations(len(api.operations))})" for api in all_apis]
    listed = ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
    count = NUMBERS[len(all_apis)] if len(all_apis) < len(NUMBERS) else str(len(all_apis))
    return f"{count} JSON API{'s' if len(all_apis) != 1 else ''} of one service: {listed}."


def _operations(count: int) -> str:
    return f"{count} operation{'s' if count != 1 else ''}"


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
            "description": _overview(all_apis) + "\n\n" + INTRO,
        },
        "tags": [{"name": api.tag, "description": api.description} for api in all_apis],
        "paths": paths,
        "components": {"schemas": _component_schemas(all_apis), "securitySchemes": schemes},
        "security": security,
    }
