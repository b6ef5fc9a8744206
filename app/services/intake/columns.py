"""What each column of an intake file means, and turning one row into a validated plan.

The first column is the clientId. Columns named like the system fields of an export set
those fields (`preferredAgent`, `nextEarliestWorkTime`, `skillQueue`) or are ignored
(`previewRecordID`, `workedState`, ...), so an export loads back as the same tasks. Every
other column is a data item; an empty cell means the task has no such item. Items keep
the column order, which is the order the agent sees them in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from app.models import SkillQueue
from app.services.campaigns import countries
from app.services.csv_cells import excerpt, excerpts_in
from app.services.errors import InvalidInput, ServiceError
from app.services.fields import TASK_ITEMS, TASK_SKILL_QUEUE
from app.services.tasks.validation import (
    NEXT_EARLIEST,
    SPECIAL_KEYS,
    ItemInput,
    QueueLookup,
    TaskPlan,
    plan_task,
)
from app.services.values import SentTime, is_phone_key
from app.wire.times import sent_time, to_epoch_ms

PREFERRED_AGENT = "preferredAgent"
NEXT_WORK_TIME = "nextEarliestWorkTime"
SKILL_QUEUE = "skillQueue"
TIME_FIELD = NEXT_EARLIEST  # a refused time is told by the API's name, as a refused add
APPLIED = (PREFERRED_AGENT, NEXT_WORK_TIME, SKILL_QUEUE)
QUEUE_COLUMN = TASK_SKILL_QUEUE.said_as(SKILL_QUEUE)  # a refused queue, by its column
IGNORED = (
    "previewRecordID",
    "workedState",
    "workAttempts",
    "lastAttemptAgent",
    "lastAttemptTime",
    "workCodes",
)
WIRE_TIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]{1,3}))?"
)


@dataclass(frozen=True)
class Layout:
    """The header read once: where the data items and the system columns are."""

    header: list[str]
    data: list[tuple[int, str]]
    system: dict[str, int]
    ignored: list[str]

    @classmethod
    def of(cls, header: list[str]) -> Layout:
        data, system, ignored = [], {}, []
        for index, name in enumerate(header[1:], start=1):
            if name in APPLIED:
                system[name] = index
            elif name in IGNORED:
                ignored.append(name)
            else:
                data.append((index, name))
        return cls(header, data, system, ignored)


def parse_time(value: str) -> SentTime:
    """The time a cell holds, as `CCYY-MM-DD HH:MM:SS.mmm` (UTC) or as epoch milliseconds;
    a malformed cell is refused now, one out of range when the row's plan checks it."""
    if value.isascii() and value.isdigit():
        return sent_time(int(value), TIME_FIELD)
    match = WIRE_TIME.fullmatch(value)
    if not match:
        raise InvalidInput(
            f"{NEXT_WORK_TIME} '{excerpt(value)}' is neither CCYY-MM-DD HH:MM:SS.mmm (UTC) "
            "nor epoch milliseconds"
        )
    try:
        moment = datetime.fromisoformat(f"{match[1]}T{match[2]}").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidInput(
            f"{NEXT_WORK_TIME} '{excerpt(value)}' is not a real date and time"
        ) from None
    return sent_time(to_epoch_ms(moment) + int((match[3] or "0").ljust(3, "0")), TIME_FIELD)


def columns_named(error: ServiceError, items: list[ItemInput]) -> str:
    """The refusal told of the file's columns: a data item by its column, not by its place
    among the task's items."""
    field = error.field
    if field is None or field.whole != TASK_ITEMS or field.index is None:
        return error.message
    special = f"{field.part} " if field.part in SPECIAL_KEYS else ""
    return f"column '{items[field.index].key}': {special}{error.reason}"


def plan_row(
    layout: Layout, cells: list[str], queues: QueueLookup, country: str | None = None
) -> tuple[TaskPlan, SkillQueue | None, int]:
    """The row as a validated plan, the queue its skillQueue column names, and how many of
    its numbers were normalised to E.164 (read in the campaign's default `country`); or an
    error.

    Touches no database object: loads check rows in a thread of their own.
    """
    if len(cells) != len(layout.header):
        raise InvalidInput(f"the row has {len(cells)} fields; the header has {len(layout.header)}")
    items = [ItemInput(name, cells[index]) for index, name in layout.data if cells[index] != ""]
    normalised = 0
    for position, item in enumerate(items):
        if is_phone_key(item.key) and (e164 := countries.normalised(item.value, country)):
            items[position] = item._replace(value=e164)
            normalised += 1
    agent = cells[layout.system[PREFERRED_AGENT]] if PREFERRED_AGENT in layout.system else ""
    when = cells[layout.system[NEXT_WORK_TIME]] if NEXT_WORK_TIME in layout.system else ""
    queue_name = cells[layout.system[SKILL_QUEUE]] if SKILL_QUEUE in layout.system else ""
    try:
        plan = plan_task(
            None,
            cells[0],
            items,
            layout.header[0],
            preferred_agent=agent or None,
            next_earliest=parse_time(when) if when else None,
            queues=queues,
        )
        queue = queues(queue_name, QUEUE_COLUMN) if queue_name else None
        if queue and plan.skill_queue and plan.skill_queue.name != queue.name:
            raise InvalidInput(
                f"column '{SKILL_QUEUE}' ('{queue.name}') and the SkillQueue item "
                f"('{plan.skill_queue.name}') name different queues"
            )
    except ServiceError as error:
        error.message = excerpts_in(columns_named(error, items), cells)
        raise
    return plan, queue, normalised
