"""One agent asking for work at one moment: what every eligibility rule is evaluated for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement

from app.models import User

T = TypeVar("T")


@dataclass(frozen=True)
class Seat:
    agent_id: int
    login: str
    queue_ids: tuple[int, ...]
    now: datetime
    tenant_id: int = 0
    # The agent's own zone: times the desk says ("due at ...") are read in it.
    zone: str = "UTC"
    # What the rules read for this seat once and use in several queries (its tenant's
    # calling windows, ...): a seat lives for one request.
    _memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def remembered(self, name: str, read: Callable[[], T]) -> T:
        """`read()` the first time `name` is asked for at this seat; the same answer after."""
        if name not in self._memo:
            self._memo[name] = read()
        return self._memo[name]

    @classmethod
    def of(cls, agent: User, now: datetime) -> Seat:
        return cls(
            agent.id,
            agent.login_user_id,
            tuple(q.id for q in agent.skill_queues),
            now,
            agent.tenant_id,
            agent.time_zone or "UTC",
        )

    def local(self, moment: datetime) -> str:
        """A moment as the agent reads it: `2026-11-23 08:00 America/New_York`."""
        return local_text(moment, self.zone)


def local_text(moment: datetime, zone: str) -> str:
    shown = moment.astimezone(ZoneInfo(zone) if zone != "UTC" else UTC)
    return f"{shown:%Y-%m-%d %H:%M} {zone}"


# The conditions of every work rule but the asking one, built when first asked for: a
# blocker that must know whether tasks are kept back by another rule asks for them.
OtherRules = Callable[[], list[ColumnElement[bool]]]


@dataclass(frozen=True)
class Blocked:
    """Why tasks otherwise ready are kept back (queue closed, outside the calling window,
    every number on the do-not-call list), and when that ends (None: not by the clock)."""

    reason: str
    until: datetime | None = None
