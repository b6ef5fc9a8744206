"""Saving a task's data: the checked plan of an add or update, then its writes.

`tasks.add_or_update_task` decides whether a request adds a task or updates one; the
functions here do the rest. A plan is checked before the write lock is taken; a new task is
written by one INSERT that yields to a task holding its clientId, a stored task has its
columns set and its items replaced. Each write adds its audit record and its event to the
session, as every change of a task does, and nothing here commits.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import make_transient_to_detached

from app.db.bulk_inserts import bulk_insert
from app.db.plain_reads import session_connection
from app.db.transactions import take_write_lock
from app.extensions import db
from app.models import Campaign, SkillQueue, Task, TaskItem, Tenant
from app.services.actors import Actor
from app.services.errors import Conflict, InvalidClientId, ServiceError
from app.services.fields import Field
from app.services.snapshots import task_snapshot_of
from app.services.tasks.data import TaskData
from app.services.tasks.lookups import CampaignRow, by_client_id, stored_key
from app.services.tasks.snapshots import snapshot, task_data
from app.services.tasks.tracing import prepare_trace, task_change, trace_change, write_trace
from app.services.tasks.validation import CLIENT_ID, ItemInput, TaskPlan, plan_task
from app.services.tasks.writes import (
    INSERT_TASK,
    ITEM_COLUMNS,
    Defaults,
    hold_end,
    item_rows,
    new_task_values,
    touch,
    update_values,
)
from app.services.tenants.setup import get_skill_queue


def plan_add_or_update(
    campaign: Campaign | CampaignRow,
    client_id: str | None,
    items: list[ItemInput] | None,
    record_id: str | None,
    asked_key: str | None,
    **options: Any,
) -> TaskPlan:
    """Check an add or update, reading no task: under the key asked for, else the campaign's.

    An existing task keeps the key it was added with, which decides what its data may
    hold: a refusal under the campaign's key is checked again under the task's own.
    """
    tenant_id = campaign.tenant_id

    def queues(name: str, field: Field) -> SkillQueue:
        return get_skill_queue(db.session.get(Tenant, tenant_id), name, field)

    def plan(key: str) -> TaskPlan:
        return plan_task(None, client_id, items, key, queues=queues, **options)

    try:
        return plan(asked_key or campaign.client_id_field_name)
    except InvalidClientId:
        raise
    except ServiceError:
        stored = None if asked_key else stored_key(campaign, record_id, client_id)
        if stored is None or stored == campaign.client_id_field_name:
            raise
        return plan(stored)


def update_planned(task: Task, plan: TaskPlan, now, actor: Actor) -> None:
    """Replace a stored task's data and the system fields the plan sets."""
    stored = task_data(task)
    before = snapshot(stored)
    _rename(task, plan.client_id)
    values = update_values(plan, _queue_id(plan), now, Defaults.of(task.campaign))
    _apply(task, values)
    if "hold_until" in values:  # from the stored time and agent, not only the plan's
        restart_hold(task, now)
    touch(task, now)
    _replace_items(task, plan.items)
    # After: the items just written and the work codes as they were, not read back.
    after = snapshot(TaskData(task, plan.items, stored.work_codes))
    trace_change(actor, "task.updated", task, before, after)


def _queue_id(plan: TaskPlan) -> int | None:
    return plan.skill_queue.id if plan.skill_queue else None


def _apply(task: Task, values: dict[str, Any]) -> None:
    """Set the columns on the task; the queue as its object, so `task.skill_queue` agrees."""
    for name, value in values.items():
        if name == "skill_queue_id":
            task.skill_queue = db.session.get(SkillQueue, value)
        else:
            setattr(task, name, value)


# Columns a new task leaves NULL: its snapshot and model are made with them, nothing is read back.
_NULL_WHEN_NEW = ("last_attempt_agent", "last_attempt_at", "reserved_by_id", "reserved_at",
                  "close_reason")  # fmt: skip


def add_planned(
    campaign: Campaign | CampaignRow, plan: TaskPlan, now, actor: Actor
) -> dict[str, Any] | None:
    """Add the planned task with its items, audit record and event: the new task's columns
    (its id among them); None, with nothing written, when its clientId is taken.

    Everything but the writes is made before the write lock: the task's values and what
    the trail records, serialised. Under the lock one INSERT writes the task (yielding to a
    task that holds the clientId), on the session's connection without the ORM, then its
    items, its audit record and its event.
    """
    values = new_task_values(plan, _queue_id(plan), Defaults.of(campaign), now)
    values.update(campaign_id=campaign.id, created_at=now, updated_at=now)
    columns = {**dict.fromkeys(_NULL_WHEN_NEW), **values}
    queue = plan.skill_queue.name if plan.skill_queue else _default_queue_name(campaign)
    after = task_snapshot_of(SimpleNamespace(**columns), queue, plan.items, (), campaign.name)
    change = task_change("task.added", values["record_id"], campaign.tenant_id, None, after)
    trace = prepare_trace(actor, change, now)
    take_write_lock(db.session)
    dialect = session_connection(db.session).dialect.name
    inserted = INSERT_TASK[dialect].first(db.session, **values)
    if inserted is None:
        return None
    task_id = inserted.id
    rows = item_rows(task_id, campaign.id, plan.items)
    bulk_insert(db.session, TaskItem.__table__, ITEM_COLUMNS, rows)
    write_trace(trace)
    return {**columns, "id": task_id}


def _default_queue_name(campaign: Campaign | CampaignRow) -> str:
    if isinstance(campaign, CampaignRow):
        return campaign.default_queue_name
    return campaign.default_skill_queue.name


def stored_model(campaign: Campaign, columns: dict[str, Any]) -> Task:
    """The model of a task just added (`add_planned`), in the session as stored: nothing is
    read back."""
    queue = db.session.get(SkillQueue, columns["skill_queue_id"])
    task = Task(**columns, campaign=campaign, skill_queue=queue)
    make_transient_to_detached(task)
    db.session.add(task)
    return task


def _rename(task: Task, client_id: str) -> None:
    """An update located by previewRecordId may give the task a new, still unique clientId."""
    if task.client_id == client_id:
        return
    message = f"clientId '{client_id}' already belongs to another task of the campaign"
    if by_client_id(task.campaign, client_id) is not None:
        raise Conflict(message, field=CLIENT_ID)
    task.client_id = client_id
    flush_or_conflict(message)


def flush_or_conflict(message: str) -> None:
    """Write now; a clientId taken by a simultaneous request is a Conflict, not a 500."""
    try:
        with db.session.begin_nested():
            db.session.flush()
    except IntegrityError:
        raise Conflict(message, field=CLIENT_ID) from None


def _replace_items(task: Task, items: list[ItemInput]) -> None:
    """Delete every stored item of the task and store the new ones in their sent order."""
    db.session.execute(delete(TaskItem).where(TaskItem.task_id == task.id))
    db.session.expire(task, ["items"])
    bulk_insert(
        db.session, TaskItem.__table__, ITEM_COLUMNS, item_rows(task.id, task.campaign_id, items)
    )


def restart_hold(task: Task, now) -> None:
    """A new preferred agent or next earliest time: the agent's hold runs from when the
    task becomes available (app/services/delivery)."""
    task.hold_until = hold_end(task.preferred_agent, task.next_earliest_work_at, now)
