"""Helpers for the hours tests: schedules made through the service, moments in a zone."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from app.extensions import db
from app.models import Schedule, ScheduleHours, Tenant
from app.services.schedules import hours
from app.services.schedules.opening_hours import parse_weekly
from tests.conftest import SETUP


def make_schedule(
    tenant: Tenant,
    *weekly: str,
    zone: str = "UTC",
    holidays: str | None = None,
    name: str = "Office",
) -> Schedule:
    """A committed schedule of the tenant."""
    schedule = hours.create_schedule(tenant, name, zone, weekly, holidays=holidays, actor=SETUP)
    db.session.commit()
    return schedule


def unsaved_schedule(*weekly: str, zone: str = "UTC") -> Schedule:
    """A schedule that is never stored: for the clock's arithmetic alone."""
    days = parse_weekly(weekly)
    rows = [ScheduleHours(weekday=n, opens_at=r.opens, closes_at=r.closes)
            for n, day in enumerate(days) for r in day]  # fmt: skip
    return Schedule(name="Unsaved", time_zone=zone, hours=rows, exceptions=[])


def utc(text: str) -> datetime:
    """`2026-03-08 07:00` as a UTC moment."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def local(text: str, zone: str, fold: int = 0) -> datetime:
    """A wall time in the zone (`fold=1`: the second of a repeated hour) as a UTC moment."""
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone), fold=fold).astimezone(UTC)


def stored(tenant: Tenant, name: str = "Office") -> Schedule:
    """The schedule as the database has it now."""
    db.session.expire_all()
    return hours.get_schedule(tenant, name)
