"""/Groups: list (filter, paging, attributes), search, read, create, replace, patch and
delete the groups the tenant's identity provider pushes, through
app/services/people/directory_groups.py, in one transaction per request.

A group's members are the tenant's users, by their SCIM ids (a member that is not one is
400 `invalidValue`); its name is unique without regard to case (409 `uniqueness`). When the
tenant maps the group's name to a skill queue, its members work that queue from the moment
they join and stop when they leave. Versions and ETags as for users.
"""

from __future__ import annotations

from scim2_models import Group
from sqlalchemy import Select, select
from sqlalchemy.orm import selectinload

from app.models import DirectoryGroup
from app.scim.access import actor, tenant
from app.scim.filters import group_condition
from app.scim.kinds import Kind, serve
from app.scim.resources import group_resource, member_ids
from app.services.people import directory_groups as groups


def _version(group: DirectoryGroup) -> str:
    return f'W/"{group.version}"'


def groups_where(found) -> Select:
    """The tenant's pushed groups a filter selects (all without one), oldest first."""
    query = (
        select(DirectoryGroup)
        .where(DirectoryGroup.tenant_id == tenant().id)
        .options(selectinload(DirectoryGroup.members))
        .order_by(DirectoryGroup.id)
    )
    return query if found is None else query.where(group_condition(found))


def _create(sent: Group) -> DirectoryGroup:
    members = groups.members_by_resource_id(tenant(), member_ids(sent))
    return groups.create_group(tenant(), sent.display_name, sent.external_id, members,
                               actor=actor())  # fmt: skip


def _apply(group: DirectoryGroup, resource: Group) -> None:
    members = groups.members_by_resource_id(tenant(), member_ids(resource))
    groups.update_group(group, resource.display_name, resource.external_id, members,
                        actor=actor())  # fmt: skip


GROUPS = Kind(
    path="Groups",
    singular="group",
    model=Group,
    find=lambda resource_id: groups.find_group(tenant(), resource_id),
    version=_version,
    shown=group_resource,
    where=groups_where,
    create=_create,
    apply=_apply,
    delete=lambda group: groups.delete_group(group, actor=actor()),
)
serve(GROUPS)
