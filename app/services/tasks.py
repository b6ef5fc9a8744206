"""The life of a task: add or update, change status, transfer, delete.

Functions here change the session but never commit: the caller (one API request, one
form post, one CLI command) commits once when the whole action succeeded and rolls back
on any ServiceError, so a failure leaves stored data exactly as it was. Each change
adds its audit record and its event (`trace_change`) to the same session, so they are
committed or rolled back with it. How an add or update is checked and written is
app/services/task_saving.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import update

from app.extensions import db
from app.models import Campaign, Task, TaskItem, WorkedState
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaign_status import ARCHIVED, check_takes_tasks
from app.services.campaigns import find_campaign
from app.services.errors import Conflict, InvalidInput, NotFound, StaleTask
from app.services.rules import from_epoch_ms, require_time_zone
from app.services.task_lookups import (  # noqa: F401 - the lookups are the tasks' API too
    Locator,
    by_client_id,
    by_record_id,
    campaign_named,
    campaign_ref,
    find_task,
    find_task_record,
    find_tenant_task,
)
from app.services.task_saving import (
    add_planned,
    flush_or_conflict,
    plan_add_or_update,
    restart_hold,
    update_planned,
)
from app.services.task_trail import trace_change
from app.services.task_wire import task_snapshot
from app.services.task_writes import client_id_key, keyed, touch
from app.services.tenants import get_skill_queue
from app.services.validation import ItemInput, check_agent


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
    plan = plan_add_or_update(
        campaign, client_id, items, record_id, client_id_field_name, **options
    )
    new_key = client_id_field_name or campaign.client_id_field_name
    now = utcnow()
    task = by_record_id(campaign, record_id, lock=True) if record_id else None
    if task is None and plan.field_name != new_key:  # checked under a stored task's key
        task = by_client_id(campaign, plan.client_id, lock=True)
        plan = plan if task else keyed(plan, new_key)  # that task is gone: an add after all
    if task is None and campaign.status == ARCHIVED:  # no add: only its own tasks change
        task = by_client_id(campaign, plan.client_id, lock=True)
        if task is None:
            check_takes_tasks(campaign)
    if task is None:
        added = add_planned(campaign, plan, now, actor)
        if added is not None:
            return added, True
        task = by_client_id(campaign, plan.client_id, lock=True)
    check_version(task, expected_version)
    key = client_id_key(client_id_field_name, task.client_id_field, campaign.client_id_field_name)
    update_planned(task, keyed(plan, key), now, actor)
    return task, False


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
    if destination.id != campaign.id:
        check_takes_tasks(destination, "transferToCampaign")
    task = find_task(campaign, locator, lock=True)
    check_version(task, expected_version)
    before = task_snapshot(task)
    if destination.id != campaign.id:
        if by_client_id(destination, task.client_id) is not None:
            raise Conflict(
                f"clientId '{task.client_id}' already exists in campaign '{destination.name}'"
            )
        task.campaign = destination
        flush_or_conflict(
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
