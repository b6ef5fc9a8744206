"""Hours of operation: a named weekly schedule in a time zone, with exception dates and,
optionally, a country's public holidays as closed days. A skill queue may follow one.

Times of day are minutes after local midnight (0-1440). A range whose end is not after its
start crosses midnight: it runs into the next day (`22:00-02:00`).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Integer, SmallInteger, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.models.types import UTCDateTime, text_c, utcnow


class Schedule(db.Model):
    __tablename__ = "schedules"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(text_c(255))
    time_zone: Mapped[str] = mapped_column(String(64))
    # Public holidays of this country (ISO 3166-1 alpha-2) and subdivision are closed days.
    holiday_country: Mapped[str | None] = mapped_column(String(8))
    holiday_subdivision: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    hours: Mapped[list[ScheduleHours]] = relationship(
        cascade="all, delete-orphan",
        order_by="(ScheduleHours.weekday, ScheduleHours.opens_at)",
        back_populates="schedule",
    )
    exceptions: Mapped[list[ScheduleException]] = relationship(
        cascade="all, delete-orphan",
        order_by="(ScheduleException.day, ScheduleException.opens_at)",
        back_populates="schedule",
    )


class ScheduleHours(db.Model):
    """One opening range of a weekday (0 = Monday); a weekday with none is closed."""

    __tablename__ = "schedule_hours"

    id: Mapped[int] = mapped_column(primary_key=True)
    schedule_id: Mapped[int] = mapped_column(
        ForeignKey("schedules.id", ondelete="CASCADE"), index=True
    )
    weekday: Mapped[int] = mapped_column(SmallInteger)
    opens_at: Mapped[int] = mapped_column(SmallInteger)
    closes_at: Mapped[int] = mapped_column(SmallInteger)

    schedule: Mapped[Schedule] = relationship(back_populates="hours")


class ScheduleException(db.Model):
    """A date with other hours than its weekday's: closed all day (no times) or one range of
    special hours (several rows give several ranges). An exception overrides a holiday."""

    __tablename__ = "schedule_exceptions"

    id: Mapped[int] = mapped_column(primary_key=True)
    schedule_id: Mapped[int] = mapped_column(
        ForeignKey("schedules.id", ondelete="CASCADE"), index=True
    )
    day: Mapped[date] = mapped_column(Date)
    opens_at: Mapped[int | None] = mapped_column(Integer)
    closes_at: Mapped[int | None] = mapped_column(Integer)

    schedule: Mapped[Schedule] = relationship(back_populates="exceptions")
