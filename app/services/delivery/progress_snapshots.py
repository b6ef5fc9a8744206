"""The Progress counts pages show: exact for a campaign of ordinary size, a snapshot for a
large one.

Counting a campaign's tasks is one pass over all of them (`progress.tally`): seconds at a
million, since what delivery does with a task depends on the clock (its due time, hold,
reservation, the calling window). A campaign of fewer than PROGRESS_EXACT_TASKS tasks is
counted at every request, as it stands then. A larger one shows its snapshot: the very
tally, taken at one moment (said "as of" on the page), with why its kept-back tasks waited.
Once the snapshot is PROGRESS_SNAPSHOT_SECONDS old, the first request to see it claims the
recount (`taking_until`: one process at a time, taken over when its holder vanished) and
counts again in a thread of its own, while every page goes on showing the snapshot it has.

A campaign is known to be large by its snapshot: a count at a request that finds the
campaign has reached the threshold stores one; a recount that finds it below drops it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from app.db.side_transactions import own_transaction
from app.db.transactions import transaction
from app.extensions import db
from app.models import Campaign, ProgressSnapshot, Tenant
from app.models.types import utcnow
from app.services.campaigns import catalogue as campaign_catalogue
from app.services.contactability.seat import Blocked
from app.services.delivery import progress
from app.services.delivery.progress import Progress, Tally

log = logging.getLogger(__name__)
# A recount not done by then was cut off (its process gone): another process takes it over.
RECOUNT_LEASE = timedelta(minutes=2)


@dataclass(frozen=True)
class Counts:
    """Campaigns' tallies per skill queue (0: none), and each campaign's Progress."""

    by_queue: dict[int, dict[int, Tally]]
    progress: dict[int, Progress]


def exact_below() -> int:
    return int(current_app.config["PROGRESS_EXACT_TASKS"])


def fresh_for() -> timedelta:
    return timedelta(seconds=float(current_app.config["PROGRESS_SNAPSHOT_SECONDS"]))


def shown(campaigns: list[Campaign], now: datetime | None = None, *, why: bool = True) -> Counts:
    """The counts the pages show of these campaigns of one tenant at `now`: counted now,
    or a large campaign's snapshot. `why`: say why kept-back tasks wait (a snapshot always
    says what it found)."""
    now = now or utcnow()
    if not campaigns:
        return Counts({}, {})
    ids = [campaign.id for campaign in campaigns]
    snapshots = {
        one.campaign_id: one
        for one in db.session.scalars(
            select(ProgressSnapshot).where(ProgressSnapshot.campaign_id.in_(ids))
        )
    }
    live = [campaign for campaign in campaigns if campaign.id not in snapshots]
    by_queue = progress.tally(campaigns[0].tenant_id, [campaign.id for campaign in live], now)
    found = {
        campaign.id: _counted_now(campaign, by_queue.get(campaign.id, {}), now, why)
        for campaign in live
    }
    for campaign_id, snapshot in snapshots.items():
        by_queue[campaign_id], found[campaign_id] = _read(snapshot)
        if snapshot.taken_at <= now - fresh_for() and not _being_counted(snapshot, now):
            recount_later(campaign_id, now)
    return Counts(by_queue, found)


def _counted_now(
    campaign: Campaign, queues: dict[int, Tally], now: datetime, why: bool
) -> Progress:
    """A campaign's Progress from its tally at `now`; stored as its first snapshot when it
    has reached the threshold."""
    counted = progress.progress_of(progress.summed(queues.values()), now)
    large = counted.total >= exact_below()
    if (why or large) and counted.kept_back:
        counted = replace(counted, kept_back_why=progress.kept_back_why(campaign, now))
    if large:
        campaign_id, why_now = campaign.id, counted.kept_back_why
        aside(lambda: _keep(campaign_id, now, queues, why_now), f"progress-{campaign_id}")
    return counted


def _read(snapshot: ProgressSnapshot) -> tuple[dict[int, Tally], Progress]:
    """A snapshot's tallies per skill queue, and the Progress they make at its moment."""
    queues = {int(queue): figures for queue, figures in snapshot.counts["queues"].items()}
    why = tuple(_blocked(one) for one in snapshot.counts.get("why", []))
    summed = progress.summed(queues.values())
    return queues, progress.progress_of(summed, snapshot.taken_at, why, snapshot=True)


def campaign_progress(campaign: Campaign, now: datetime | None = None) -> Progress:
    """The Progress panel's counts of one campaign (`shown`)."""
    return shown([campaign], now).progress[campaign.id]


def state_counts(tenant: Tenant) -> dict[int, dict[str, int]]:
    """Per campaign of the tenant, its tasks in each workedState: a large campaign's from
    its snapshot, the others' counted now."""
    snapshots = db.session.execute(
        select(ProgressSnapshot.campaign_id, ProgressSnapshot.counts)
        .join(Campaign, Campaign.id == ProgressSnapshot.campaign_id)
        .where(Campaign.tenant_id == tenant.id)
    ).all()
    counts = campaign_catalogue.state_counts(tenant, besides=[one[0] for one in snapshots])
    for campaign_id, stored in snapshots:
        figures = progress.summed(stored["queues"].values())
        counts[campaign_id] = {
            name.removeprefix("state."): count
            for name, count in figures.items()
            if name.startswith("state.")
        }
    return counts


def _blocked(stored: list) -> Blocked:
    reason, until = stored
    return Blocked(reason, None if until is None else datetime.fromisoformat(until))


def _stored(queues: dict[int, Tally], why: tuple[Blocked, ...]) -> dict:
    return {
        "queues": {str(queue): figures for queue, figures in queues.items()},
        "why": [[one.reason, None if one.until is None else one.until.isoformat()] for one in why],
    }


def _keep(campaign_id: int, at: datetime, queues: dict[int, Tally], why) -> None:
    """Store the campaign's snapshot taken `at` (its recount, if any, done)."""
    values = {
        "taken_at": at,
        "counts": _stored(queues, why),
        "taking_until": None,
    }
    try:
        with own_transaction() as connection:
            kept = connection.execute(
                update(ProgressSnapshot)
                .where(ProgressSnapshot.campaign_id == campaign_id)
                .values(**values)
            )
            if not kept.rowcount:
                connection.execute(
                    insert(ProgressSnapshot).values(campaign_id=campaign_id, **values)
                )
    except IntegrityError:  # another request stored it first, or the campaign is gone
        pass


def _being_counted(snapshot: ProgressSnapshot, now: datetime) -> bool:
    """Whether a process holds the snapshot's recount (its lease not run out): the pages
    meanwhile start no thread and take no write lock to find that out again."""
    return snapshot.taking_until is not None and snapshot.taking_until >= now


def _claim(campaign_id: int, now: datetime) -> bool:
    """Whether this process is the one to count the campaign again now."""
    with own_transaction() as connection:
        claimed = connection.execute(
            update(ProgressSnapshot)
            .where(
                ProgressSnapshot.campaign_id == campaign_id,
                or_(
                    ProgressSnapshot.taking_until.is_(None),
                    ProgressSnapshot.taking_until < now,
                ),
            )
            .values(taking_until=now + RECOUNT_LEASE)
        )
        return claimed.rowcount == 1


def aside(work: Callable[[], object], name: str) -> None:
    """Run `work` beside the request, in a thread with an app context of its own (inline,
    to its end, without PROGRESS_RECOUNT_THREAD): its short writes never wait on the
    request's transaction, nor the request on its count."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def run() -> None:
        with app.app_context():
            try:
                work()
            except Exception:  # the snapshot stays; the next claim after the lease tries again
                log.exception("Progress counts of %s: not kept", name)
            finally:
                db.session.remove()

    if not app.config["PROGRESS_RECOUNT_THREAD"]:
        run()
        return
    threading.Thread(target=run, name=name, daemon=True).start()


def recount_later(campaign_id: int, now: datetime) -> None:
    """Count the campaign again as of `now` (`aside`), unless another process is at it."""
    aside(
        lambda: _claim(campaign_id, now) and recount(campaign_id, now),
        f"progress-{campaign_id}",
    )


def recount(campaign_id: int, now: datetime) -> None:
    """Take the campaign's snapshot again at `now`: the count reads without a write lock;
    the snapshot is written after, in a short transaction. Dropped when the campaign has
    become smaller than the threshold: it is counted exactly again."""
    with transaction(db.session, read_only=True):
        campaign = db.session.get(Campaign, campaign_id)
        if campaign is None:
            return
        queues = progress.tally(campaign.tenant_id, [campaign_id], now).get(campaign_id, {})
        counted = progress.counted(campaign, queues, now)
    if counted.total >= exact_below():
        _keep(campaign_id, now, queues, counted.kept_back_why)
        return
    with own_transaction() as connection:
        connection.execute(
            delete(ProgressSnapshot).where(ProgressSnapshot.campaign_id == campaign_id)
        )
