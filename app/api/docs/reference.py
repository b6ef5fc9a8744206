"""The reference page's content: the OpenAPI document turned into headings and tables."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")


@dataclass(frozen=True)
class Row:
    name: str
    type: Markup
    required: bool
    notes: Markup


@dataclass(frozen=True)
class Response:
    status: str
    description: Markup
    schema: str


@dataclass(frozen=True)
class OperationDoc:
    anchor: str
    method: str
    path: str
    summary: str
    description: Markup
    request: list[Row]
    responses: list[Response]


@dataclass(frozen=True)
class Section:
    anchor: str
    name: str
    description: Markup
    operations: list[OperationDoc]


@dataclass(frozen=True)
class SchemaDoc:
    name: str
    description: Markup
    rows: list[Row]


@dataclass(frozen=True)
class Reference:
    title: str
    intro: list[Markup]
    sections: list[Section]
    security: list[Row]
    schemas: list[SchemaDoc]


def prose(text: str) -> Markup:
    """Escaped text with the document's `code` and **bold** marks as HTML."""
    html = str(escape(" ".join(text.split())))
    html = _CODE.sub(r"<code>\1</code>", html)
    return Markup(_BOLD.sub(r"<strong>\1</strong>", html))  # noqa: S704 - escaped above


def _name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _type(schema: dict[str, Any]) -> Markup:
    if "$ref" in schema:
        name = _name(schema["$ref"])
        return Markup('<a href="#schema-{0}">{0}</a>').format(name)
    if "anyOf" in schema:
        return Markup(" or ").join(_type(branch) for branch in schema["anyOf"])
    if schema.get("type") == "array":
        return Markup("array of ") + _type(schema.get("items", {}))
    return escape(schema.get("type", "any"))


_RULES = (
    ("enum", lambda v: "one of " + ", ".join(map(str, v))),
    ("minLength", lambda v: "not empty" if v == 1 else f"at least {v} characters"),
    ("maxLength", lambda v: f"at most {v} characters"),
    ("format", lambda v: f"an {v} address" if v == "email" else f"format {v}"),
    ("minimum", lambda v: f"at least {v}"),
    ("maximum", lambda v: f"at most {v}"),
    ("maxItems", lambda v: f"at most {v} items"),
    ("pattern", lambda v: f"matches {v}"),
)


def _notes(schema: dict[str, Any]) -> Markup:
    parts = [prose(schema["description"])] if "description" in schema else []
    for branch in [schema, *schema.get("anyOf", [])]:
        parts += [
            escape(say(branch[rule]).capitalize() + ".") for rule, say in _RULES if rule in branch
        ]
    return Markup(" ").join(parts)


def rows(schema: dict[str, Any]) -> list[Row]:
    """One row per property of an object schema."""
    required = set(schema.get("required", []))
    return [
        Row(name, _type(field), name in required, _notes(field))
        for name, field in schema.get("properties", {}).items()
    ]


def _request_rows(body: dict[str, Any], schemas: dict[str, Any]) -> list[Row]:
    parts = body.get("allOf", [body])
    found: list[Row] = []
    for part in reversed(parts):  # the API's own fields (e.g. tenant) first
        found += rows(schemas[_name(part["$ref"])] if "$ref" in part else part)
    return found


def _operation(path: str, method: str, spec: dict[str, Any], schemas: dict) -> OperationDoc:
    body = spec["requestBody"]["content"]["application/json"]["schema"]
    answers = [
        Response(
            status,
            prose(answer["description"]),
            _name(answer["content"]["application/json"]["schema"]["$ref"]),
        )
        for status, answer in spec["responses"].items()
    ]
    return OperationDoc(
        anchor=spec["operationId"],
        method=method.upper(),
        path=path,
        summary=spec["summary"],
        description=prose(spec.get("description", "")),
        request=_request_rows(body, schemas),
        responses=answers,
    )


def reference(document: dict[str, Any]) -> Reference:
    """What the reference page shows, in the document's order."""
    schemas = document["components"]["schemas"]
    sections = []
    for tag in document["tags"]:
        operations = [
            _operation(path, method, spec, schemas)
            for path, item in document["paths"].items()
            for method, spec in item.items()
            if tag["name"] in spec["tags"]
        ]
        anchor = re.sub(r"[^a-z]+", "-", tag["name"].lower()).strip("-")
        sections.append(Section(anchor, tag["name"], prose(tag["description"]), operations))
    security = [
        Row(scheme["name"], Markup("header"), True, prose(scheme["description"]))
        for scheme in document["components"]["securitySchemes"].values()
    ]
    return Reference(
        title=document["info"]["title"],
        intro=[prose(part) for part in document["info"]["description"].split("\n\n")],
        sections=sections,
        security=security,
        schemas=[
            SchemaDoc(name, _notes(schema), rows(schema))
            for name, schema in sorted(schemas.items())
        ],
    )
