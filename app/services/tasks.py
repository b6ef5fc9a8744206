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

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models import Campaign, SkillQueue, Task, TaskItem, WorkedState
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns import find_campaign
from app.services.errors import Conflict, InvalidInput, NotFound, StaleTask, TaskNotFound
from app.services.rules import from_epoch_ms, require_time_zone
from app.services.search import TaskData
from app.services.task_trail import trace_change
from app.services.task_wire import snapshot, task_data, task_snapshot
from app.services.task_writes import (
    ITEM_COLUMNS,
    Defaults,
    client_id_key,
    hold_end,
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
    check_client_id,
    plan_task,
)
from app.storage import bulk_insert


@dataclass(frozen=True)
class Locator:
    """How a request names one task: previewRecordId wins over clientId."""

    record_id: str | None = None
    client_id: str | None = None

    def describe(self) -> str:
        if self.record_id:
            return f"previewRecordId '{self.record_id}'"
        return f"clientId '{self.client_id}'"


@dataclass(frozen=True)
class TaskChanges:
    """Optional system fields; None leaves a field as it is, "" clears the preferred agent."""

    skill_queue: str | None = None
    preferred_agent: str | None = None
    next_earliest_ms: int | None = None
    time_zone: str | None = None


def _by_record_id(campaign: Campaign, record_id: str, lock: bool = False) -> Task | None:
    query = select(Task).filter_by(campaign_id=campaign.id, record_id=record_id)
    return db.session.scalar(query.with_for_update(of=Task) if lock else query)


def _by_client_id(campaign: Campaign, client_id: str, lock: bool = False) -> Task | None:
    # Writers lock the task row first (PostgreSQL), so two updates of one task take
    # turns instead of interleaving their deletes and inserts of its items. SQLite's
    # BEGIN IMMEDIATE already serialises writers.
    query = select(Task).filter_by(campaign_id=campaign.id, client_id=client_id)
    return db.session.scalar(query.with_for_update(of=Task) if lock else query)


def find_task(campaign: Campaign, locator: Locator, lock: bool = False) -> Task:
    """The task the locator names, or TaskNotFound; `lock` when the caller will change it."""
    if locator.record_id:
        task = _by_record_id(campaign, locator.record_id, lock)
    elif locator.client_id:
        task = _by_client_id(campaign, locator.client_id, lock)
    else:
        raise InvalidInput("previewRecordId or clientId is required")
    if task is None:
        raise TaskNotFound(f"no task with {locator.describe()} in campaign '{campaign.name}'")
    return task


def check_version(task: Task, expected: int | None) -> None:
    """Refuse a change prepared from an older copy of the task (None: no check)."""
    if expected is not None and task.version != expected:
        raise StaleTask(
            f"task '{task.client_id}' was changed by someone else (version {task.version}, "
            f"you edited version {expected}); nothing was saved"
        )


def find_tenant_task(tenant_id: int, record_id: str) -> Task | None:
    """A task of the tenant by its previewRecordID, whichever campaign holds it now."""
    return db.session.scalar(
        select(Task)
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(Campaign.tenant_id == tenant_id, Task.record_id == record_id)
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

    `expected_version`, when given, refuses to update a task changed since it was read.
    """
    client_id = check_client_id(client_id)
    task = _by_record_id(campaign, record_id, lock=True) if record_id else None
    task = task or _by_client_id(campaign, client_id, lock=True)
    if task is not None:
        check_version(task, expected_version)
    campaign_key = campaign.client_id_field_name
    plan = plan_task(
        campaign.tenant,
        client_id,
        items,
        client_id_key(client_id_field_name, task and task.client_id_field, campaign_key),
        preferred_agent=preferred_agent,
        next_earliest_ms=next_earliest_ms,
    )
    now = utcnow()
    created = task is None
    if created:
        task = _insert(campaign, plan, now)
        if task is None:  # another request added this clientId first: update theirs
            created = False
            task = _by_client_id(campaign, client_id, lock=True)
            plan = keyed(
                plan, client_id_key(client_id_field_name, task.client_id_field, campaign_key)
            )
    stored = None if created else task_data(task)
    before = None if stored is None else snapshot(stored)
    if not created:
        _rename(task, client_id)
        values = update_values(plan, _queue_id(plan), now)
        _apply(task, values)
        if "hold_until" in values:  # from the stored time and agent, not only the plan's
            restart_hold(task, now)
        touch(task, now)
    _replace_items(task, plan.items)
    # After: the items just written and the work codes as they were, not read back.
    after = snapshot(TaskData(task, plan.items, stored.work_codes if stored else ()))
    trace_change(actor, "task.added" if created else "task.updated", task, before, after)
    return task, created


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
    if client_id and _by_client_id(campaign, client_id) is not None:
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


def _insert(campaign: Campaign, plan: TaskPlan, now) -> Task | None:
    """Insert a new task in a savepoint; None when the clientId was taken meanwhile."""
    values = new_task_values(plan, _queue_id(plan), Defaults.of(campaign))
    queue = db.session.get(SkillQueue, values.pop("skill_queue_id"))
    task = Task(campaign=campaign, skill_queue=queue, created_at=now, updated_at=now, **values)
    try:
        with db.session.begin_nested():
            db.session.add(task)
    except IntegrityError:
        return None
    return task


def _rename(task: Task, client_id: str) -> None:
    """An update located by previewRecordId may give the task a new, still unique clientId."""
    if task.client_id == client_id:
        return
    message = f"clientId '{client_id}' already belongs to another task of the campaign"
    if _by_client_id(task.campaign, client_id) is not None:
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
    tenant = task.campaign.tenant
    queue = changes.skill_queue and get_skill_queue(tenant, changes.skill_queue, "skillQueue")
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
        if _by_client_id(destination, task.client_id) is not None:
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
