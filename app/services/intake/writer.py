"""Writing validated plans in bulk: a few set-based statements per batch of rows.

The effect on each task is exactly that of `tasks.add_or_update_task`: a new clientId is
added with a fresh previewRecordID, an existing one has all its data replaced, and the
optional fields change only when the row sets them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Boolean, bindparam, case, delete, func, select, update

from app.extensions import db
from app.models import Campaign, SkillQueue, Task, TaskItem, WorkedState
from app.models.types import UTCDateTime, utcnow
from app.services.tasks import ITEM_COLUMNS, item_rows, new_record_id
from app.services.validation import TaskPlan
from app.storage import bulk_insert


@dataclass(frozen=True)
class Planned:
    """A row's plan, and the queue its skillQueue column asks for."""

    plan: TaskPlan
    queue: SkillQueue | None

    @property
    def queue_id(self) -> int | None:
        queue = self.queue or self.plan.skill_queue
        return queue.id if queue else None


def existing_ids(campaign: Campaign, client_ids: list[str], lock: bool = False) -> dict[str, int]:
    """The ids of the campaign's tasks with these clientIds; `lock` them for writing."""
    query = select(Task.client_id, Task.id).where(
        Task.campaign_id == campaign.id, Task.client_id.in_(client_ids)
    )
    rows = db.session.execute(query.with_for_update(of=Task) if lock else query)
    return dict(rows.all())


TASKS, ITEMS = Task.__table__, TaskItem.__table__
_UPDATE = (
    update(TASKS)
    .where(TASKS.c.id == bindparam("task_id"))
    .values(
        client_id_field=bindparam("field"),
        updated_at=bindparam("now", type_=UTCDateTime()),
        skill_queue_id=func.coalesce(bindparam("queue_id"), TASKS.c.skill_queue_id),
        time_zone=func.coalesce(bindparam("zone"), TASKS.c.time_zone),
        next_earliest_work_at=func.coalesce(
            bindparam("next_work", type_=UTCDateTime()), TASKS.c.next_earliest_work_at
        ),
        preferred_agent=case(
            (bindparam("agent_set", type_=Boolean()), func.nullif(bindparam("agent"), "")),
            else_=TASKS.c.preferred_agent,
        ),
    )
)


def write_batch(campaign: Campaign, batch: list[Planned]) -> set[str]:
    """Add or update every plan of the batch (the last plan wins per clientId); returns the
    clientIds that were new to the campaign."""
    latest = {one.plan.client_id: one for one in batch}
    existing = existing_ids(campaign, list(latest), lock=True)
    now = utcnow()
    new = [one for cid, one in latest.items() if cid not in existing]
    updates = [one for cid, one in latest.items() if cid in existing]
    if new:
        when = _time_processor()
        stamp = when(now)
        defaults = (campaign.id, campaign.default_skill_queue_id, campaign.default_time_zone)
        bulk_insert(
            db.session, TASKS, TASK_COLUMNS, [_new_row(defaults, one, stamp, when) for one in new]
        )
        existing.update(existing_ids(campaign, [one.plan.client_id for one in new]))
    if updates:
        db.session.execute(
            _UPDATE, [_update_row(existing[one.plan.client_id], one, now) for one in updates]
        )
        updated_ids = [existing[one.plan.client_id] for one in updates]
        db.session.execute(delete(ITEMS).where(ITEMS.c.task_id.in_(updated_ids)))
    campaign_id = campaign.id  # read once: an ORM attribute costs a call per access
    items = [
        row
        for cid, one in latest.items()
        for row in item_rows(existing[cid], campaign_id, one.plan.items)
    ]
    bulk_insert(db.session, ITEMS, ITEM_COLUMNS, items)
    return {one.plan.client_id for one in new}


TASK_COLUMNS = (
    "record_id", "campaign_id", "client_id", "client_id_field", "preferred_agent",
    "skill_queue_id", "time_zone", "worked_state", "work_attempts", "next_earliest_work_at",
    "created_at", "updated_at",
)  # fmt: skip


def _time_processor():
    """How this database's driver is handed a UTC time (a string on SQLite)."""
    dialect = db.session.connection().dialect
    column_type = TASKS.c.created_at.type.dialect_impl(dialect)
    return column_type.bind_processor(dialect) or (lambda value: value)


def _new_row(defaults: tuple[int, int, str], one: Planned, stamp, when) -> tuple:
    campaign_id, default_queue_id, default_zone = defaults
    plan = one.plan
    return (
        new_record_id(),
        campaign_id,
        plan.client_id,
        plan.field_name,
        plan.preferred_agent or None,
        one.queue_id or default_queue_id,
        plan.time_zone or default_zone,
        WorkedState.NOTWORKED.value,
        0,
        when(plan.next_work) if plan.next_work else None,
        stamp,
        stamp,
    )


def _update_row(task_id: int, one: Planned, now) -> dict:
    plan = one.plan
    return {
        "task_id": task_id,
        "field": plan.field_name,
        "now": now,
        "queue_id": one.queue_id,
        "zone": plan.time_zone,
        "next_work": plan.next_work,
        "agent_set": plan.preferred_agent is not None,
        "agent": plan.preferred_agent or "",
    }
