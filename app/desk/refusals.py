"""A refused close form in the agent's words, and where the page says it.

The rules live in app/services (delivery/closing.py, work_codes/offers.py) and refuse with
a ServiceError that names its field as a domain value (app/services/fields.py) and says
what is wrong with it (`kind`); `WorkCodeRefused` names the group and code. This module
words each refusal the way the desk speaks (times in the zone the form's picker uses, the
codes by their names) and places it beside the field it is about: the next attempt's time,
the outcome buttons, a work-code group, else the top of the form. It never reads the
message, and no API field name reaches the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from app.models import Task, User
from app.services.errors import (
    NOT_CALLABLE,
    OUT_OF_RANGE,
    PAST,
    REQUIRED,
    CodeProblem,
    ServiceError,
    WorkCodeRefused,
)
from app.services.fields import TASK_NEXT_EARLIEST, TASK_NOTE, TASK_OUTCOME
from app.services.work_codes.choices import OfferedGroup

# Where a refusal is said: beside the next attempt's time, above the outcome buttons,
# in a work-code group (`GROUP` + its name), or at the top of the close form.
NEXT_TIME = "next_time"
OUTCOME = "outcome"
GROUP = "wc:"
FORM = "form"

CHOOSE_OUTCOME = "Choose Complete, Reschedule or Remove."


@dataclass(frozen=True)
class Refused:
    """What the page says (`words`) and beside which field (`place`); a callback time the
    rules refuse offers the first one they allow (`offer`, as the picker writes it)."""

    words: str
    place: str
    offer: str | None = None

    def at(self, place: str) -> bool:
        return self.place == place


@dataclass(frozen=True)
class Choice:
    """What the agent sent, as the wording needs it: the time typed (read in the task's
    zone) and the codes ticked."""

    typed: datetime | None
    codes: list[tuple[str, str]]


def form_refusal(errors: dict) -> Refused:
    """The close form's own checks (shape only): a button or a date the page never sends."""
    if "next_time" in errors:
        return Refused("Choose the date and time with the picker: day, month, year and time.",
                       NEXT_TIME)  # fmt: skip
    return Refused(CHOOSE_OUTCOME, OUTCOME)


def close_refusal(
    error: ServiceError,
    task: Task,
    agent: User,
    now: datetime,
    choice: Choice,
    groups: list[OfferedGroup],
) -> Refused:
    """A refusal of close_task (or of its outcome_of) in the desk's words, with its place."""
    if isinstance(error, WorkCodeRefused):
        return _code_refusal(error, groups)
    field = error.field
    if field == TASK_NEXT_EARLIEST:
        return Refused(_time_words(error, task, agent, now, choice), NEXT_TIME, _offer(error, task))
    if field == TASK_OUTCOME:
        if error.kind == REQUIRED and choice.codes:
            return Refused(
                CHOOSE_OUTCOME[:-1] + ": none of the codes you ticked decides the outcome.",
                OUTCOME,
            )
        return Refused(CHOOSE_OUTCOME, OUTCOME)
    if field == TASK_NOTE:
        return Refused(f"Your note {error.reason}: change it, then close the task again.", FORM)
    # A rule of the desk's own (no field): its words are written for people already.
    return Refused(f"Not saved: {error.reason}", FORM)


def _time_words(error: ServiceError, task: Task, agent: User, now: datetime, choice: Choice) -> str:
    if error.kind == NOT_CALLABLE:
        first = getattr(error, "until", None)
        if first is None:
            return "The customer may not be called back then, nor soon after: choose another day."
        local = first.astimezone(ZoneInfo(task.time_zone))
        return (
            "The customer may not be called at that time. The first time they may is "
            f"{local:%Y-%m-%d %H:%M} ({task.time_zone}): choose it or a later one."
        )
    if error.kind == REQUIRED:
        if choice.codes:
            return "Choose a time for the next attempt: the codes you ticked set no delay."
        return "Choose a time for the next attempt."
    past = error.kind == PAST or (
        error.kind == OUT_OF_RANGE and choice.typed is not None and choice.typed <= now
    )
    if past:
        return f"Choose a time after {_now_words(now, task, agent, choice.typed)}."
    return "Choose an earlier date: the year 9999 at the latest."


def _offer(error: ServiceError, task: Task) -> str | None:
    """The first time the rules allow, in the picker's shape and the task's zone."""
    first = getattr(error, "until", None) if error.kind == NOT_CALLABLE else None
    if first is None:
        return None
    if first.second or first.microsecond:  # the picker has minutes: the next whole one
        first = first.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return f"{first.astimezone(ZoneInfo(task.time_zone)):%Y-%m-%dT%H:%M}"


def _now_words(now: datetime, task: Task, agent: User, typed: datetime | None) -> str:
    """Now as the picker reads it (the customer's zone), with the agent's own when it
    differs; the date only when the day typed is not today there."""
    local = now.astimezone(ZoneInfo(task.time_zone))
    same_day = typed is not None and typed.astimezone(local.tzinfo).date() == local.date()
    shape = "%H:%M" if same_day else "%Y-%m-%d %H:%M"
    said = f"{local:{shape}} ({task.time_zone})"
    own = agent.time_zone or "UTC"
    if own != task.time_zone:
        said += f", {now.astimezone(ZoneInfo(own)):{shape}} your time ({own})"
    return said


def _code_refusal(error: WorkCodeRefused, groups: list[OfferedGroup]) -> Refused:
    group = next((g for g in groups if g.name == error.group), None)
    if group is None or error.kind == CodeProblem.GROUP_NOT_OFFERED:
        return Refused(
            f"The {error.group} codes are no longer offered for this task: choose from "
            "those shown.",
            FORM,
        )
    place = GROUP + group.name
    if error.kind == CodeProblem.REQUIRED:
        many = "one or more" if group.multiple else "one"
        return Refused(f"Choose {many} of the {group.name} codes.", place)
    if error.kind == CodeProblem.ONE_ONLY:
        return Refused(f"Choose only one of the {group.name} codes.", place)
    if error.kind == CodeProblem.TWICE:
        return Refused(f"{error.code} is ticked twice: tick it once.", place)
    return Refused(
        f"{error.code} is no longer one of the {group.name} codes: choose another.", place
    )
