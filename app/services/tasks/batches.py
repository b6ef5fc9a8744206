"""Changes of loaded, locked tasks: one (a change through the API or a page,
app/services/tasks/changes.py) or a bulk job's batch (app/services/bulk/actions.py), the
same code for both. The optional system fields a change carries (`TaskChanges`) are checked
once (`check_changes`) and applied to any number of tasks; each task leaves its audit record
and its event in the caller's session, which the caller commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from app.extensions import db
from app.models import Campaign, EndedHow, SkillQueue, Task, TaskItem, Tenant, WorkedState
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.calls.ledger import end_attempts, keep_deleted_tasks
from app.services.campaigns.catalogue import find_campaign
from app.services.campaigns.life_cycle import check_takes_tasks
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import TASK_CAMPAIGN, TASK_SKILL_QUEUE, TASK_STATE, TASK_TIME_ZONE
from app.services.tasks.saving import flush_or_conflict, restart_hold
from app.services.tasks.snapshots import task_snapshots
from app.services.tasks.tracing import trace_changes
from app.services.tasks.validation import CLIENT_ID, NEXT_EARLIEST, check_agent
from app.services.tasks.writes import touch
from app.services.tenants.setup import get_skill_queue
from app.services.values import SentTime, checked_time, require_time_zone

# The fields as this module's messages name them (the spec's names).
SKILL_QUEUE = TASK_SKILL_QUEUE.said_as("skillQueue")
TIME_ZONE = TASK_TIME_ZONE.said_as("timeZone")
STATE = TASK_STATE.said_as("previewRecordStateEnum")
CAMPAIGN = TASK_CAMPAIGN.said_as("transferToCampaign")


@dataclass(frozen=True)
class TaskChanges:
    """Optional system fields; None leaves a field as it is, "" clears the preferred agent."""

    skill_queue: str | None = None
    preferred_agent: str | None = None
    next_earliest: SentTime | None = None
    time_zone: str | None = None


def _sync_items(tasks: list[Task], key: str, value: str) -> None:
    """Keep a SkillQueue or ItemTimeZone data item in step with the field it sets."""
    ids = [task.id for task in tasks]
    db.session.execute(
        update(TaskItem).where(TaskItem.task_id.in_(ids), TaskItem.key == key).values(value=value)
    )
    for task in tasks:
        db.session.expire(task, ["items"])


@dataclass(frozen=True)
class CheckedChanges:
    """TaskChanges checked once, ready for any number of tasks: the queue as an object,
    the next earliest time as a datetime."""

    skill_queue: SkillQueue | None = None
    time_zone: str | None = None
    preferred_agent: str | None = None
    next_work: datetime | None = None

    @property
    def syncs_items(self) -> bool:
        """Whether applying these changes rewrites data items (SkillQueue, ItemTimeZone)."""
        return self.skill_queue is not None or self.time_zone is not None


def check_changes(tenant: Tenant, changes: TaskChanges) -> CheckedChanges:
    """The changes checked (queue, zone, agent, time), or the ServiceError naming the field."""
    queue = changes.skill_queue and get_skill_queue(tenant, changes.skill_queue, SKILL_QUEUE)
    if changes.time_zone is not None:
        require_time_zone(changes.time_zone, TIME_ZONE)
    check_agent(changes.preferred_agent)
    next_work = None
    if changes.next_earliest is not None:
        next_work = checked_time(changes.next_earliest, NEXT_EARLIEST)
    return CheckedChanges(queue or None, changes.time_zone, changes.preferred_agent, next_work)


def apply_checked(tasks: list[Task], changes: CheckedChanges, now: datetime) -> None:
    """Apply the optional system fields of a status change or transfer to loaded tasks."""
    for task in tasks:
        if changes.skill_queue:
            task.skill_queue = changes.skill_queue
        if changes.time_zone is not None:
            task.time_zone, task.zones = changes.time_zone, ""  # an ItemTimeZone now
        if changes.preferred_agent is not None:
            task.preferred_agent = changes.preferred_agent or None
        if changes.next_work is not None:
            task.next_earliest_work_at = changes.next_work
        if changes.preferred_agent is not None or changes.next_work is not None:
            restart_hold(task, now)
        touch(task, now)
    if changes.skill_queue:
        _sync_items(tasks, "SkillQueue", changes.skill_queue.name)
    if changes.time_zone is not None:
        _sync_items(tasks, "ItemTimeZone", changes.time_zone)


def end_reservation(task: Task) -> None:
    """A task changed elsewhere (status, transfer) is no longer the agent's: the desk
    answers NOT_FOUND on the agent's next action on it."""
    task.reserved_by_id, task.reserved_at = None, None


def check_status(state: str, changes: TaskChanges) -> None:
    """Refuse a worked state that does not exist, or WORKED without a next earliest time."""
    if state not in set(WorkedState):
        raise InvalidInput(
            f"{STATE} '{state}' is not one of {', '.join(WorkedState)}",
            field=STATE,
        )
    if state == WorkedState.WORKED and changes.next_earliest is None:
        raise InvalidInput(
            f"{NEXT_EARLIEST} is required when the new state is WORKED",
            field=NEXT_EARLIEST,
        )


def set_statuses(
    tasks: list[Task],
    state: str,
    changes: CheckedChanges,
    *,
    actor: Actor,
    now: datetime | None = None,
    **extra: Any,
) -> None:
    """A status change of loaded, locked tasks (one, or a bulk job's batch): each gets
    its new state and fields, loses its reservation and any close reason, and leaves its
    audit record and event. `check_status` has passed on the state."""
    now = now or utcnow()
    before = task_snapshots(tasks)
    apply_checked(tasks, changes, now)
    end_attempts(tasks, EndedHow.CHANGED_ELSEWHERE, now)
    for task in tasks:
        task.worked_state = state
        task.close_reason = None  # a reason the service closed it no longer holds
        end_reservation(task)
    after = task_snapshots(tasks, before if not changes.syncs_items else None)
    trace_changes(actor, "task.status_changed", tasks, before, after, **extra)


def transfer_destination(tenant: Tenant, name: str) -> Campaign:
    """The campaign a transfer names, or NotFound."""
    destination = find_campaign(tenant, name)
    if destination is None:
        raise NotFound(
            f"{CAMPAIGN} '{name}' is not a campaign of this environment",
            field=CAMPAIGN,
        )
    return destination


def transfer_tasks(
    tasks: list[Task],
    campaign: Campaign,
    destination: Campaign,
    changes: CheckedChanges,
    *,
    actor: Actor,
    now: datetime | None = None,
    **extra: Any,
) -> None:
    """A transfer of loaded, locked tasks of `campaign` (one, or a bulk job's batch).

    A clientId the destination already holds refuses the whole call (Conflict); a bulk
    job then moves the batch's tasks one at a time to report the refused ones.
    """
    now = now or utcnow()
    before = task_snapshots(tasks)
    moving = destination.id != campaign.id
    if moving:
        check_takes_tasks(destination, CAMPAIGN)
        _check_free(destination, [task.client_id for task in tasks])
        for task in tasks:
            task.campaign = destination
        clash = f"a clientId of these tasks already exists in campaign '{destination.name}'"
        if len(tasks) == 1:
            clash = (
                f"clientId '{tasks[0].client_id}' already exists in campaign '{destination.name}'"
            )
        flush_or_conflict(clash)
        ids = [task.id for task in tasks]
        db.session.execute(
            update(TaskItem).where(TaskItem.task_id.in_(ids)).values(campaign_id=destination.id)
        )
        if changes.skill_queue is None:
            default = destination.default_skill_queue
            for task in tasks:
                task.skill_queue = default
            _sync_items(tasks, "SkillQueue", default.name)
    apply_checked(tasks, changes, now)
    end_attempts(tasks, EndedHow.CHANGED_ELSEWHERE, now)
    for task in tasks:
        end_reservation(task)
    synced = moving or changes.syncs_items
    after = task_snapshots(tasks, None if synced else before)
    where = {"fromCampaign": campaign.name, "toCampaign": destination.name, **extra}
    trace_changes(actor, "task.transferred", tasks, before, after, **where)


def _check_free(destination: Campaign, client_ids: list[str]) -> None:
    taken = db.session.scalars(
        select(Task.client_id).where(
            Task.campaign_id == destination.id, Task.client_id.in_(client_ids)
        )
    ).first()
    if taken is not None:
        raise Conflict(
            f"{CLIENT_ID} '{taken}' already exists in campaign '{destination.name}'",
            field=CLIENT_ID,
        )


def set_preferred_agents(
    tasks: list[Task],
    changes: CheckedChanges,
    *,
    actor: Actor,
    now: datetime | None = None,
    **extra: Any,
) -> None:
    """A preferred agent set or cleared on loaded, locked tasks (one, or a batch): an
    update of the task (`task.updated`), like an update that names one; a delivered
    task stays with its agent, as it does through any update."""
    before = task_snapshots(tasks)
    apply_checked(tasks, changes, now or utcnow())
    trace_changes(actor, "task.updated", tasks, before, task_snapshots(tasks, before), **extra)


def delete_tasks(tasks: list[Task], *, actor: Actor, **extra: Any) -> None:
    """Delete loaded, locked tasks (one, or a batch) with their data, each with its audit
    record and event; their previewRecordIDs are never given out again."""
    before = task_snapshots(tasks)
    end_attempts(tasks, EndedHow.CHANGED_ELSEWHERE, utcnow())
    keep_deleted_tasks(tasks)
    trace_changes(actor, "task.deleted", tasks, before, [None] * len(tasks), **extra)
    for task in tasks:
        db.session.delete(task)
