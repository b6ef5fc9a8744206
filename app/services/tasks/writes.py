"""What adding or updating a task writes: the rules the API and bulk loads share.

A validated plan (`validation.plan_task`) says what was asked. The functions here turn it
into the column values of a new task, or into the columns an update changes. The API
applies those values to the ORM object, a bulk load turns them into rows for set-based
statements; neither decides anything of its own, so the two doors cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from flask import current_app
from sqlalchemy import bindparam
from sqlalchemy.dialects import postgresql, sqlite

from app.db.plain_reads import PlainRead
from app.models import Campaign, Task, WorkedState
from app.models.types import UTCDateTime, utcnow
from app.services import phone_numbers, regions
from app.services.record_ids import new_record_id
from app.services.tasks.validation import ItemInput, TaskPlan, check_client_id_key
from app.services.values import LATEST, is_phone_key, wrapped

TASKS = Task.__table__
ZONE_FROM_DEFAULT, ZONE_FROM_NUMBER = "default", "number"
ZONE_FROM = (ZONE_FROM_DEFAULT, ZONE_FROM_NUMBER)
FIRST_VERSION = 1


@dataclass(frozen=True)
class Defaults:
    """What a new task of the campaign gets where its plan leaves a field open."""

    skill_queue_id: int
    time_zone: str
    # "number": a task whose data names no zone is in every zone its numbers may be in.
    zone_from: str = ZONE_FROM_DEFAULT

    @classmethod
    def of(cls, campaign: Campaign) -> Defaults:
        return cls(
            campaign.default_skill_queue_id,
            campaign.default_time_zone,
            campaign.zone_from or ZONE_FROM_DEFAULT,
        )


def task_zones(plan: TaskPlan, defaults: Defaults) -> dict[str, str]:
    """`time_zone` and `zones` of a task: its ItemTimeZone when it has one; else, when the
    campaign takes zones from numbers, every zone its numbers may be in (the first as
    `time_zone`, all of them as `zones` when there are several); else the default zone."""
    if plan.time_zone:
        return {"time_zone": plan.time_zone, "zones": ""}
    found: list[str] = []
    if defaults.zone_from == ZONE_FROM_NUMBER:
        for item in plan.items:
            if is_phone_key(item.key) and item.value:
                found += [z for z in phone_numbers.zones_of(item.value) if z not in found]
    if not found:
        return {"time_zone": defaults.time_zone, "zones": ""}
    found.sort()
    return {"time_zone": found[0], "zones": wrapped(found) if len(found) > 1 else ""}


def client_id_key(asked: str | None, stored: str | None, campaign_key: str) -> str:
    """The key the clientId is stored under in the task's data.

    As asked (the API's clientIdFieldName), else the key an existing task was added with,
    else the campaign's clientId field name. An intake file asks for nothing: its first
    column is always named as the campaign's.
    """
    return asked or stored or campaign_key


def keyed(plan: TaskPlan, key: str) -> TaskPlan:
    """The plan with its clientId item under `key`; a data item of that key is refused."""
    if key == plan.field_name:
        return plan
    data = plan.items[1:]
    check_client_id_key(data, key)
    return replace(plan, field_name=key, items=[ItemInput(key, plan.client_id), *data])


def hold_end(
    preferred_agent: str | None, next_work: datetime | None, now: datetime
) -> datetime | None:
    """Until when a task is offered only to its preferred agent: PREFERRED_AGENT_HOLD_SECONDS
    from when it becomes available (now, or its next earliest time if later)."""
    return hold_from(next_work, now) if preferred_agent else None


def hold_from(next_work: datetime | None, now: datetime) -> datetime:
    """The end of a hold that starts when the task becomes available."""
    start = max(now, next_work) if next_work else now
    hold = timedelta(seconds=current_app.config["PREFERRED_AGENT_HOLD_SECONDS"])
    return start + min(hold, LATEST - start)  # a time at the end of the range holds to it


def new_task_values(
    plan: TaskPlan, queue_id: int | None, defaults: Defaults, now: datetime | None = None
) -> dict[str, Any]:
    """Every column of a new task but its campaign and times.

    `queue_id` is the queue the plan asks for (its SkillQueue item, or a bulk file's
    skillQueue column). A new task is NOTWORKED, never attempted, at its first version.
    """
    return {
        "record_id": new_record_id(),
        "client_id": plan.client_id,
        "client_id_field": plan.field_name,
        "preferred_agent": plan.preferred_agent or None,
        "skill_queue_id": queue_id or defaults.skill_queue_id,
        **task_zones(plan, defaults),
        "regions": wrapped(regions.regions_of(plan.items)),
        "worked_state": WorkedState.NOTWORKED.value,
        "work_attempts": 0,
        "next_earliest_work_at": plan.next_work,
        "hold_until": hold_end(plan.preferred_agent, plan.next_work, now or utcnow()),
        "version": FIRST_VERSION,
    }


def update_values(
    plan: TaskPlan,
    queue_id: int | None,
    now: datetime | None = None,
    defaults: Defaults | None = None,
) -> dict[str, Any]:
    """The columns an update changes (its data items are replaced besides).

    The clientId's key and the regions (of the items that replace the old) always; queue,
    zone and next earliest time only when the plan sets them (the zones from the new
    numbers too, when the campaign `defaults` take zones from numbers); the preferred agent when the
    plan names one, "" clearing it. State, attempts and
    everything else stay as they are. A new preferred agent or next earliest time starts
    the preferred agent's hold again (from the plan's time: a bulk update does not read the
    stored one; the API's update corrects it from the task, `tasks.restart_hold`).
    """
    values: dict[str, Any] = {
        "client_id_field": plan.field_name,
        "regions": wrapped(regions.regions_of(plan.items)),
    }
    if queue_id:
        values["skill_queue_id"] = queue_id
    if plan.time_zone:
        values.update(time_zone=plan.time_zone, zones="")
    elif defaults is not None and defaults.zone_from == ZONE_FROM_NUMBER:
        values.update(task_zones(plan, defaults))
    if plan.preferred_agent is not None:
        values["preferred_agent"] = plan.preferred_agent or None
    if plan.next_work is not None:
        values["next_earliest_work_at"] = plan.next_work
    if plan.preferred_agent is not None or plan.next_work is not None:
        # Only a task with a preferred agent is held: on one without, the time is unread.
        cleared = plan.preferred_agent == ""
        values["hold_until"] = None if cleared else hold_from(plan.next_work, now or utcnow())
    return values


def touch(task: Task, now: datetime | None = None) -> None:
    """Record that the task changed: its update time and its version."""
    task.updated_at = now or utcnow()
    task.version = (task.version or 0) + 1


def touched_in_sql() -> dict[str, Any]:
    """What `touch` does, as SET values of an UPDATE statement (the time bound as `now`)."""
    return {
        "updated_at": bindparam("now", type_=UTCDateTime()),
        "version": TASKS.c.version + 1,
    }


# The columns a new task is inserted with: `new_task_values`' and its campaign and times.
NEW_TASK_COLUMNS = ("record_id", "client_id", "client_id_field", "preferred_agent",
                    "skill_queue_id", "time_zone", "zones", "regions", "worked_state",
                    "work_attempts", "next_earliest_work_at", "hold_until", "version",
                    "campaign_id", "created_at", "updated_at")  # fmt: skip

# INSERT … ON CONFLICT DO NOTHING RETURNING id, by dialect, run on the driver: a clientId
# added meanwhile by another request (PostgreSQL; SQLite's write lock rules it out) inserts
# nothing, with no savepoint to roll back to.
INSERT_TASK = {
    name: PlainRead(
        insert(TASKS)
        .values(
            {column: bindparam(column, type_=TASKS.c[column].type) for column in NEW_TASK_COLUMNS}
        )  # fmt: skip
        .on_conflict_do_nothing(index_elements=[TASKS.c.campaign_id, TASKS.c.client_id])
        .returning(TASKS.c.id)
    )
    for name, insert in (("sqlite", sqlite.insert), ("postgresql", postgresql.insert))
}


ITEM_COLUMNS = ("task_id", "campaign_id", "key", "value", "number", "display_order", "position",
                "valid_number")  # fmt: skip


def item_rows(task_id: int, campaign_id: int, items: list[ItemInput]) -> list[tuple]:
    """A task's items as rows of ITEM_COLUMNS, in their sent order."""
    return [
        (
            task_id,
            campaign_id,
            item.key,
            item.value,
            item.number,
            item.display_order,
            position,
            item.valid_number,
        )  # fmt: skip
        for position, item in enumerate(items)
    ]
