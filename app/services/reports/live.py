"""The live wallboard: agents by state, each campaign's and queue's open tasks, attempts and
contacts now.

Its counts reuse the Progress panel's counts (`progress_snapshots.shown`, the very
function the panel calls: one `progress.tally` for its campaigns and queues) and the Agents
page's board (`progress.agent_board`), so the three never disagree.

Each campaign's row adds its list penetration (tasks attempted / tasks) and when its
deliverable tasks run out at the day's rate: the attempts delivered today (the UTC day) in
the campaign per hour since its first attempt of the day, once that is RATE_AFTER old (too
early, or none yet: no rate, shown "—"); deliverable now / that rate from now.

A wall screen asks again every second; `change_token` answers "has anything changed?"
from two index probes (the tenant's newest audit record: every change writes one in its
own transaction; its newest Progress snapshot: a large campaign counted again) and the
current minute (times in state, the 15-minute window and the day move on by themselves),
so a viewer with nothing new costs no recount.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import case, func, select

from app.extensions import db
from app.models import Campaign, ProgressSnapshot, Tenant
from app.models.attempts import Attempt
from app.models.campaigns import CampaignStatus, SkillQueue
from app.models.history import AuditRecord
from app.models.types import utcnow
from app.services.delivery import progress, progress_snapshots

WINDOW = timedelta(minutes=15)
# How long after the day's first attempt its rate is trusted.
RATE_AFTER = timedelta(minutes=15)


@dataclass(frozen=True)
class QueueRow:
    """One skill queue's open tasks now: deliverable, waiting for their time, in work."""

    name: str
    deliverable: int
    waiting: int
    in_work: int
    held: int = 0
    kept_back: int = 0


@dataclass(frozen=True)
class CampaignRow:
    """One campaign now: its Progress panel's counts, its attempts today and their rate."""

    campaign: Campaign
    progress: progress.Progress
    attempts_today: int
    first_today: datetime | None

    @property
    def rate_per_hour(self) -> float | None:
        """Today's attempts per hour since the day's first; None before RATE_AFTER."""
        if self.first_today is None:
            return None
        elapsed = self.progress.now - self.first_today
        if elapsed < RATE_AFTER:
            return None
        return self.attempts_today / (elapsed / timedelta(hours=1))

    @property
    def runs_out_at(self) -> datetime | None:
        """When the deliverable tasks run out at today's rate (now when none is left);
        None without a rate."""
        rate = self.rate_per_hour
        if rate is None:
            return None
        return self.progress.now + timedelta(hours=self.progress.deliverable / rate)


@dataclass(frozen=True)
class Activity:
    """Attempts made (delivered) in a stretch of time, and how many reached a person."""

    attempts: int
    contacts: int


@dataclass(frozen=True)
class Wallboard:
    now: datetime
    token: str
    agents: list[progress.AgentRow]
    campaigns: list[CampaignRow]
    queues: list[QueueRow]
    last_15_minutes: Activity
    today: Activity

    @property
    def by_state(self) -> dict[str, int]:
        """How many agents are in each state, the states in the board's order."""
        counts: dict[str, int] = {}
        for row in self.agents:
            counts[row.state] = counts.get(row.state, 0) + 1
        return counts


def change_token(tenant: Tenant | int, now: datetime | None = None) -> str:
    """Changes whenever the wallboard could read differently: a change recorded for the
    tenant (its newest audit record, found by the index on tenant and id), a large
    campaign's counts taken again (its newest Progress snapshot) or a new minute."""
    now = now or utcnow()
    tenant_id = tenant if isinstance(tenant, int) else tenant.id
    newest, counted = db.session.execute(
        select(
            select(func.max(AuditRecord.id))
            .where(AuditRecord.tenant_id == tenant_id)
            .scalar_subquery(),
            select(func.max(ProgressSnapshot.taken_at))
            .join(Campaign, Campaign.id == ProgressSnapshot.campaign_id)
            .where(Campaign.tenant_id == tenant_id)
            .scalar_subquery(),
        )
    ).one()
    minute = int(now.timestamp()) // 60
    return f"{tenant_id}-{newest or 0}-{minute}-{counted or ''}"


def queue_rows(
    tenant: Tenant, counted: dict[int, dict[int, progress.Tally]], now: datetime
) -> list[QueueRow]:
    """Each queue of the tenant with its open tasks by bucket, by the Progress panel's
    rules: the tallies of every campaign of the tenant (archived ones too) added up."""
    by_queue: dict[int, list[progress.Tally]] = {}
    for queues in counted.values():
        for queue_id, figures in queues.items():
            by_queue.setdefault(queue_id, []).append(figures)
    queues = db.session.scalars(
        select(SkillQueue).where(SkillQueue.tenant_id == tenant.id).order_by(SkillQueue.name)
    )
    rows = []
    for queue in queues:
        counts = progress.progress_of(progress.summed(by_queue.get(queue.id, [])), now)
        buckets = ("deliverable", "waiting", "in_work", "held", "kept_back")
        rows.append(QueueRow(queue.name, *(getattr(counts, name) for name in buckets)))
    return rows


def campaign_rows(
    campaigns: list[Campaign], counts: dict[int, progress.Progress], now: datetime
) -> list[CampaignRow]:
    """Each campaign shown (by name, but the archived, hidden from lists) with its Progress
    panel's counts and its attempts of today (one grouped query)."""
    shown = [campaign for campaign in campaigns if campaign.status != CampaignStatus.ARCHIVED]
    today = {
        row[0]: row[1:]
        for row in db.session.execute(
            select(Attempt.campaign_id, func.count(Attempt.id), func.min(Attempt.delivered_at))
            .where(
                Attempt.campaign_id.in_([campaign.id for campaign in shown]),
                Attempt.delivered_at >= start_of_day(now),
                Attempt.delivered_at <= now,
            )
            .group_by(Attempt.campaign_id)
        )
    }
    return [
        CampaignRow(campaign, counts[campaign.id], *today.get(campaign.id, (0, None)))
        for campaign in shown
    ]


def activity(tenant: Tenant, start: datetime, end: datetime) -> Activity:
    """Attempts delivered in [start, end) in the tenant's campaigns, and their contacts."""
    campaigns = select(Campaign.id).where(Campaign.tenant_id == tenant.id)
    attempts, contacts = db.session.execute(
        select(func.count(Attempt.id), func.count(case((Attempt.contact, 1)))).where(
            Attempt.campaign_id.in_(campaigns),
            Attempt.delivered_at >= start,
            Attempt.delivered_at < end,
        )
    ).one()
    return Activity(attempts, contacts)


def start_of_day(now: datetime) -> datetime:
    """Midnight UTC of `now`'s day: "today" on the wallboard is the UTC day."""
    return datetime(now.year, now.month, now.day, tzinfo=UTC)


def wallboard(tenant: Tenant, now: datetime | None = None, token: str | None = None) -> Wallboard:
    """The tenant's wallboard at `now`."""
    now = now or utcnow()
    end = now + timedelta(microseconds=1)  # an attempt made at `now` counts
    campaigns = list(
        db.session.scalars(
            select(Campaign).where(Campaign.tenant_id == tenant.id).order_by(Campaign.name)
        )
    )
    counted = progress_snapshots.shown(campaigns, now, why=False)
    return Wallboard(
        now=now,
        token=token or change_token(tenant, now),
        agents=progress.agent_board(tenant, now),
        campaigns=campaign_rows(campaigns, counted.progress, now),
        queues=queue_rows(tenant, counted.by_queue, now),
        last_15_minutes=activity(tenant, now - WINDOW, end),
        today=activity(tenant, start_of_day(now), end),
    )
