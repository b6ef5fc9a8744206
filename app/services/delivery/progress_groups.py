"""The groups of tasks the Progress panel counts, each as the condition that lists them.

Each count of the panel links to its tasks (the campaign page's search narrowed to the
group), so a supervisor sees which tasks are kept back and why. The conditions are the
ones `progress.campaign_progress` counts with, built from the same delivery rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, false

from app.models.types import utcnow
from app.services.delivery.kept_back import refused_by
from app.services.delivery.progress import PER_AGENT, anyone, buckets, kept_back_condition
from app.services.errors import InvalidInput

# What each group of the Progress panel is called where a page lists its tasks.
GROUPS = {
    "deliverable": "deliverable now",
    "waiting": "waiting for their time",
    "held": "held for a preferred agent",
    "in_work": "in work",
    "kept_back": "kept back",
}


@dataclass(frozen=True)
class Group:
    """The tasks a count of the Progress panel stands for: its name in links, its label,
    and the condition on `tasks` that lists them."""

    name: str
    label: str
    condition: ColumnElement[bool]


def groups(tenant_id: int, now: datetime) -> dict[str, Group]:
    """Every group of open tasks the Progress panel counts, by the names its links use: the
    buckets, `kept_back`, and `kept_back.<reason>` for each rule of when and whom
    (`kept_back.reasons`). Each is the very condition the panel counts."""
    seat = anyone(tenant_id, now)
    found = buckets(tenant_id, now, seat)
    found["kept_back"] = kept_back_condition(found)
    named = {name: Group(name, GROUPS[name], condition) for name, condition in found.items()}
    for reason, refused in refused_by(seat, found["kept_back"], PER_AGENT):
        name = f"kept_back.{reason.key}"
        condition = false() if refused is None else refused
        named[name] = Group(name, f"kept back: {reason.label}", condition)
    return named


def group(tenant_id: int, name: str, now: datetime | None = None) -> Group:
    """One group of the Progress panel at `now` (see `groups`); InvalidInput if none."""
    found = groups(tenant_id, now or utcnow())
    if name not in found:
        raise InvalidInput(f"'{name}' is not a group of tasks of the Progress panel")
    return found[name]
