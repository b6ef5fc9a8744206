"""Best hours to reach customers: attempts and contacts by the customer's local weekday
and hour, in the zone the customer was in when the attempt was made (`Attempt.time_zone`:
the task's zone at delivery, kept when the task later moves or is deleted)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from sqlalchemy import case, func, select

from app.extensions import db
from app.models import Attempt, AttemptRollup
from app.services.reports.scope import ReportScope
from app.services.reports.slots import rollup_filters, split
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
    """The 168 cells of the week (Monday 00:00 first), zeros included: per customer zone and
    15-minute UTC slot, the whole slots from the rollups, the range's edges from the
    attempts; each slot lies within one local hour of its zone."""
    parts = split(scope)
    rows = []
    if parts.whole is not None:
        rows += db.session.execute(
            select(
                AttemptRollup.time_zone,
                AttemptRollup.slot,
                func.sum(AttemptRollup.attempts),
                func.sum(AttemptRollup.contacts),
            )
            .where(*rollup_filters(scope, AttemptRollup, parts.whole))
            .group_by(AttemptRollup.time_zone, AttemptRollup.slot)
        ).all()
    key = bucket(Attempt.delivered_at).label("bucket")
    for edge in parts.edges:
        rows += db.session.execute(
            select(
                Attempt.time_zone, key, func.count(), func.sum(case((Attempt.contact, 1), else_=0))
            )
            .where(*edge.attempt_filters())
            .group_by(Attempt.time_zone, key)
        ).all()
    cells = [[0, 0] for _ in range(7 * 24)]
    for name, number, attempts, contacts in rows:
        moment = datetime.fromtimestamp(int(number) * BUCKET_SECONDS, UTC)
        local = moment.astimezone(_zone(name or "UTC"))
        cell = cells[local.weekday() * 24 + local.hour]
        cell[0] += int(attempts or 0)
        cell[1] += int(contacts or 0)
    return [HourCell(i // 24, i % 24, a, c) for i, (a, c) in enumerate(cells)]
