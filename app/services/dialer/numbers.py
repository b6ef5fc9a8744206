"""A task's numbers: which of them may be called now, and which one to dial next.

- A task's numbers are its phone items in display order, as the agent view shows them (a
  key containing "phone" with an E.164 value, not hidden).
- `task_numbers`: each number with whether it may be called now, as the contact rules say
  (`contact_rules.engine`: the do-not-call list, a number found INVALID_NUMBER while the
  item keeps that value, a contact limit per number); the desk, the Desk API and
  `startCall` all ask it.
- `suggested_key`: the number to dial next rotates, the first callable number after the
  one the task was called on last (in the task's calls, whichever attempt, wrapping round),
  the first callable one when none was called yet (or the one called last is no longer a
  phone item); None when no number may be called.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.models import Task
from app.services.calls import ledger
from app.services.contact_rules import engine
from app.services.contact_rules.engine import NumberVerdict


@dataclass(frozen=True)
class Number:
    """One of the task's numbers: whether it may be called now, and if not which rule
    holds it (`rule`, `blocked_by` in words) and until when (None: until something changes)."""

    key: str
    value: str
    rule: str | None = None
    blocked_by: str | None = None
    until: datetime | None = None

    @property
    def callable(self) -> bool:
        return self.rule is None

    @classmethod
    def of(cls, verdict: NumberVerdict) -> Number:
        rule = verdict.reasons[0].rule if verdict.reasons else None
        return cls(verdict.key, verdict.number, rule, verdict.sentence(), verdict.until)


def task_numbers(task: Task, now: datetime, *, zone: str = "UTC") -> list[Number]:
    """The task's numbers in display order, each with whether it may be called at `now`
    (times in words in `zone`)."""
    return [Number.of(verdict) for verdict in engine.number_verdicts(task, now, zone)]


def suggested_key(task: Task, numbers: list[Number]) -> str | None:
    """The key of the number to dial next among `numbers` (`task_numbers`' answer)."""
    callable_keys = [number.key for number in numbers if number.callable]
    if not callable_keys:
        return None
    keys = [number.key for number in numbers]
    last = ledger.last_called_key(task)
    if last in keys:
        start = keys.index(last) + 1
        for number in numbers[start:] + numbers[:start]:
            if number.callable:
                return number.key
    return callable_keys[0]


def first_freed(numbers: list[Number]) -> str | None:
    """When none may be called: the key of the number the clock frees first (a contact
    limit's), so that a refusal of it says when; None when the clock frees none."""
    timed = [number for number in numbers if number.until is not None]
    return min(timed, key=lambda number: number.until).key if timed else None


def suggested_phone_key(task: Task, now: datetime) -> str | None:
    """The key of the task's number to dial next at `now` (None: no number may be called)."""
    return suggested_key(task, task_numbers(task, now))
