"""Writing validated plans in bulk: a few set-based statements per batch of rows.

The effect on each task is exactly that of `tasks.add_or_update_task`, because both take
what to write from `tasks/writes.py`: a new clientId is added with a fresh previewRecordID, an
existing one has all its data replaced (its clientId kept under the key the task was added
with), and the optional fields change only when the row sets them. Here those values only
become rows: one INSERT for the new tasks, one UPDATE per set of changed columns.

Each task a batch adds or updates gets its audit record and its event, written with the
batch (one INSERT of records and one of events, in the batch's transaction). The fields
before are read in one query per batch; the fields after are what the batch writes, as
snapshots the trail writes in the same record the API answers with (app/wire/tasks.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Any, NamedTuple

from sqlalchemy import bindparam, delete, select, text, update

from app.db.bulk_inserts import bulk_insert, driver_value
from app.db.plain_reads import session_connection
from app.extensions import db
from app.models import Campaign, SkillQueue, Task, TaskItem
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit import trail as history
from app.services.errors import ServiceError
from app.services.intake.columns import columns_named
from app.services.intake.load_trail import BatchTrail
from app.services.tasks.validation import TaskPlan
from app.services.tasks.writes import (
    ITEM_COLUMNS,
    Defaults,
    client_id_key,
    item_rows,
    keyed,
    new_task_values,
    touched_in_sql,
    update_values,
)


@dataclass(frozen=True)
class Planned:
    """A row's plan, and the queue its skillQueue column asks for."""

    plan: TaskPlan
    queue: SkillQueue | None
    normalised: int = 0  # its numbers read in the campaign's default country

    @property
    def queue_id(self) -> int | None:
        queue = self.queue or self.plan.skill_queue
        return queue.id if queue else None


class Existing(NamedTuple):
    """What an update needs to know of a stored task (a named tuple: one per row)."""

    id: int
    client_id_field: str


def existing_tasks(
    campaign: Campaign, client_ids: list[str], lock: bool = False
) -> dict[str, Existing]:
    """The campaign's tasks with these clientIds, by clientId; `lock` them for writing."""
    query = select(Task.client_id, Task.id, Task.client_id_field).where(
        Task.campaign_id == campaign.id, Task.client_id.in_(client_ids)
    )
    rows = db.session.execute(query.with_for_update(of=Task) if lock else query)
    return {client_id: Existing(id_, field) for client_id, id_, field in rows}


def as_update(plan: TaskPlan, task: Existing, campaign_key: str) -> TaskPlan:
    """The row's plan as an update of the stored task: the clientId under the task's key.

    A file asks for no clientId key of its own (its first column is always named as the
    campaign's), so the task keeps the key it was added with; InvalidDataKey when the row
    has a data column of that name.
    """
    key = client_id_key(None, task.client_id_field, campaign_key)
    try:
        return keyed(plan, key)
    except ServiceError as error:
        error.message = columns_named(error, plan.items[1:])
        raise


@dataclass(frozen=True)
class Written:
    """What a batch did: the clientIds new to the campaign, and the rows refused on writing."""

    new: set[str]
    refused: dict[str, ServiceError]


TASKS, ITEMS = Task.__table__, TaskItem.__table__


class FreshStatistics:
    """On PostgreSQL, ANALYZE the task tables whenever a load has grown them by as many
    tasks as the planner last counted (and at least MIN_GROWTH): each batch looks its
    clientIds up, and a plan made for a near-empty table (autovacuum off, or not yet
    round) turns every lookup into a scan. Elsewhere it does nothing."""

    MIN_GROWTH = 1000

    def __init__(self) -> None:
        self.on = db.session.get_bind().dialect.name == "postgresql"
        self.counted = self._counted() if self.on else 0
        self.added_then = 0  # the load's added count at the last ANALYZE

    def _counted(self) -> int:
        query = text("SELECT reltuples FROM pg_class WHERE oid = CAST(:name AS regclass)")
        return max(int(db.session.scalar(query, {"name": TASKS.name}) or 0), 0)  # -1: never

    def after_commit(self, added: int) -> None:
        """After a batch's commit, with the load's count of added tasks so far."""
        grown = added - self.added_then
        if self.on and grown >= max(self.counted, self.MIN_GROWTH):
            db.session.execute(text(f"ANALYZE {TASKS.name}, {ITEMS.name}"))
            db.session.commit()
            self.counted, self.added_then = self.counted + grown, added


def write_batch(campaign: Campaign, batch: list[Planned], *, actor: Actor) -> Written:
    """Add or update every plan of the batch (the last plan wins per clientId), with an
    audit record and an event per task, as `actor` (the load)."""
    latest = {one.plan.client_id: one for one in batch}
    existing = existing_tasks(campaign, list(latest), lock=True)
    now = utcnow()
    new = [one for cid, one in latest.items() if cid not in existing]
    updates, refused = as_updates(campaign, latest, existing)
    trail = BatchTrail(campaign, now)
    trail.updating(updates)
    ids = {cid: task.id for cid, task in existing.items()}
    plans = {one.plan.client_id: one.plan for one in new}
    if new:
        trail.adding(_insert(campaign, new, now))
        ids.update((cid, task.id) for cid, task in existing_tasks(campaign, list(plans)).items())
    if updates:
        _update(updates, now, Defaults.of(campaign))
        db.session.execute(delete(ITEMS).where(ITEMS.c.task_id.in_([t.id for t, _, _ in updates])))
        plans.update((plan.client_id, plan) for _, plan, _ in updates)
    campaign_id = campaign.id  # read once: an ORM attribute costs a call per access
    items = [
        row for cid, plan in plans.items() for row in item_rows(ids[cid], campaign_id, plan.items)
    ]
    _bulk_insert(ITEMS, ITEM_COLUMNS, items)
    history.record_all(actor, trail.changes, now)
    return Written({one.plan.client_id for one in new}, refused)


Update = tuple[Existing, TaskPlan, Planned]


def as_updates(
    campaign: Campaign, latest: dict[str, Planned], existing: dict[str, Existing]
) -> tuple[list[Update], dict[str, ServiceError]]:
    """The plans of stored tasks as updates of them, and the rows that cannot be."""
    campaign_key = campaign.client_id_field_name
    updates, refused = [], {}
    for cid, task in existing.items():
        one = latest[cid]
        try:
            updates.append((task, as_update(one.plan, task, campaign_key), one))
        except ServiceError as error:
            refused[cid] = error
    return updates, refused


TASK_COLUMNS = (
    "campaign_id", "record_id", "client_id", "client_id_field", "preferred_agent",
    "skill_queue_id", "time_zone", "zones", "regions", "worked_state", "work_attempts",
    "next_earliest_work_at",
    "hold_until", "version", "created_at", "updated_at",
)  # fmt: skip
_values_in_order = itemgetter(*TASK_COLUMNS[1:-2])  # those new_task_values gives
_NEXT_WORK = TASK_COLUMNS[1:-2].index("next_earliest_work_at")
_HOLD = TASK_COLUMNS[1:-2].index("hold_until")


def _insert(campaign: Campaign, new: list[Planned], now) -> list[tuple[dict, TaskPlan]]:
    """One INSERT of the new tasks, as plain rows straight to the driver; the values of
    each new task, with its plan."""
    when = driver_value(db.session, TASKS.c.created_at)
    stamp = when(now)
    defaults, campaign_id = Defaults.of(campaign), campaign.id
    rows, added = [], []
    for one in new:
        values = new_task_values(one.plan, one.queue_id, defaults, now)
        added.append((values, one.plan))
        next_work = values["next_earliest_work_at"]
        row = _values_in_order(values)
        if next_work:  # the driver's form of the time, in the row only
            row = (*row[:_NEXT_WORK], when(next_work), *row[_NEXT_WORK + 1 :])
        if hold := values["hold_until"]:
            row = (*row[:_HOLD], when(hold), *row[_HOLD + 1 :])
        rows.append((campaign_id, *row, stamp, stamp))
    _bulk_insert(TASKS, TASK_COLUMNS, rows)
    return added


def _bulk_insert(table, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Plain rows into the table: COPY on PostgreSQL (an executemany there costs a round
    of the protocol per row), `bulk_insert`'s multi-row INSERTs on SQLite."""
    connection = session_connection(db.session)
    if connection.dialect.name != "postgresql" or not rows:
        bulk_insert(db.session, table, columns, rows)
        return
    sql = f"COPY {table.name} ({', '.join(columns)}) FROM STDIN"
    with connection.connection.driver_connection.cursor() as cursor, cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)


def _update(updates: list[Update], now, defaults: Defaults) -> None:
    """One executemany per set of changed columns (most files have a single set)."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for task, plan, one in updates:
        values = update_values(plan, one.queue_id, now, defaults)
        params = {f"new_{name}": value for name, value in values.items()}
        params["task_id"], params["now"] = task.id, now
        groups.setdefault(tuple(values), []).append(params)
    for columns, params in groups.items():
        db.session.execute(_update_statement(columns), params)


@cache
def _update_statement(columns: tuple[str, ...]):
    return (
        update(TASKS)
        .where(TASKS.c.id == bindparam("task_id"))
        .values(
            {
                **{name: bindparam(f"new_{name}", type_=TASKS.c[name].type) for name in columns},
                **touched_in_sql(),
            }
        )
    )
