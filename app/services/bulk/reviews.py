"""A bulk action under review: what the supervisor was shown, kept so that its page can be
shown again (a reload, Back) and confirmed once.

A review holds the action and its fields, the criteria, the count and last matching id
shown, a token of its own, and where the campaign's bulk jobs stood when it was made: the
last job recorded then and those still running. Confirming it is refused when

- it was confirmed already (its token started a job): a second tab, Back and confirm again;
- a bulk job changed tasks of the campaign after the review was made (one confirmed
  since, one still running then, or one moving tasks into the campaign): the count and
  the tasks shown may no longer be those the job would act on.

Both refusals name the job, so the page can link to it; a review made after that job ended
sees the tasks as it left them and may be confirmed.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, or_, select

from app.db.transactions import take_write_lock
from app.extensions import db
from app.models import BulkAction, BulkJob, Campaign, Task
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.bulk.actions import BulkRequest, prepare
from app.services.bulk.jobs import UNFINISHED, confirmed_job, matching_now, start_bulk
from app.services.delivery.holders import HeldTasks, held_among
from app.services.errors import Conflict
from app.services.search.criteria import Criterion
from app.services.search.query import filtered


@dataclass(frozen=True)
class Review:
    """A bulk action as its review page showed it."""

    campaign_id: int
    criteria: list[Criterion]
    request: BulkRequest
    count: int
    last_id: int
    reviewed_at: datetime
    token: str
    # The last bulk job recorded when the review was made, and the campaign's jobs that
    # were still running then: any later one, or one of those, ran after the review.
    last_job_id: int = 0
    running_job_ids: tuple[int, ...] = field(default_factory=tuple)


class ReviewRefused(Conflict):
    """The review may not be confirmed; `job` is the bulk job that says why."""

    def __init__(self, message: str, job: BulkJob) -> None:
        super().__init__(message)
        self.job = job


def _concerns(job: BulkJob, campaign: Campaign) -> bool:
    """Whether the job changes tasks of the campaign: its own, or tasks moved into it."""
    if job.campaign_id == campaign.id:
        return True
    return (
        job.action == BulkAction.TRANSFER
        and job.campaign.tenant_id == campaign.tenant_id
        and (job.fields or {}).get("destination") == campaign.name
    )


def _running(campaign: Campaign) -> list[BulkJob]:
    jobs = db.session.scalars(select(BulkJob).where(BulkJob.state.in_(UNFINISHED)))
    return [job for job in jobs if _concerns(job, campaign)]


def review_bulk(
    campaign: Campaign,
    criteria: list[Criterion],
    request: BulkRequest,
    *,
    actor: Actor,
    now: datetime | None = None,
) -> Review:
    """Check the request (ServiceError names the field) and record what its review shows."""
    prepare(campaign, request, actor)
    count, last_id = matching_now(campaign, criteria)
    last_job = db.session.scalar(select(func.max(BulkJob.id))) or 0
    return Review(
        campaign.id,
        criteria,
        request,
        count,
        last_id,
        now or utcnow(),
        str(uuid.uuid4()),
        last_job,
        tuple(job.id for job in _running(campaign)),
    )


def held_in_review(campaign: Campaign, review: Review, now: datetime | None = None) -> HeldTasks:
    """The reviewed tasks agents hold right now, named."""
    tasks = filtered(campaign, review.criteria).where(Task.id <= review.last_id)
    return held_among(tasks, now=now)


def standing(campaign: Campaign, review: Review) -> ReviewRefused | None:
    """Why the review may not be confirmed (now), or None when it may."""
    if (started := confirmed_job(campaign, review.token)) is not None:
        return ReviewRefused(
            f"this review was confirmed already: bulk job {started.id} was started from it; "
            "nothing more was started",
            started,
        )
    later = db.session.scalars(
        select(BulkJob)
        .where(
            or_(BulkJob.id > review.last_job_id, BulkJob.id.in_(review.running_job_ids)),
            BulkJob.token.is_distinct_from(review.token),
        )
        .order_by(BulkJob.id)
    )
    for job in later:
        if _concerns(job, campaign):
            when = "is changing" if job.state in UNFINISHED else "changed"
            return ReviewRefused(
                f"bulk job {job.id} {when} tasks of this campaign since this review was made, "
                "so its count and tasks may no longer hold; nothing was started. "
                "Review the action again to see the tasks as they are now",
                job,
            )
    return None


def confirm_review(
    campaign: Campaign, review: Review, *, actor: Actor, now: datetime | None = None
) -> BulkJob:
    """Start the reviewed job, once: ReviewRefused when it was confirmed already or a job
    changed the campaign's tasks since; CountChanged when the count is no longer the one
    shown. Confirmations of the campaign's reviews take turns (its row is locked), so
    two tabs confirming at once start one job and see the other refused."""
    take_write_lock(db.session)
    db.session.execute(select(Campaign.id).where(Campaign.id == campaign.id).with_for_update())
    refused = standing(campaign, review)
    if refused is not None:
        raise refused
    return start_bulk(
        campaign,
        review.criteria,
        review.request,
        expected=review.count,
        token=review.token,
        actor=actor,
        now=now,
    )
