"""Wrap-up (after-call work): from the end of the agent's call to the close of its task.

An agent is in wrap-up while they hold a task whose attempt's call has ended and the task
is not closed yet; a redial (a new call) ends it, and the close, a release or a lapse ends
it with the attempt. Its length is the attempt's `wrap_up_time` (the call's end to the
close), the one the reports' rollups already count as wrap-up seconds.

A skill queue may set a wrap-up limit: past it the desk warns the agent (and the wallboard
shows the agent over it); nothing is ever closed by itself, the agent decides the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from app.extensions import db
from app.models import Attempt, SkillQueue, Task
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import InvalidInput
from app.services.fields import WRAP_UP_LIMIT

MIN_LIMIT_SECONDS = 5
MAX_LIMIT_SECONDS = 3600


@dataclass(frozen=True)
class WrapUp:
    """An agent in wrap-up: since when (the call's end) and the queue's limit, if any."""

    since: datetime
    limit_seconds: int | None
    now: datetime

    @property
    def elapsed(self) -> timedelta:
        return max(self.now - self.since, timedelta(0))

    @property
    def over_limit(self) -> bool:
        return self.limit_seconds is not None and self.elapsed.total_seconds() > self.limit_seconds


def wrap_up_of(task: Task | None, attempt: Attempt | None, now: datetime) -> WrapUp | None:
    """The agent's wrap-up of `task` (its open attempt `attempt`), or None when not in one."""
    if task is None or attempt is None or attempt.call_ended_at is None:
        return None
    if attempt.closed_at is not None or attempt.ended_how is not None:
        return None
    limit = task.skill_queue.wrap_up_limit_seconds if task.skill_queue else None
    return WrapUp(attempt.call_ended_at, limit, now)


def limit_words(seconds: int | None) -> str:
    """A limit as people say it: `2 min`, `1 min 30 s`, `45 s`, `none`."""
    if seconds is None:
        return "none"
    minutes, rest = divmod(seconds, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def set_wrap_up_limit(queue: SkillQueue, seconds: int | None, *, actor: Actor) -> SkillQueue:
    """The queue's wrap-up limit in seconds (None: none); 5 to 3600."""
    if seconds is not None and not MIN_LIMIT_SECONDS <= seconds <= MAX_LIMIT_SECONDS:
        raise InvalidInput(
            f"wrap-up limit must be {MIN_LIMIT_SECONDS} to {MAX_LIMIT_SECONDS} seconds, "
            f"not {seconds}",
            field=WRAP_UP_LIMIT.said_as("wrap-up limit"),
        )
    before = queue.wrap_up_limit_seconds
    if before == seconds:
        return queue
    queue.wrap_up_limit_seconds = seconds
    record(
        actor,
        Change(
            "skill_queue.wrap_up_limit_set",
            "skill_queue",
            str(queue.id),
            queue.tenant_id,
            {"name": queue.name, "wrapUpLimitSeconds": before},
            {"name": queue.name, "wrapUpLimitSeconds": seconds},
        ),
    )
    db.session.flush()
    return queue
