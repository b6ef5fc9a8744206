"""The views every SCIM resource type has, written once: list and `.search` (filter,
paging, attributes), read (304 to its own version), create, replace (PUT), patch and delete
(412 to a stale If-Match), each change in one transaction. A `Kind` says what is particular
to users (app/scim/users.py) or groups (app/scim/groups.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import request
from scim2_models import (
    Context,
    NotFoundException,
    PatchOp,
    Resource,
    ResponseParameters,
    SearchRequest,
)
from sqlalchemy import Select

from app.scim.access import POLICY, answer, base_url, body, bp, run, same_version, unchanged_since
from app.scim.search_pages import listed, paged


@dataclass(frozen=True)
class Kind:
    """One resource type: its path ("Users"), its model, and how its rows are found,
    shown, searched, created, changed and deleted."""

    path: str
    singular: str  # "user": the views' names (list_users, get_user…)
    model: type[Resource]
    find: Callable[[str], Any | None]
    version: Callable[[Any], str]
    shown: Callable[[Any, str], Resource]
    where: Callable[[Any], Select]
    create: Callable[[Resource], Any]
    apply: Callable[[Any, Resource], None]
    delete: Callable[[Any], None]

    def row(self, resource_id: str):
        found = self.find(resource_id)
        if found is None:
            raise NotFoundException(detail=f"No {self.singular} {resource_id}.")
        return found


def _answered(kind: Kind, row, context: Context, status: int = 200):
    parameters = ResponseParameters[kind.model].model_validate(
        {
            "attributes": request.args.get("attributes"),
            "excludedAttributes": request.args.get("excludedAttributes"),
        }
    )
    found = kind.shown(row, base_url())
    headers = {"ETag": kind.version(row), "Location": found.meta.location}
    return answer(found.model_dump(scim_ctx=context, response_parameters=parameters), status,
                  headers)  # fmt: skip


def _search(kind: Kind, parameters: dict):
    wanted = SearchRequest[kind.model].model_validate(parameters, scim_ctx=Context.SEARCH_REQUEST)
    total, page = paged(kind.where(wanted.filter), wanted)
    return listed(kind.model, total, wanted, [kind.shown(row, base_url()) for row in page])


def serve(kind: Kind) -> None:
    """Register the resource type's views on the SCIM blueprint."""
    many, one = f"/{kind.path}", f"/{kind.path}/<resource_id>"
    name = kind.path.lower()

    def list_all():
        return _search(kind, request.args.to_dict())

    def search():
        return _search(kind, body())

    def get(resource_id: str):
        row = kind.row(resource_id)
        if unchanged_since(kind.version(row)):
            return answer(None, 304, {"ETag": kind.version(row)})
        return _answered(kind, row, Context.RESOURCE_QUERY_RESPONSE)

    def create():
        sent = kind.model.model_validate(body(), scim_ctx=Context.RESOURCE_CREATION_REQUEST,
                                         scim_policy=POLICY)  # fmt: skip
        row, refusal = run(lambda: kind.create(sent))
        return refusal or _answered(kind, row, Context.RESOURCE_CREATION_RESPONSE, 201)

    def replace(resource_id: str):
        row = kind.row(resource_id)
        same_version(kind.version(row))
        sent = kind.model.model_validate(body(), scim_ctx=Context.RESOURCE_REPLACEMENT_REQUEST,
                                         scim_policy=POLICY)  # fmt: skip
        _, refusal = run(lambda: kind.apply(row, sent))
        return refusal or _answered(kind, row, Context.RESOURCE_REPLACEMENT_RESPONSE)

    def patch(resource_id: str):
        row = kind.row(resource_id)
        same_version(kind.version(row))
        operations = PatchOp[kind.model].model_validate(
            body(), scim_ctx=Context.RESOURCE_PATCH_REQUEST, scim_policy=POLICY
        )
        resource = kind.shown(row, base_url())
        operations.patch(resource, scim_policy=POLICY)
        _, refusal = run(lambda: kind.apply(row, resource))
        return refusal or _answered(kind, row, Context.RESOURCE_PATCH_RESPONSE)

    def delete(resource_id: str):
        row = kind.row(resource_id)
        same_version(kind.version(row))
        _, refusal = run(lambda: kind.delete(row))
        return refusal or answer(None, 204)

    bp.add_url_rule(many, f"list_{name}", list_all, methods=["GET"])
    bp.add_url_rule(f"{many}/.search", f"search_{name}", search, methods=["POST"])
    bp.add_url_rule(many, f"create_{kind.singular}", create, methods=["POST"])
    bp.add_url_rule(one, f"get_{kind.singular}", get, methods=["GET"])
    bp.add_url_rule(one, f"replace_{kind.singular}", replace, methods=["PUT"])
    bp.add_url_rule(one, f"patch_{kind.singular}", patch, methods=["PATCH"])
    bp.add_url_rule(one, f"delete_{kind.singular}", delete, methods=["DELETE"])
