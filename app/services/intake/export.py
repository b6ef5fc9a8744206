"""Exporting a campaign's tasks, or a search's, as an intake file.

The clientId column comes first (named as in intake), then every data key, then the
system fields. Rows are streamed in chunks by id, so a million tasks export in flat
memory; loading the export back gives the same tasks. Every cell is guarded against
spreadsheet formulas (see `cells`), which intake undoes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from sqlalchemy import Select, func, select

from app.extensions import db
from app.models import Campaign, Task, TaskItem
from app.services.intake.cells import guard
from app.services.rules import format_time
from app.services.search import Criterion, TaskData, filtered, with_data

SYSTEM_COLUMNS = (
    "previewRecordID",
    "workedState",
    "workAttempts",
    "lastAttemptAgent",
    "lastAttemptTime",
    "nextEarliestWorkTime",
    "skillQueue",
    "preferredAgent",
    "workCodes",
)
CHUNK = 1000


def data_keys(campaign: Campaign, tasks: Select) -> list[str]:
    """The data keys of the matching tasks, in the order they first appear, clientId's aside."""
    matching = tasks.with_only_columns(Task.id)
    rows = db.session.execute(
        select(TaskItem.key, func.min(TaskItem.position))
        .where(TaskItem.campaign_id == campaign.id, TaskItem.task_id.in_(matching))
        .where(TaskItem.key != campaign.client_id_field_name)
        .group_by(TaskItem.key)
        .order_by(func.min(TaskItem.position), TaskItem.key)
    )
    return [key for key, _ in rows]


def _guarded(cells: list) -> list:
    return [guard(cell) if isinstance(cell, str) else cell for cell in cells]


def _row(data: TaskData, keys: list[str]) -> list:
    task = data.task
    values = {item.key: item.value for item in data.items}
    return [
        task.client_id,
        *(values.get(key, "") for key in keys),
        task.record_id,
        task.worked_state,
        task.work_attempts,
        task.last_attempt_agent or "",
        format_time(task.last_attempt_at) or "",
        format_time(task.next_earliest_work_at) or "",
        task.skill_queue.name,
        task.preferred_agent or "",
        "|".join(f"{code.key}={code.value}" for code in data.work_codes),
    ]


def export_csv(campaign: Campaign, criteria: list[Criterion]) -> Iterator[str]:
    """The CSV text of the matching tasks, a chunk of rows at a time.

    A criterion that is not valid raises ServiceError here, before the first chunk, so a
    download is refused rather than cut short.
    """
    tasks = filtered(campaign, criteria)
    return _chunks(campaign, tasks, data_keys(campaign, tasks))


def _chunks(campaign: Campaign, tasks: Select, keys: list[str]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(_guarded([campaign.client_id_field_name, *keys, *SYSTEM_COLUMNS]))
    last_id = 0
    while True:
        query = tasks.where(Task.id > last_id).order_by(Task.id)
        chunk = list(db.session.scalars(query.limit(CHUNK)))
        if not chunk:
            break
        for data in with_data(chunk):
            writer.writerow(_guarded(_row(data, keys)))
        last_id = chunk[-1].id
        for task in chunk:  # keep the session's identity map small
            db.session.expunge(task)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()
