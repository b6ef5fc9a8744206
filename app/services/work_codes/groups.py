"""Work codes: the tenant's groups of codes an agent picks when closing a task.

A group is required or optional, single or multiple choice, and is assigned to skill queues;
a code has a description (shown to the agent), a sort order, an enabled flag and the outcome
it implies (COMPLETE, RESCHEDULE with a default delay, REMOVE, or none: a plain label), may
put the task's numbers on the do-not-call list, and may name the call result it suggests
(BUSY → "Busy", which reschedules in 30 minutes): the desk preselects it when a call ends
with that result (the first enabled such code of the group, in the agents' order).
What closing a task offers and accepts is work_codes/choices.py; the outcome the codes
imply is delivery/closing.py's business.

A task keeps the codes chosen as plain text (`WorkCode`: group, code), so renaming,
disabling or deleting a group or a code never changes a task closed with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.extensions import db
from app.models import CallResult, Tenant, WorkCodeChoice, WorkCodeGroup
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import (
    WORK_CODE_DELAY,
    WORK_CODE_DESCRIPTION,
    WORK_CODE_GROUP_NAME,
    WORK_CODE_GROUP_QUEUES,
    WORK_CODE_NAME,
    WORK_CODE_OUTCOME,
    WORK_CODE_SORT_ORDER,
    WORK_CODE_SUGGESTED_FOR,
    Field,
)
from app.services.tenants.setup import get_skill_queue, list_skill_queues

# How this module's refusals name their fields.
GROUP_NAME = WORK_CODE_GROUP_NAME.said_as("work code group name")
CODE_NAME = WORK_CODE_NAME.said_as("work code name")
DESCRIPTION = WORK_CODE_DESCRIPTION.said_as("description")
OUTCOME = WORK_CODE_OUTCOME.said_as("outcome")
DELAY = WORK_CODE_DELAY.said_as("delay")
SUGGESTED_FOR = WORK_CODE_SUGGESTED_FOR.said_as("suggested for")
SORT_ORDER = WORK_CODE_SORT_ORDER.said_as("sort order")

OUTCOMES = ("COMPLETE", "RESCHEDULE", "REMOVE")
CALL_RESULTS = tuple(result.value for result in CallResult)
MAX_NAME = 255  # what a task's stored work code holds
MAX_DESCRIPTION = 1000
MAX_DELAY_MINUTES = 366 * 24 * 60


@dataclass(frozen=True)
class CodeSettings:
    """Everything of a code but its name."""

    description: str = ""
    sort_order: int = 0
    outcome: str | None = None
    reschedule_minutes: int | None = None
    adds_to_dnc: bool = False
    suggested_for: str | None = None  # a CallResult
    contact: bool = False  # the reports: choosing it means a person was reached
    success: bool = False  # the reports: choosing it means the campaign's goal was met
    revokes_consent: bool = False  # revokes the consent of the task's numbers, tenant-wide


def code_settings(code: WorkCodeChoice) -> CodeSettings:
    """The code's settings as they are, to change one of them."""
    return CodeSettings(
        code.description,
        code.sort_order,
        code.outcome,
        code.reschedule_minutes,
        code.adds_to_dnc,
        code.suggested_for,
        code.contact,
        code.success,
        code.revokes_consent,
    )


def delay_words(minutes: int | None) -> str | None:
    """`90 minutes`, `2 hours`, `1 day`: a delay as people say it."""
    if not minutes:
        return None
    size, unit = next(
        (size, unit) for size, unit in ((1440, "day"), (60, "hour"), (1, "minute"))
        if minutes % size == 0
    )  # fmt: skip
    count = minutes // size
    return f"{count} {unit}{'' if count == 1 else 's'}"


# --- reading --------------------------------------------------------------------------------


def list_groups(tenant: Tenant) -> list[WorkCodeGroup]:
    """The tenant's groups by name, with their codes and queues."""
    return list(
        db.session.scalars(
            select(WorkCodeGroup)
            .filter_by(tenant_id=tenant.id)
            .order_by(WorkCodeGroup.name)
            .options(selectinload(WorkCodeGroup.codes), selectinload(WorkCodeGroup.skill_queues))
        )
    )


def find_group(tenant: Tenant, name: str) -> WorkCodeGroup | None:
    return db.session.scalar(select(WorkCodeGroup).filter_by(tenant_id=tenant.id, name=name))


def get_group(tenant: Tenant, name: str) -> WorkCodeGroup:
    group = find_group(tenant, name)
    if group is None:
        raise NotFound(f"work code group '{name}' does not exist in this environment")
    return group


def group_by_id(tenant: Tenant, group_id: int) -> WorkCodeGroup | None:
    """The tenant's group with this id; None for another tenant's."""
    group = db.session.get(WorkCodeGroup, group_id)
    return group if group is not None and group.tenant_id == tenant.id else None


def find_code(group: WorkCodeGroup, name: str) -> WorkCodeChoice | None:
    return next((code for code in group.codes if code.name == name), None)


def get_code(group: WorkCodeGroup, name: str) -> WorkCodeChoice:
    code = find_code(group, name)
    if code is None:
        raise NotFound(f"work code '{name}' is not a code of group '{group.name}'")
    return code


def code_by_id(group: WorkCodeGroup, code_id: int) -> WorkCodeChoice | None:
    return next((code for code in group.codes if code.id == code_id), None)


# --- changing -------------------------------------------------------------------------------


def _name(name: str, field: Field) -> str:
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME:
        raise InvalidInput(f"{field} must be 1 to {MAX_NAME} characters", field=field)
    return name


def _group_fields(group: WorkCodeGroup) -> dict:
    return {"name": group.name, "required": group.required, "multiple": group.multiple}


def _code_fields(code: WorkCodeChoice) -> dict:
    return {
        "group": code.group.name,
        "name": code.name,
        "description": code.description,
        "sortOrder": code.sort_order,
        "enabled": code.enabled,
        "outcome": code.outcome,
        "rescheduleMinutes": code.reschedule_minutes,
        "addsToDnc": code.adds_to_dnc,
        "revokesConsent": code.revokes_consent,
        "suggestedFor": code.suggested_for,
        "contact": code.contact,
        "success": code.success,
    }


def _trail(actor: Actor, action: str, entity, tenant_id: int, before=None, after=None) -> None:
    kind = "work_code_group" if isinstance(entity, WorkCodeGroup) else "work_code"
    record(actor, Change(action, kind, str(entity.id), tenant_id, before=before, after=after))


def create_group(
    tenant: Tenant, name: str, *, required: bool = False, multiple: bool = False, actor: Actor
) -> WorkCodeGroup:
    """A new group of the tenant, with no codes and no queue yet."""
    name = _name(name, GROUP_NAME)
    if find_group(tenant, name):
        raise Conflict(f"work code group '{name}' already exists", field=WORK_CODE_GROUP_NAME)
    group = WorkCodeGroup(tenant_id=tenant.id, name=name, required=required, multiple=multiple)
    db.session.add(group)
    db.session.flush()
    _trail(actor, "work_code_group.added", group, tenant.id, after=_group_fields(group))
    return group


def change_group(
    group: WorkCodeGroup, name: str, *, required: bool, multiple: bool, actor: Actor
) -> WorkCodeGroup:
    """Rename the group or change whether it is required or multiple choice; tasks closed
    before keep the codes as they were chosen."""
    name = _name(name, GROUP_NAME)
    if name != group.name and find_group(group_tenant(group), name):
        raise Conflict(f"work code group '{name}' already exists", field=WORK_CODE_GROUP_NAME)
    before = _group_fields(group)
    group.name, group.required, group.multiple = name, required, multiple
    db.session.flush()
    _trail(actor, "work_code_group.changed", group, group.tenant_id, before, _group_fields(group))
    return group


def delete_group(group: WorkCodeGroup, *, actor: Actor) -> None:
    """Delete the group, its codes and its queue assignments; tasks keep their codes."""
    fields = {**_group_fields(group), "codes": [code.name for code in group.codes]}
    _trail(actor, "work_code_group.deleted", group, group.tenant_id, before=fields)
    db.session.delete(group)
    db.session.flush()


def group_tenant(group: WorkCodeGroup) -> Tenant:
    return db.session.get(Tenant, group.tenant_id)


def _settings(settings: CodeSettings) -> CodeSettings:
    if len(settings.description or "") > MAX_DESCRIPTION:
        raise InvalidInput(
            f"description must be at most {MAX_DESCRIPTION} characters", field=DESCRIPTION
        )
    if settings.outcome is not None and settings.outcome not in OUTCOMES:
        raise InvalidInput(
            f"outcome '{settings.outcome}' is not one of {', '.join(OUTCOMES)}", field=OUTCOME
        )
    minutes = settings.reschedule_minutes
    if minutes is not None:
        if settings.outcome != "RESCHEDULE":
            raise InvalidInput("delay is only for a code whose outcome is RESCHEDULE", field=DELAY)
        if not 1 <= minutes <= MAX_DELAY_MINUTES:
            raise InvalidInput(
                f"delay must be 1 to {MAX_DELAY_MINUTES} minutes (366 days)", field=DELAY
            )
    if settings.suggested_for is not None and settings.suggested_for not in CALL_RESULTS:
        raise InvalidInput(
            f"suggested for '{settings.suggested_for}' is not a call result: one of "
            f"{', '.join(CALL_RESULTS)}",
            field=SUGGESTED_FOR,
        )
    if not -1_000_000 <= settings.sort_order <= 1_000_000:
        raise InvalidInput("sort order must be between -1000000 and 1000000", field=SORT_ORDER)
    return CodeSettings(**{**asdict(settings), "description": settings.description or ""})


def add_code(
    group: WorkCodeGroup, name: str, settings: CodeSettings = CodeSettings(), *, actor: Actor
) -> WorkCodeChoice:
    """A new enabled code of the group."""
    name = _name(name, CODE_NAME)
    settings = _settings(settings)
    if find_code(group, name):
        raise Conflict(
            f"work code '{name}' already exists in group '{group.name}'", field=WORK_CODE_NAME
        )
    code = WorkCodeChoice(name=name, enabled=True, **asdict(settings))
    group.codes.append(code)
    db.session.flush()
    _trail(actor, "work_code.added", code, group.tenant_id, after=_code_fields(code))
    return code


def change_code(
    code: WorkCodeChoice, name: str, settings: CodeSettings, *, actor: Actor
) -> WorkCodeChoice:
    """Change a code; tasks closed with it keep the name they were closed with."""
    name = _name(name, CODE_NAME)
    settings = _settings(settings)
    if name != code.name and find_code(code.group, name):
        raise Conflict(
            f"work code '{name}' already exists in group '{code.group.name}'", field=WORK_CODE_NAME
        )
    before = _code_fields(code)
    code.name = name
    for field, value in asdict(settings).items():
        setattr(code, field, value)
    db.session.flush()
    _trail(actor, "work_code.changed", code, code.group.tenant_id, before, _code_fields(code))
    return code


def set_code_enabled(code: WorkCodeChoice, enabled: bool, *, actor: Actor) -> WorkCodeChoice:
    """Offer the code again, or no longer (tasks closed with it keep it)."""
    before = _code_fields(code)
    code.enabled = enabled
    action = "work_code.enabled" if enabled else "work_code.disabled"
    _trail(actor, action, code, code.group.tenant_id, before, _code_fields(code))
    return code


def set_queue_groups(
    tenant: Tenant, queue_name: str, group_names: Iterable[str], *, actor: Actor
) -> list[str]:
    """Give the skill queue exactly these groups (an unknown name is refused, by name); the
    names it now has, sorted."""
    queue = get_skill_queue(tenant, queue_name)
    wanted = sorted(set(group_names))
    groups = [get_group(tenant, name) for name in wanted]
    before = [group.name for group in queue.work_code_groups]
    for group in list_groups(tenant):
        if group in groups and queue not in group.skill_queues:
            group.skill_queues.append(queue)
        elif group not in groups and queue in group.skill_queues:
            group.skill_queues.remove(queue)
    db.session.flush()
    db.session.expire(queue, ["work_code_groups"])
    record(
        actor,
        Change(
            "skill_queue.work_code_groups_set",
            "skill_queue",
            str(queue.id),
            tenant.id,
            before={"name": queue.name, "workCodeGroups": before},
            after={"name": queue.name, "workCodeGroups": wanted},
        ),
    )
    return wanted


def set_group_queues(
    group: WorkCodeGroup, queue_names: Iterable[str], *, actor: Actor
) -> list[str]:
    """Assign the group to exactly these skill queues of its tenant; their names, sorted."""
    tenant = group_tenant(group)
    wanted = sorted(set(queue_names))
    queues = [get_skill_queue(tenant, name, WORK_CODE_GROUP_QUEUES) for name in wanted]
    before = [queue.name for queue in group.skill_queues]
    group.skill_queues = queues
    db.session.flush()
    for queue in list_skill_queues(tenant):
        db.session.expire(queue, ["work_code_groups"])
    _trail(
        actor,
        "work_code_group.queues_set",
        group,
        tenant.id,
        {"name": group.name, "skillQueues": before},
        {"name": group.name, "skillQueues": wanted},
    )
    return wanted
