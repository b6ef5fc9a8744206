"""A task's numbers: which of them may be called now, and which one to dial next.

- A task's numbers are its phone items in display order, as the agent view shows them (a
  key containing "phone" with an E.164 value, not hidden).
- `task_numbers` is the one answer to "which of this task's numbers may be called now",
  every door asks it (the desk, the Desk API, `startCall`): a number may not be called
  while it is on the tenant's do-not-call list (`DO_NOT_CALL`), while its call for this task
  ended INVALID_NUMBER and the item still has that value (`INVALID_NUMBER`: an update
  changing the value makes it callable again; `ledger.invalid_numbers`), or while a contact
  limit per number holds it (`CONTACT_LIMIT`, until enough calls have left its window;
  `contact_limits.counts.verdicts`). The rules are those packages' own, asked for this
  one task.
- `suggested_key`: the number to dial next rotates, the first callable number after the
  one the task was called on last (in the task's calls, whichever attempt, wrapping round),
  the first callable one when none was called yet (or the one called last is no longer a
  phone item); None when no number may be called.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from app.models import Task
from app.services.calls import ledger
from app.services.contact_limits.counts import verdicts
from app.services.contactability.seat import local_text
from app.services.tasks.display import Item, agent_view_of

# The phone items of the agent's view: dialable, or listed (shown, never dialled).
PHONE_KINDS = ("phone", "blocked")

DO_NOT_CALL, INVALID_NUMBER, CONTACT_LIMIT = "DO_NOT_CALL", "INVALID_NUMBER", "CONTACT_LIMIT"


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


def task_numbers(
    task: Task, now: datetime, *, zone: str = "UTC", items: Iterable[Item] | None = None
) -> list[Number]:
    """The task's numbers in display order, each with whether it may be called at `now`
    (times in words in `zone`; `items`: the task's rows when already read)."""
    view = agent_view_of(task, items)
    phones = [d for d in view.details if d.kind in PHONE_KINDS]
    if not phones:
        return []
    invalid = ledger.invalid_numbers(task)
    held = verdicts([task], now)[0].numbers
    numbers = []
    for phone in phones:
        if phone.kind == "blocked":
            number = Number(
                phone.key, phone.value, DO_NOT_CALL, f"{phone.value} is on the do-not-call list"
            )
        elif phone.key in invalid:
            number = Number(
                phone.key,
                phone.value,
                INVALID_NUMBER,
                f"{phone.value} is not a valid number: its last call ended INVALID_NUMBER "
                f"(callable again once {phone.key} is changed)",
            )
        elif holds := held.get(phone.value):
            last = max(holds, key=lambda hold: hold.until)
            number = Number(
                phone.key,
                phone.value,
                CONTACT_LIMIT,
                f"{last.message}: may be called from {local_text(last.until, zone)}",
                last.until,
            )
        else:
            number = Number(phone.key, phone.value)
        numbers.append(number)
    return numbers


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


def suggested_phone_key(
    task: Task, now: datetime, *, items: Iterable[Item] | None = None
) -> str | None:
    """The key of the task's number to dial next at `now` (None: no number may be called)."""
    return suggested_key(task, task_numbers(task, now, items=items))
