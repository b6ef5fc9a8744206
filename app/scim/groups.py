"""/Groups: list (filter, paging, attributes), search, read, create, replace, patch and
delete the groups the tenant's identity provider pushes, through
app/services/people/directory_groups.py, in one transaction per request.

A group's members are the tenant's users, by their SCIM ids (a member that is not one is
400 `invalidValue`); its name is unique without regard to case (409 `uniqueness`). When the
tenant maps the group's name to a skill queue, its members work that queue from the moment
they join and stop when they leave. Versions and ETags as for users.
"""

from __future__ import annotations

from flask import request
from scim2_models import (
    Context,
    Group,
    NotFoundException,
    PatchOp,
    ResponseParameters,
    SearchRequest,
)
from sqlalchemy import Select, select
from sqlalchemy.orm import selectinload

from app.models import DirectoryGroup
from app.scim.access import (
    POLICY,
    actor,
    answer,
    base_url,
    body,
    bp,
    run,
    same_version,
    tenant,
    unchanged_since,
)
from app.scim.filters import group_condition
from app.scim.resources import group_resource, member_ids
from app.scim.search_pages import listed, paged
from app.services.people import directory_groups as groups


def _version(group: DirectoryGroup) -> str:
    return f'W/"{group.version}"'


def _group(resource_id: str) -> DirectoryGroup:
    found = groups.find_group(tenant(), resource_id)
    if found is None:
        raise NotFoundException(detail=f"No group {resource_id}.")
    return found


def _shown(group: DirectoryGroup, context: Context, status: int = 200):
    parameters = ResponseParameters[Group].model_validate(
        {
            "attributes": request.args.get("attributes"),
            "excludedAttributes": request.args.get("excludedAttributes"),
        }
    )
    found = group_resource(group, base_url())
    headers = {"ETag": _version(group), "Location": found.meta.location}
    return answer(found.model_dump(scim_ctx=context, response_parameters=parameters), status,
                  headers)  # fmt: skip


def groups_where(found) -> Select:
    """The tenant's pushed groups a filter selects (all without one), oldest first."""
    query = (
        select(DirectoryGroup)
        .where(DirectoryGroup.tenant_id == tenant().id)
        .options(selectinload(DirectoryGroup.members))
        .order_by(DirectoryGroup.id)
    )
    return query if found is None else query.where(group_condition(found))


def _search(parameters: dict):
    wanted = SearchRequest[Group].model_validate(parameters, scim_ctx=Context.SEARCH_REQUEST)
    total, page = paged(groups_where(wanted.filter), wanted)
    return listed(Group, total, wanted, [group_resource(g, base_url()) for g in page])


@bp.get("/Groups")
def list_groups():
    return _search(request.args.to_dict())


@bp.post("/Groups/.search")
def search_groups():
    return _search(body())


@bp.get("/Groups/<resource_id>")
def get_group(resource_id: str):
    group = _group(resource_id)
    if unchanged_since(_version(group)):
        return answer(None, 304, {"ETag": _version(group)})
    return _shown(group, Context.RESOURCE_QUERY_RESPONSE)


@bp.post("/Groups")
def create_group():
    sent = Group.model_validate(body(), scim_ctx=Context.RESOURCE_CREATION_REQUEST,
                                scim_policy=POLICY)  # fmt: skip

    def create() -> DirectoryGroup:
        members = groups.members_by_resource_id(tenant(), member_ids(sent))
        return groups.create_group(tenant(), sent.display_name, sent.external_id, members,
                                   actor=actor())  # fmt: skip

    group, refusal = run(create)
    return refusal or _shown(group, Context.RESOURCE_CREATION_RESPONSE, 201)


def _apply(group: DirectoryGroup, resource: Group) -> None:
    members = groups.members_by_resource_id(tenant(), member_ids(resource))
    groups.update_group(group, resource.display_name, resource.external_id, members,
                        actor=actor())  # fmt: skip


@bp.put("/Groups/<resource_id>")
def replace_group(resource_id: str):
    group = _group(resource_id)
    same_version(_version(group))
    sent = Group.model_validate(body(), scim_ctx=Context.RESOURCE_REPLACEMENT_REQUEST,
                                scim_policy=POLICY)  # fmt: skip
    _, refusal = run(lambda: _apply(group, sent))
    return refusal or _shown(group, Context.RESOURCE_REPLACEMENT_RESPONSE)


@bp.patch("/Groups/<resource_id>")
def patch_group(resource_id: str):
    group = _group(resource_id)
    same_version(_version(group))
    operations = PatchOp[Group].model_validate(
        body(), scim_ctx=Context.RESOURCE_PATCH_REQUEST, scim_policy=POLICY
    )
    resource = group_resource(group, base_url())
    operations.patch(resource, scim_policy=POLICY)
    _, refusal = run(lambda: _apply(group, resource))
    return refusal or _shown(group, Context.RESOURCE_PATCH_RESPONSE)


@bp.delete("/Groups/<resource_id>")
def delete_group(resource_id: str):
    group = _group(resource_id)
    same_version(_version(group))
    _, refusal = run(lambda: groups.delete_group(group, actor=actor()))
    return refusal or answer(None, 204)
