"""What a form of a task showed, so that a save is refused only on a real conflict.

A task's version counts every change, a delivery, a reservation's end, a call's close
included. A supervisor's form edits a few fields (its part: the data items, the status
fields, the transfer fields); it carries the version it showed and a stamp of its part's
fields as they were. A save whose version is no longer the stored one goes through when
its part's fields are still as shown (an agent was merely given the task, or another form
saved other fields) and is refused when one of them changed: saving would silently undo
that change. The form's fields are saved as a whole, so a change to any field of the same
part is a conflict, even one the supervisor did not touch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.models import Task
from app.services.values import moment_text


class Part(StrEnum):
    """The fields one form of a task edits."""

    ITEMS = "items"
    STATUS = "status"
    TRANSFER = "transfer"


def _time(moment) -> str | None:
    return moment_text(moment) if moment is not None else None


FIELDS: dict[Part, Callable[[Task], Any]] = {
    Part.ITEMS: lambda task: [
        task.client_id,
        task.client_id_field,
        [[item.key, item.value, item.display_order] for item in task.items],
    ],
    Part.STATUS: lambda task: [
        task.worked_state,
        _time(task.next_earliest_work_at),
        task.skill_queue_id,
        task.time_zone,
        task.preferred_agent,
    ],
    Part.TRANSFER: lambda task: [task.campaign_id, task.skill_queue_id, task.preferred_agent],
}


def stamp(task: Task, part: Part) -> str:
    """A short digest of the part's fields as the task has them now."""
    text = json.dumps(FIELDS[part](task), separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Shown:
    """The version a form showed and the stamp of its part then (None: not known)."""

    version: int | None
    part: Part
    stamp: str | None = None


Expected = int | Shown | None  # what a change was prepared from (None: no check)


def still_as_shown(task: Task, expected: Expected) -> bool:
    """Whether a change prepared from `expected` meets no other change of what it edits."""
    if expected is None:
        return True
    if isinstance(expected, int):
        return task.version == expected
    if expected.version is not None and task.version == expected.version:
        return True
    return expected.stamp is not None and expected.stamp == stamp(task, expected.part)
