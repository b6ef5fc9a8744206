"""The life of a task: add or update, change status, transfer, delete, one task at a time
(the changes of many at once, which these make too, are app/services/tasks/batches.py).

Functions here change the session but never commit: the caller (one API request, one
form post, one CLI command) commits once when the whole action succeeded and rolls back
on any ServiceError, so a failure leaves stored data exactly as it was. Each change
adds its audit record and its event (`trace_change`) to the same session, so they are
committed or rolled back with it. How an add or update is checked and written is
app/services/tasks/saving.py.
"""

from __future__ import annotations

from typing import Any

from app.models import Campaign, Task
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns.life_cycle import ARCHIVED, check_takes_tasks
from app.services.errors import Conflict, StaleTask
from app.services.tasks.batches import (
    TaskChanges,
    check_changes,
    check_status,
    delete_tasks,
    set_statuses,
    transfer_destination,
    transfer_tasks,
)
from app.services.tasks.lookups import (  # noqa: F401 - the lookups are the tasks' API too
    CampaignRow,
    Locator,
    by_client_id,
    by_record_id,
    campaign_model,
    campaign_named,
    campaign_ref,
    campaign_row,
    find_task,
    find_task_snapshot,
    find_tenant_task,
)
from app.services.tasks.saving import (
    add_planned,
    plan_add_or_update,
    stored_model,
    update_planned,
)
from app.services.tasks.shown import Expected, Shown, still_as_shown
from app.services.tasks.validation import ItemInput
from app.services.tasks.writes import client_id_key, keyed
from app.services.values import SentTime


def check_version(task: Task, expected: Expected) -> None:
    """Refuse a change prepared from an older copy of the task (None: no check): an older
    version, or (a form's `Shown`) one whose fields that form edits changed since."""
    if not still_as_shown(task, expected):
        shown = expected.version if isinstance(expected, Shown) else expected
        raise StaleTask(
            f"task '{task.client_id}' was changed by someone else (version {task.version}, "
            f"you edited version {shown}); nothing was saved"
        )


def add_or_update_task(
    campaign: Campaign,
    client_id: str | None,
    items: list[ItemInput] | None,
    *,
    record_id: str | None = None,
    client_id_field_name: str | None = None,
    preferred_agent: str | None = None,
    next_earliest: SentTime | None = None,
    expected_version: Expected = None,
    actor: Actor,
) -> tuple[Task, bool]:
    """Add a task or replace an existing one's data; returns the task and whether it is new.

    The request is checked before the write lock is taken. Under it, a new clientId is
    added by one INSERT that yields to the task holding it (which is then updated).
    `expected_version`, when given, refuses to update a task changed since it was read.
    """
    options = {
        "record_id": record_id,
        "client_id_field_name": client_id_field_name,
        "preferred_agent": preferred_agent,
        "next_earliest": next_earliest,
        "expected_version": expected_version,
    }
    task, added = _add_or_update(campaign, client_id, items, actor, **options)
    if isinstance(task, Task):
        return task, False
    return stored_model(campaign, added), True


def add_or_update_record(
    campaign: CampaignRow,
    client_id: str | None,
    items: list[ItemInput] | None,
    *,
    record_id: str | None = None,
    client_id_field_name: str | None = None,
    preferred_agent: str | None = None,
    next_earliest: SentTime | None = None,
    actor: Actor,
) -> bool:
    """`add_or_update_task` for a door that needs no model back (the API), its campaign
    read as a plain row (`campaign_row`): a new task is written without the ORM. Whether
    the task is new."""
    options = {
        "record_id": record_id,
        "client_id_field_name": client_id_field_name,
        "preferred_agent": preferred_agent,
        "next_earliest": next_earliest,
    }
    task, _ = _add_or_update(campaign, client_id, items, actor, **options)
    return task is None


def _add_or_update(
    campaign: Campaign | CampaignRow,
    client_id: str | None,
    items: list[ItemInput] | None,
    actor: Actor,
    *,
    record_id: str | None,
    client_id_field_name: str | None,
    preferred_agent: str | None,
    next_earliest: SentTime | None,
    expected_version: Expected = None,
) -> tuple[Task | None, dict[str, Any]]:
    """The task updated (and no columns), or None and the columns of the task added."""
    options = {"preferred_agent": preferred_agent, "next_earliest": next_earliest}
    plan = plan_add_or_update(
        campaign, client_id, items, record_id, client_id_field_name, **options
    )
    new_key = client_id_field_name or campaign.client_id_field_name
    task = by_record_id(campaign, record_id, lock=True) if record_id else None
    if task is None and plan.field_name != new_key:  # checked under a stored task's key
        task = by_client_id(campaign, plan.client_id, lock=True)
        plan = plan if task else keyed(plan, new_key)  # that task is gone: an add after all
    if task is None and campaign.status == ARCHIVED:  # no add: only its own tasks change
        task = by_client_id(campaign, plan.client_id, lock=True)
        if task is None:
            check_takes_tasks(campaign)
    now = utcnow()  # once the task is locked: an update ends its attempt after any wait
    if task is None:
        added = add_planned(campaign, plan, now, actor)
        if added is not None:
            return None, added
        task = by_client_id(campaign, plan.client_id, lock=True)
    if isinstance(campaign, CampaignRow):
        campaign = campaign_model(campaign)  # the task's, which its update reads
    check_version(task, expected_version)
    key = client_id_key(client_id_field_name, task.client_id_field, campaign.client_id_field_name)
    update_planned(task, keyed(plan, key), now, actor)
    return task, {}


def add_task(
    campaign: Campaign,
    client_id: str | None,
    items: list[ItemInput],
    *,
    preferred_agent: str | None = None,
    next_earliest: SentTime | None = None,
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
        next_earliest=next_earliest,
        actor=actor,
    )
    return task


def change_status(
    campaign: Campaign,
    locator: Locator,
    state: str,
    changes: TaskChanges,
    *,
    expected_version: Expected = None,
    actor: Actor,
) -> Task:
    """Set the worked state of one task, with its optional system fields."""
    check_status(state, changes)
    task = find_task(campaign, locator, lock=True)
    check_version(task, expected_version)
    set_statuses([task], state, check_changes(campaign.tenant, changes), actor=actor)
    return task


def transfer_task(
    campaign: Campaign,
    locator: Locator,
    destination_name: str,
    changes: TaskChanges,
    *,
    expected_version: Expected = None,
    actor: Actor,
) -> Task:
    """Move a task to another campaign (or queue), keeping its id, data and state.

    Without a skillQueue, a task that changes campaign takes the destination's default
    queue; its time zone stays unless timeZone is given.
    """
    destination = transfer_destination(campaign.tenant, destination_name)
    task = find_task(campaign, locator, lock=True)
    check_version(task, expected_version)
    checked = check_changes(campaign.tenant, changes)
    transfer_tasks([task], campaign, destination, checked, actor=actor)
    return task


def delete_task(
    campaign: Campaign, locator: Locator, *, expected_version: Expected = None, actor: Actor
) -> None:
    """Remove a task and its data for good; its previewRecordID is never given out again."""
    task = find_task(campaign, locator, lock=True)
    check_version(task, expected_version)
    delete_tasks([task], actor=actor)
