"""The life of a task: add or update, change status, transfer, delete.

Functions here change the session but never commit: the caller (one API request, one
form post, one CLI command) commits once when the whole action succeeded and rolls back
on any ServiceError, so a failure leaves stored data exactly as it was. Each change
adds its audit record and its event (`trace_change`) to the same session, so they are
committed or rolled back with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import make_transient_to_detached

from app.extensions import db
from app.models import Campaign, SkillQueue, Task, TaskItem, Tenant, WorkedState
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns import find_campaign
from app.services.errors import (
    Conflict,
    InvalidClientId,
    InvalidInput,
    NotFound,
    ServiceError,
    StaleTask,
)
from app.services.rules import from_epoch_ms, require_time_zone
from app.services.search import TaskData
from app.services.task_lookups import (  # noqa: F401 - the lookups are the tasks' API too
    Locator,
    by_client_id,
    by_record_id,
    campaign_named,
    find_task,
    find_task_record,
    find_tenant_task,
    stored_key,
)
from app.services.task_trail import trace_change
from app.services.task_wire import snapshot, task_data, task_snapshot
from app.services.task_writes import (
    ITEM_COLUMNS,
    Defaults,
    client_id_key,
    hold_end,
    insert_statement,
    item_rows,
    keyed,
    new_task_values,
    touch,
    update_values,
)
from app.services.tenants import get_skill_queue
from app.services.validation import (
    ItemInput,
    TaskPlan,
    check_agent,
    plan_task,
)
from app.storage import bulk_insert, take_write_lock


@dataclass(frozen=True)
class TaskChanges:
    """Optional system fields; None leaves a field as it is, "" clears the preferred agent."""

    skill_queue: str | None = None
    preferred_agent: str | None = None
    next_earliest_ms: int | None = None
    time_zone: str | None = None


def check_version(task: Task, expected: int | None) -> None:
    """Refuse a change prepared from an older copy of the task (None: no check)."""
    if expected is not None and task.version != expected:
        raise StaleTask(
            f"task '{task.client_id}' was changed by someone else (version {task.version}, "
            f"you edited version {expected}); nothing was saved"
        )


def add_or_update_task(
    campaign: Campaign,
    client_id: str | None,
    items: list[ItemInput] | None,
    *,
    record_id: str | None = None,
    client_id_field_name: str | None = None,
    preferred_agent: str | None = None,
    next_earliest_ms: int | None = None,
    expected_version: int | None = None,
    actor: Actor,
) -> tuple[Task, bool]:
    """Add a task or replace an existing one's data; returns the task and whether it is new.

    The request is checked before the write lock is taken. Under it, a new clientId is
    added by one INSERT that yields to the task holding it (which is then updated).
    `expected_version`, when given, refuses to update a task changed since it was read.
    """
    options = {"preferred_agent": preferred_agent, "next_earliest_ms": next_earliest_ms}
    plan = _plan(campaign, client_id, items, record_id, client_id_field_name, **options)
    new_key = client_id_field_name or campaign.client_id_field_name
    now = utcnow()
    task = by_record_id(campaign, record_id, lock=True) if record_id else None
    if task is None and plan.field_name != new_key:  # checked under a stored task's key
        task = by_client_id(campaign, plan.client_id, lock=True)
        plan = plan if task else keyed(plan, new_key)  # that task is gone: an add after all
    if task is None:
        added = _add(campaign, plan, now, actor)
        if added is not None:
            return added, True
        task = by_client_id(campaign, plan.client_id, lock=True)
    check_version(task, expected_version)
    key = client_id_key(client_id_field_name, task.client_id_field, campaign.client_id_field_name)
    _update(task, keyed(plan, key), now, actor)
    return task, False


def _plan(
    campaign: Campaign,
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

    def queues(name: str, field: str) -> SkillQueue:
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


def _update(task: Task, plan: TaskPlan, now, actor: Actor) -> None:
    """Replace a stored task's data and the system fields the plan sets."""
    stored = task_data(task)
    before = snapshot(stored)
    _rename(task, plan.client_id)
    values = update_values(plan, _queue_id(plan), now)
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


def add_task(
    campaign: Campaign,
    client_id: str | None,
    items: list[ItemInput],
    *,
    preferred_agent: str | None = None,
    next_earliest_ms: int | None = None,
    actor: Actor,
) -> Task:
    """Add a new task; unlike add_or_update_task, an existing clientId is refused."""
    if client_id and by_client_id(campaign, client_id) is not None:
        raise Conflict(
            f"campaign '{campaign.name}' already has a task with clientId '{client_id}'; "
            "edit that task instead"
        )
    task, _ = add_or_update_task(
        campaign,
        client_id,
        items,
        preferred_agent=preferred_agent,
        next_earliest_ms=next_earliest_ms,
        actor=actor,
    )
    return task


# Columns a new task leaves NULL: its model is made with them, nothing is read back.
_NULL_WHEN_NEW = ("last_attempt_agent", "last_attempt_at", "reserved_by_id", "reserved_at",
                  "close_reason")  # fmt: skip


def _add(campaign: Campaign, plan: TaskPlan, now, actor: Actor) -> Task | None:
    """Add the planned task with its items, audit record and event; None, with nothing
    written, when its clientId is taken.

    Everything but the writes is made before the write lock: the task's values, its model
    and what the trail records. Under the lock one INSERT writes the task (yielding to a
    task that holds the clientId), and the model then joins the session as stored.
    """
    values = new_task_values(plan, _queue_id(plan), Defaults.of(campaign), now)
    values.update(campaign_id=campaign.id, created_at=now, updated_at=now)
    queue = plan.skill_queue or campaign.default_skill_queue
    task = Task(**dict.fromkeys(_NULL_WHEN_NEW), **values, campaign=campaign, skill_queue=queue)
    after = snapshot(TaskData(task, plan.items, ()))
    take_write_lock(db.session)
    statement = insert_statement(db.session.connection().dialect.name)
    task.id = db.session.execute(statement, values).scalar()
    if task.id is None:
        return None
    make_transient_to_detached(task)
    db.session.add(task)
    rows = item_rows(task.id, campaign.id, plan.items)
    bulk_insert(db.session, TaskItem.__table__, ITEM_COLUMNS, rows)
    trace_change(actor, "task.added", task, None, after)
    return task


def _rename(task: Task, client_id: str) -> None:
    """An update located by previewRecordId may give the task a new, still unique clientId."""
    if task.client_id == client_id:
        return
    message = f"clientId '{client_id}' already belongs to another task of the campaign"
    if by_client_id(task.campaign, client_id) is not None:
        raise Conflict(message)
    task.client_id = client_id
    _flush_or_conflict(message)


def _flush_or_conflict(message: str) -> None:
    """Write now; a clientId taken by a simultaneous request is a Conflict, not a 500."""
    try:
        with db.session.begin_nested():
            db.session.flush()
    except IntegrityError:
        raise Conflict(message) from None


def _replace_items(task: Task, items: list[ItemInput]) -> None:
    """Delete every stored item of the task and store the new ones in their sent order."""
    db.session.execute(delete(TaskItem).where(TaskItem.task_id == task.id))
    db.session.expire(task, ["items"])
    bulk_insert(
        db.session, TaskItem.__table__, ITEM_COLUMNS, item_rows(task.id, task.campaign_id, items)
    )


def _sync_item(task: Task, key: str, value: str) -> None:
    """Keep a SkillQueue or ItemTimeZone data item in step with the field it sets."""
    db.session.execute(
        update(TaskItem).where(TaskItem.task_id == task.id, TaskItem.key == key).values(value=value)
    )
    db.session.expire(task, ["items"])


def apply_changes(task: Task, changes: TaskChanges) -> None:
    """Apply the optional system fields of a status change or transfer."""
    queue = changes.skill_queue and get_skill_queue(
        task.campaign.tenant, changes.skill_queue, "skillQueue"
    )
    if changes.time_zone is not None:
        require_time_zone(changes.time_zone, "timeZone")
    check_agent(changes.preferred_agent)
    next_work = None
    if changes.next_earliest_ms is not None:
        next_work = from_epoch_ms(changes.next_earliest_ms, "nextEarliestWorkTimeUTC")
    if queue:
        task.skill_queue = queue
        _sync_item(task, "SkillQueue", queue.name)
    if changes.time_zone is not None:
        task.time_zone = changes.time_zone
        _sync_item(task, "ItemTimeZone", changes.time_zone)
    if changes.preferred_agent is not None:
        task.preferred_agent = changes.preferred_agent or None
    if next_work is not None:
        task.next_earliest_work_at = next_work
    if changes.preferred_agent is not None or next_work is not None:
        restart_hold(task, utcnow())
    touch(task)


def restart_hold(task: Task, now) -> None:
    """A new preferred agent or next earliest time: the agent's hold runs from when the
    task becomes available (app/services/delivery)."""
    task.hold_until = hold_end(task.preferred_agent, task.next_earliest_work_at, now)


def end_reservation(task: Task) -> None:
    """A task changed elsewhere (status, transfer) is no longer the agent's: the desk
    answers NOT_FOUND on the agent's next action on it."""
    task.reserved_by_id, task.reserved_at = None, None


def change_status(
    campaign: Campaign,
    locator: Locator,
    state: str,
    changes: TaskChanges,
    *,
    expected_version: int | None = None,
    actor: Actor,
) -> Task:
    """Set the worked state of one task, with its optional system fields."""
    if state not in set(WorkedState):
        raise InvalidInput(
            f"previewRecordStateEnum '{state}' is not one of {', '.join(WorkedState)}"
        )
    if state == WorkedState.WORKED and changes.next_earliest_ms is None:
        raise InvalidInput("nextEarliestWorkTimeUTC is required when the new state is WORKED")
    task = find_task(campaign, locator, lock=True)
    check_version(task, expected_version)
    before = task_snapshot(task)
    apply_changes(task, changes)
    task.worked_state = state
    task.close_reason = None  # a reason the service closed it no longer holds
    end_reservation(task)
    trace_change(actor, "task.status_changed", task, before, task_snapshot(task))
    return task


def transfer_task(
    campaign: Campaign,
    locator: Locator,
    destination_name: str,
    changes: TaskChanges,
    *,
    expected_version: int | None = None,
    actor: Actor,
) -> Task:
    """Move a task to another campaign (or queue), keeping its id, data and state.

    Without a skillQueue, a task that changes campaign takes the destination's default
    queue; its time zone stays unless timeZone is given.
    """
    destination = find_campaign(campaign.tenant, destination_name)
    if destination is None:
        raise NotFound(
            f"transferToCampaign '{destination_name}' is not a campaign of this environment"
        )
    task = find_task(campaign, locator, lock=True)
    check_version(task, expected_version)
    before = task_snapshot(task)
    if destination.id != campaign.id:
        if by_client_id(destination, task.client_id) is not None:
            raise Conflict(
                f"clientId '{task.client_id}' already exists in campaign '{destination.name}'"
            )
        task.campaign = destination
        _flush_or_conflict(
            f"clientId '{task.client_id}' already exists in campaign '{destination.name}'"
        )
        db.session.execute(
            update(TaskItem).where(TaskItem.task_id == task.id).values(campaign_id=destination.id)
        )
        if changes.skill_queue is None:
            task.skill_queue = destination.default_skill_queue
            _sync_item(task, "SkillQueue", destination.default_skill_queue.name)
    apply_changes(task, changes)
    end_reservation(task)
    after = task_snapshot(task)
    where = {"fromCampaign": campaign.name, "toCampaign": destination.name}
    trace_change(actor, "task.transferred", task, before, after, **where)
    return task


def delete_task(
    campaign: Campaign, locator: Locator, *, expected_version: int | None = None, actor: Actor
) -> None:
    """Remove a task and its data for good; its previewRecordID is never given out again."""
    task = find_task(campaign, locator, lock=True)
    check_version(task, expected_version)
    trace_change(actor, "task.deleted", task, task_snapshot(task), None)
    db.session.delete(task)
