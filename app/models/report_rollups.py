"""The reports' rollups: the attempt ledger counted per 15-minute UTC slot.

`AttemptRollup` holds, per campaign, skill queue, agent, customer zone and slot (epoch
seconds // 900 of the delivery), the counts and second totals every report reads;
`WorkCodeRollup` the work codes chosen on the closed attempts, per the same key without
the zone. Both are kept by the ledger in the transaction of every change of an attempt
(app/services/reports/rollups.py) and can be recounted from the attempts at any time. An
attempt without a queue counts under queue 0.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.types import UTCDateTime

# The rollups' slot: every zone's offset is a multiple of 15 minutes (app/services/reports/sql.py).
SLOT_SECONDS = 15 * 60

# The figures an attempt adds to its slot, in the order the rollups keep them.
MEASURES = (
    "attempts",
    "contacts",
    "successes",
    "completed",
    "removed",
    "rescheduled",
    "closed",
    "released",
    "lapsed",
    "taken_back",
    "changed_elsewhere",
    "in_progress",
    "preview_seconds",
    "previews",
    "talk_seconds",
    "talks",
    "wrap_up_seconds",
    "wrap_ups",
    "held_seconds",
)


def _count() -> Mapped[int]:
    return mapped_column(BigInteger, default=0, server_default="0")


class AttemptRollup(db.Model):
    """Attempts delivered in one 15-minute UTC slot, by campaign, queue, agent and zone."""

    __tablename__ = "attempt_rollups"
    # On SQLite the rows are stored in their key's order: a range of slots is read in place.
    __table_args__ = {"sqlite_with_rowid": False}

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    slot: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    skill_queue_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    agent_login: Mapped[str] = mapped_column(String(255), primary_key=True)
    time_zone: Mapped[str] = mapped_column(String(64), primary_key=True)
    attempts: Mapped[int] = _count()
    contacts: Mapped[int] = _count()
    successes: Mapped[int] = _count()
    completed: Mapped[int] = _count()  # outcome COMPLETE
    removed: Mapped[int] = _count()  # outcome REMOVE
    rescheduled: Mapped[int] = _count()  # outcome RESCHEDULE
    closed: Mapped[int] = _count()  # ended CLOSED
    released: Mapped[int] = _count()  # ended RELEASED
    lapsed: Mapped[int] = _count()  # ended LAPSED
    taken_back: Mapped[int] = _count()  # ended TAKEN_BACK
    changed_elsewhere: Mapped[int] = _count()  # ended CHANGED_ELSEWHERE
    in_progress: Mapped[int] = _count()  # not ended yet: every attempt is in one ending
    # Whole seconds (the difference of epoch seconds) and how many attempts they sum over:
    # delivery to the call's start (else the end), connected to the call's end, the call's
    # end to the close; held: delivery to the end of an ended attempt.
    preview_seconds: Mapped[int] = _count()
    previews: Mapped[int] = _count()
    talk_seconds: Mapped[int] = _count()
    talks: Mapped[int] = _count()
    wrap_up_seconds: Mapped[int] = _count()
    wrap_ups: Mapped[int] = _count()
    held_seconds: Mapped[int] = _count()


class WorkCodeRollup(db.Model):
    """Work codes chosen on the closed attempts delivered in one slot."""

    __tablename__ = "work_code_rollups"
    __table_args__ = {"sqlite_with_rowid": False}

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    slot: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    skill_queue_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    agent_login: Mapped[str] = mapped_column(String(255), primary_key=True)
    code_key: Mapped[str] = mapped_column(String(255), primary_key=True)
    code_value: Mapped[str] = mapped_column(String(255), primary_key=True)
    chosen: Mapped[int] = _count()


# A UTC day of the day rollups: 96 slots (epoch seconds // 86,400).
SLOTS_A_DAY = 24 * 60 * 60 // SLOT_SECONDS


class AttemptDayRollup(db.Model):
    """Attempts delivered in one UTC day (`day`: epoch seconds // 86,400), by campaign,
    queue and agent: the sums of the day's AttemptRollup rows over their zones, kept in the
    same flush. A long range reads its whole days here."""

    __tablename__ = "attempt_day_rollups"
    __table_args__ = {"sqlite_with_rowid": False}

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    skill_queue_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    agent_login: Mapped[str] = mapped_column(String(255), primary_key=True)
    attempts: Mapped[int] = _count()
    contacts: Mapped[int] = _count()
    successes: Mapped[int] = _count()
    completed: Mapped[int] = _count()
    removed: Mapped[int] = _count()
    rescheduled: Mapped[int] = _count()
    closed: Mapped[int] = _count()
    released: Mapped[int] = _count()
    lapsed: Mapped[int] = _count()
    taken_back: Mapped[int] = _count()
    changed_elsewhere: Mapped[int] = _count()
    in_progress: Mapped[int] = _count()
    preview_seconds: Mapped[int] = _count()
    previews: Mapped[int] = _count()
    talk_seconds: Mapped[int] = _count()
    talks: Mapped[int] = _count()
    wrap_up_seconds: Mapped[int] = _count()
    wrap_ups: Mapped[int] = _count()
    held_seconds: Mapped[int] = _count()


class WorkCodeDayRollup(db.Model):
    """Work codes chosen on the closed attempts delivered in one UTC day."""

    __tablename__ = "work_code_day_rollups"
    __table_args__ = {"sqlite_with_rowid": False}

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    skill_queue_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    agent_login: Mapped[str] = mapped_column(String(255), primary_key=True)
    code_key: Mapped[str] = mapped_column(String(255), primary_key=True)
    code_value: Mapped[str] = mapped_column(String(255), primary_key=True)
    chosen: Mapped[int] = _count()


class AttemptedTaskCount(db.Model):
    """The distinct tasks attempted over a range that has ended, as the reports counted it
    (a deleted task among them): a past range's count does not change, so it is counted
    once. `campaign_id` 0 is every campaign of the tenant, `skill_queue_id` 0 any queue,
    `agent_login` '' any agent. The ledger deletes the rows whose range an attempt written
    or removed falls in; a recount deletes its campaigns' rows."""

    __tablename__ = "attempted_task_counts"

    tenant_id: Mapped[int] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    campaign_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    skill_queue_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    agent_login: Mapped[str] = mapped_column(String(255), primary_key=True)
    range_start: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    range_end: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    tasks: Mapped[int] = mapped_column(BigInteger)
