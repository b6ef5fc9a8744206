"""A task's snapshot: the values its audit records, its events and the doors show of it.

The search answer (`previewRecordClientData`), the data of every task event and the fields an
audit record keeps before and after a change are the same shape (app/wire/tasks.py); this
module takes the snapshots that shape is made from (app/services/snapshots.py), from ORM
tasks or from plain rows, so a receiver of events and a reader of the trail see what search
shows and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Integer, bindparam, literal_column, null, select, union_all

from app.db.plain_reads import PlainRead
from app.extensions import db
from app.models import SkillQueue, Task, TaskItem, WorkCode
from app.services.snapshots import TaskSnapshot, task_snapshot_of
from app.services.tasks.data import DATA_CHUNK, TaskData, data_rows, with_data

# The columns a task's snapshot is made of: a stored task read as plain rows has them all.
SNAPSHOT_COLUMNS = (
    Task.id,
    Task.record_id,
    Task.client_id,
    Task.preferred_agent,
    Task.skill_queue_id,
    Task.created_at,
    Task.updated_at,
    Task.next_earliest_work_at,
    Task.worked_state,
    Task.work_attempts,
    Task.last_attempt_agent,
    Task.last_attempt_at,
)
_TASKS = Task.__table__
_SNAPSHOT_TABLE_COLUMNS = tuple(_TASKS.c[column.key] for column in SNAPSHOT_COLUMNS)
_QUEUES, _ITEMS, _CODES = SkillQueue.__table__, TaskItem.__table__, WorkCode.__table__
# One task as search shows it, in two reads built once and run on the driver: its columns
# with its queue's name, then its items and work codes.
_ONE_TASK = {
    by: PlainRead(
        select(*_SNAPSHOT_TABLE_COLUMNS, _QUEUES.c.name.label("queue_name"))
        .join(_QUEUES, _QUEUES.c.id == _TASKS.c.skill_queue_id)
        .where(_TASKS.c.campaign_id == bindparam("campaign_id"), _TASKS.c[by] == bindparam("value"))
    )
    for by in ("record_id", "client_id")
}
# Its items and its work codes in one read: the items (kind 0), then the codes (kind 1),
# each in stored order.
_ITEMS_AND_CODES_OF = PlainRead(
    union_all(
        select(
            literal_column("0", Integer).label("kind"),
            _ITEMS.c.position,
            _ITEMS.c.key,
            _ITEMS.c.value,
            _ITEMS.c.display_order,
        ).where(_ITEMS.c.task_id == bindparam("task_id")),
        select(
            literal_column("1", Integer), _CODES.c.position, _CODES.c.key, _CODES.c.value, null()
        ).where(_CODES.c.task_id == bindparam("task_id")),
    ).order_by("kind", "position")
)


def task_data(task: Task) -> TaskData:
    """The task with its items and work codes as stored now (the session flushed)."""
    db.session.flush()
    return with_data([task])[0]


def snapshot(data: TaskData) -> TaskSnapshot:
    """A task with its data as it stands: what the trail and its event show."""
    task = data.task
    return task_snapshot_of(
        task, task.skill_queue.name, data.items, data.work_codes, task.campaign.name
    )


def task_snapshot(task: Task) -> TaskSnapshot:
    """The task as stored now (the session flushed)."""
    return snapshot(task_data(task))


def task_snapshots(
    tasks: list[Task], same_data_as: Sequence[TaskSnapshot] | None = None
) -> list[TaskSnapshot]:
    """Many tasks as `task_snapshot` takes each, their data read in a few queries.

    `same_data_as`: snapshots of the same tasks taken before a change that left their data
    items and work codes as they were; those are kept rather than read again.
    """
    if same_data_as is None:
        db.session.flush()
        return [snapshot(data) for data in with_data(tasks)]
    return [
        task_snapshot_of(
            task, task.skill_queue.name, earlier.items, earlier.work_codes, task.campaign.name
        )
        for task, earlier in zip(tasks, same_data_as, strict=True)
    ]


def stored_snapshot(campaign: str, campaign_id: int, by: str, value: str) -> TaskSnapshot | None:
    """One task of the campaign (named `campaign`) as stored, found by its `record_id` or
    `client_id`, read as plain rows; None when there is none."""
    task = _ONE_TASK[by].first(db.session, campaign_id=campaign_id, value=value)
    if task is None:
        return None
    rows = _ITEMS_AND_CODES_OF.all(db.session, task_id=task.id)
    items = [row for row in rows if row.kind == 0]
    codes = [row for row in rows if row.kind == 1]
    return task_snapshot_of(task, task.queue_name, items, codes, campaign)


def queue_names(tenant_id: int) -> dict[int, str]:
    """The names of the tenant's skill queues by id (a bulk write's lookup)."""
    rows = db.session.execute(select(SkillQueue.id, SkillQueue.name).filter_by(tenant_id=tenant_id))
    return {queue_id: name for queue_id, name in rows}


def stored_tasks(task_ids: list[int]) -> list[TaskData]:
    """Many stored tasks with their data, each task a plain row of SNAPSHOT_COLUMNS.

    Plain rows of the tables, in a few queries per thousand tasks: a bulk write reads the
    tasks it updates without the cost of ORM objects.
    """
    found = []
    for start in range(0, len(task_ids), DATA_CHUNK):
        chunk = task_ids[start : start + DATA_CHUNK]
        items, codes = data_rows(chunk)
        tasks = db.session.execute(select(*_SNAPSHOT_TABLE_COLUMNS).where(_TASKS.c.id.in_(chunk)))
        found += [TaskData(task, items.get(task.id, ()), codes.get(task.id, ())) for task in tasks]
    return found
