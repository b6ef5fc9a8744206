"""The groups a tenant's identity provider pushes (SCIM), and what a group gives its members.

- A group has a display name (unique in the tenant, without regard to case), the provider's
  external id, and members (the tenant's users). Each change raises its version (ETag).
- A group's *name* may be mapped to a skill queue or to a console role (`map_group`, before
  or after the group is pushed): the group's members work that queue, or have that role in
  the tenant's console (app/services/people/console_roles.py). Joining a queue's group
  gives the agent the queue at once; leaving it (or the group's deletion, or the mapping's
  removal) takes the queue away at once, unless another mapped group of the agent gives it
  the same queue, and the callbacks of that queue go back to it (as any change of an
  agent's queues). A queue
  no mapped group gives stays the agent's (given on its desk page, `agent queues`, or by
  its template); one a mapped group gives is the provider's to take away.
- Every change leaves its audit record and its event (`group.created`, `group.updated`,
  `group.deleted`, `group.mapped`) in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import func, select

from app.extensions import db
from app.models import DirectoryGroup, GroupMapping, Role, SkillQueue, Tenant, User
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import Conflict, InvalidInput
from app.services.fields import GROUP_EXTERNAL_ID, GROUP_MEMBERS, GROUP_NAME
from app.services.people import agents, console_roles
from app.services.tenants.setup import get_skill_queue

MAX_NAME = 255


def find_group(tenant: Tenant, resource_id: str) -> DirectoryGroup | None:
    return db.session.scalar(
        select(DirectoryGroup).where(
            DirectoryGroup.tenant_id == tenant.id, DirectoryGroup.resource_id == resource_id
        )
    )


def members_by_resource_id(tenant: Tenant, resource_ids: Iterable[str]) -> list[User]:
    """The tenant's users with these resource ids (each once); InvalidInput naming one that
    is not a user of the tenant."""
    wanted = list(dict.fromkeys(str(r) for r in resource_ids))
    if not wanted:
        return []
    found = {
        u.resource_id: u
        for u in db.session.scalars(
            select(User).where(User.tenant_id == tenant.id, User.resource_id.in_(wanted))
        )
    }
    missing = [r for r in wanted if r not in found]
    if missing:
        raise InvalidInput(f"member '{missing[0]}' is not a user of {tenant.label}",
                           field=GROUP_MEMBERS)  # fmt: skip
    return [found[r] for r in wanted]


def _checked_name(tenant: Tenant, name: str | None, but: DirectoryGroup | None) -> str:
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME:
        raise InvalidInput(f"a group's name must be 1 to {MAX_NAME} characters", field=GROUP_NAME)
    query = select(DirectoryGroup.id).where(
        DirectoryGroup.tenant_id == tenant.id,
        func.lower(DirectoryGroup.display_name) == name.lower(),
    )
    if but is not None:
        query = query.where(DirectoryGroup.id != but.id)
    if db.session.scalar(query.limit(1)) is not None:
        raise Conflict(f"group '{name}' already exists in {tenant.label}", field=GROUP_NAME)
    return name


def _external(value: str | None) -> str | None:
    value = (value or "").strip() or None
    if value is not None and len(value) > MAX_NAME:
        raise InvalidInput(f"externalId is longer than {MAX_NAME} characters",
                           field=GROUP_EXTERNAL_ID)  # fmt: skip
    return value


def _queues_given(user: User) -> set[int]:
    """The queues the user's mapped groups give it."""
    return set(
        db.session.scalars(
            select(GroupMapping.skill_queue_id)
            .join(
                DirectoryGroup,
                func.lower(DirectoryGroup.display_name) == func.lower(GroupMapping.group_name),
            )
            .where(
                GroupMapping.tenant_id == user.tenant_id,
                GroupMapping.skill_queue_id.is_not(None),
                DirectoryGroup.tenant_id == user.tenant_id,
                DirectoryGroup.members.any(User.id == user.id),
            )
        )
    )


def _settle(users: Iterable[User], before: dict[int, set[int]], actor: Actor) -> None:
    """Give each user the queues its mapped groups give now, and take away those they gave
    before and give no more (`before`: user id → queue ids given before the change)."""
    db.session.flush()
    for user in users:
        now_given = _queues_given(user)
        had = {q.id for q in user.skill_queues}
        wanted = (had - (before.get(user.id, set()) - now_given)) | now_given
        if wanted != had:
            names = db.session.scalars(select(SkillQueue.name).where(SkillQueue.id.in_(wanted)))
            agents.set_agent_queues(user, list(names), actor=actor)


def _fields(group: DirectoryGroup) -> dict:
    return {
        "displayName": group.display_name,
        "externalId": group.external_id,
        "members": [u.login_user_id for u in group.members],
    }


def _trail(actor: Actor, group: DirectoryGroup, action: str, before, after) -> None:
    record(
        actor,
        Change(
            action,
            "group",
            group.resource_id,
            group.tenant_id,
            before=before,
            after=after,
            event_type=action,
            event_data={"group": group.display_name, "before": before, "after": after},
            subject=f"group:{group.resource_id}",
        ),  # fmt: skip
    )


def create_group(
    tenant: Tenant, name: str, external_id: str | None, members: list[User], *, actor: Actor
) -> DirectoryGroup:
    """A new group with these members (who get its mapped queue at once)."""
    group = DirectoryGroup(
        tenant_id=tenant.id,
        display_name=_checked_name(tenant, name, None),
        external_id=_external(external_id),
        members=list(members),
    )
    before = {u.id: _queues_given(u) for u in members}
    db.session.add(group)
    _settle(members, before, actor)
    console_roles.settle(tenant, console_roles.emails_of(members), actor=actor)
    _trail(actor, group, "group.created", None, _fields(group))
    return group


def update_group(
    group: DirectoryGroup,
    name: str,
    external_id: str | None,
    members: list[User],
    *,
    actor: Actor,
) -> bool:
    """Make the group this (a rename changes which mapping applies); whether it changed."""
    tenant = db.session.get(Tenant, group.tenant_id)
    name = _checked_name(tenant, name, group)
    external_id = _external(external_id)
    old = _fields(group)
    had, has = {u.id: u for u in group.members}, {u.id: u for u in members}
    # Only those who join or leave can gain or lose a queue, unless a rename changes which
    # mapping applies: a member added to a group of thousands settles one user, not all.
    renamed = name.lower() != group.display_name.lower()
    touched = {**had, **has} if renamed else {
        i: u for i, u in {**had, **has}.items() if (i in had) != (i in has)
    }  # fmt: skip
    before = {u.id: _queues_given(u) for u in touched.values()}
    group.display_name, group.external_id, group.members = name, external_id, list(members)
    new = _fields(group)
    if new == old:
        return False
    group.version += 1
    group.updated_at = utcnow()
    _settle(touched.values(), before, actor)
    console_roles.settle(tenant, console_roles.emails_of(touched.values()), actor=actor)
    changed = {k: v for k, v in new.items() if old[k] != v}
    _trail(actor, group, "group.updated", {k: old[k] for k in changed}, changed)
    return True


def delete_group(group: DirectoryGroup, *, actor: Actor) -> None:
    """Delete the group; its members lose the queue it gave them."""
    members = list(group.members)
    before = {u.id: _queues_given(u) for u in members}
    _trail(actor, group, "group.deleted", _fields(group), None)
    tenant = db.session.get(Tenant, group.tenant_id)
    db.session.delete(group)
    _settle(members, before, actor)
    console_roles.settle(tenant, console_roles.emails_of(members), actor=actor)


def map_group(
    tenant: Tenant,
    group_name: str,
    queue: str | None,
    *,
    role: Role | None = None,
    actor: Actor,
) -> bool:
    """Map the group name to a skill queue, or to a console role (neither: no mapping);
    the members of a group of that name gain or lose it at once. Whether it changed."""
    group_name = (group_name or "").strip()
    if not group_name or len(group_name) > MAX_NAME:
        raise InvalidInput(f"a group's name must be 1 to {MAX_NAME} characters", field=GROUP_NAME)
    if queue and role:
        raise InvalidInput("a group gives a skill queue or a role, not both", field=GROUP_NAME)
    target = get_skill_queue(tenant, queue) if queue else None
    mapping = db.session.scalar(
        select(GroupMapping).where(
            GroupMapping.tenant_id == tenant.id,
            func.lower(GroupMapping.group_name) == group_name.lower(),
        )
    )
    was = _gives(mapping)
    now = {"queue": target.name if target else None, "role": role.value if role else None}
    if was == now:
        return False
    groups = db.session.scalars(
        select(DirectoryGroup).where(
            DirectoryGroup.tenant_id == tenant.id,
            func.lower(DirectoryGroup.display_name) == group_name.lower(),
        )
    ).all()
    members = {u.id: u for g in groups for u in g.members}
    before = {u.id: _queues_given(u) for u in members.values()}
    if mapping is not None and target is None and role is None:
        db.session.delete(mapping)
    elif mapping is not None:
        mapping.skill_queue, mapping.role = target, now["role"]
    else:
        mapping = GroupMapping(
            tenant_id=tenant.id, group_name=group_name, skill_queue=target, role=now["role"]
        )
        db.session.add(mapping)
    _settle(members.values(), before, actor)
    console_roles.settle(tenant, console_roles.emails_of(members.values()), actor=actor)
    after = {"group": group_name, **now}
    record(actor, Change("group.mapped", "group_mapping", group_name, tenant.id,
                         before={"group": group_name, **was}, after=after,
                         event_type="group.mapped", event_data=after))  # fmt: skip
    return True


def _gives(mapping: GroupMapping | None) -> dict:
    """What a mapping gives, as the trail and the event say it."""
    if mapping is None:
        return {"queue": None, "role": None}
    return {"queue": mapping.skill_queue.name if mapping.skill_queue else None,
            "role": mapping.role}  # fmt: skip


def mappings(tenant: Tenant) -> list[GroupMapping]:
    return list(
        db.session.scalars(
            select(GroupMapping)
            .where(GroupMapping.tenant_id == tenant.id)
            .order_by(GroupMapping.group_name)
        )
    )
