"""Best hours to reach customers: attempts and contacts by the customer's local weekday
and hour (the task's zone; a deleted task's, its campaign's default zone)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from sqlalchemy import case, func, select

from app.extensions import db
from app.models import Attempt, Campaign, Task
from app.services.reports.scope import ReportScope
from app.services.reports.sql import BUCKET_SECONDS, bucket


@dataclass(frozen=True)
class HourCell:
    weekday: int  # 0 = Monday, in the customer's local time
    hour: int  # 0-23, in the customer's local time
    attempts: int
    contacts: int

    @property
    def contact_rate(self) -> float | None:
        return self.contacts / self.attempts if self.attempts else None


@lru_cache(maxsize=512)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def best_hours(scope: ReportScope) -> list[HourCell]:
    """The 168 cells of the week (Monday 00:00 first), zeros included."""
    zone = func.coalesce(Task.time_zone, Campaign.default_time_zone).label("zone")
    key = bucket(Attempt.delivered_at).label("bucket")
    rows = db.session.execute(
        select(zone, key, func.count(), func.sum(case((Attempt.contact, 1), else_=0)))
        .select_from(Attempt)
        .join(Campaign, Campaign.id == Attempt.campaign_id)
        .outerjoin(Task, Task.id == Attempt.task_id)
        .where(*scope.attempt_filters())
        .group_by(zone, key)
    ).all()
    cells = [[0, 0] for _ in range(7 * 24)]
    for name, number, attempts, contacts in rows:
        local = datetime.fromtimestamp(int(number) * BUCKET_SECONDS, UTC).astimezone(_zone(name))
        cell = cells[local.weekday() * 24 + local.hour]
        cell[0] += int(attempts)
        cell[1] += int(contacts or 0)
    return [HourCell(i // 24, i % 24, a, c) for i, (a, c) in enumerate(cells)]
