"""Bulk jobs as records: confirmed on the campaign page, run by the worker a batch at a
time, taken up again from their resume point when a worker dies.

The set acted on is the one confirmed: the tasks matching the criteria whose ids are at
most the last id that matched at confirmation (a task added later is never touched). Each
batch reads the next tasks after the resume point that *still* match, so a task changed
since the confirmation so that it no longer matches is left alone. A batch's changes, its
audit records and events, its failures and the job's counts and resume point commit in
one transaction: a run cut off anywhere goes on from the last committed batch, and no
task is acted on twice.
"""

from __future__ import annotations

from datetime import datetime

from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from app.db.transactions import take_write_lock
from app.extensions import db
from app.jobs.queue import enqueue
from app.models import BulkFailure, BulkJob, BulkState, Campaign, Task
from app.models.types import utcnow
from app.services.actors import Actor, ActorKind
from app.services.audit import trail as history
from app.services.bulk.actions import Apply, BulkRequest, describe, prepare
from app.services.errors import ServiceError
from app.services.search.criteria import Condition, Criterion
from app.services.search.query import filtered, probed

UNFINISHED = (BulkState.QUEUED, BulkState.RUNNING)


def job_criteria(job: BulkJob) -> list[Criterion]:
    # A fourth member, when there is one, says the search ignored case (the campaign page's).
    return [
        Criterion(row[0], Condition(row[1]), row[2], len(row) > 3 and bool(row[3]))
        for row in job.criteria
    ]


def job_request(job: BulkJob) -> BulkRequest:
    return BulkRequest.stored(job.action, job.fields)


def job_actor(job: BulkJob) -> Actor:
    """Who acts: the supervisor who confirmed, through this job."""
    return Actor(ActorKind(job.actor_kind), job.actor_id, via=f"bulk job {job.id}")


class CountChanged(ServiceError):
    """The number of matching tasks is not the one the confirmation page showed."""


def matching_now(campaign: Campaign, criteria: list[Criterion]) -> tuple[int, int]:
    """How many tasks match now, and the last id among them (0 when none)."""
    query = filtered(campaign, criteria).with_only_columns(func.count(Task.id), func.max(Task.id))
    count, last = db.session.execute(query).one()
    return count or 0, last or 0


def start_bulk(
    campaign: Campaign,
    criteria: list[Criterion],
    request: BulkRequest,
    *,
    expected: int | None = None,
    token: str | None = None,
    actor: Actor,
    now: datetime | None = None,
) -> BulkJob:
    """Record a confirmed bulk job and hand it to the worker; the request is checked
    first (ServiceError). `expected`: the count the confirmation page showed; `token`: the
    confirmation's own, which starts one job however often it is sent."""
    if token and (started := confirmed_job(campaign, token)) is not None:
        return started
    prepare(campaign, request, actor)
    count, last_id = matching_now(campaign, criteria)
    if expected is not None and count != expected:
        raise CountChanged(
            f"{count:,} tasks match now, not the {expected:,} this page showed; "
            "check the new number and confirm again"
        )
    job = BulkJob(
        token=token or None,
        campaign=campaign,
        actor_kind=actor.kind.value,
        actor_id=actor.id,
        created_at=now or utcnow(),
        criteria=[
            [c.key, c.condition.value, c.value, *([True] if c.ignore_case else [])]
            for c in criteria
        ],
        action=request.action,
        fields=request.fields(),
        confirmed=count,
        last_confirmed_id=last_id,
        done=0,
        acted=0,
        skipped=0,
        failed=0,
        last_task_id=0,
        state=BulkState.QUEUED,
    )
    db.session.add(job)
    try:
        db.session.commit()
    except IntegrityError:  # the same confirmation, sent twice at once: one job
        db.session.rollback()
        if token and (started := confirmed_job(campaign, token)) is not None:
            return started
        raise
    enqueue("bulk.run", job.id)
    return job


def confirmed_job(campaign: Campaign, token: str) -> BulkJob | None:
    """The job a confirmation with this token started, if any."""
    return db.session.scalar(
        select(BulkJob).where(BulkJob.token == token, BulkJob.campaign_id == campaign.id)
    )


def _batch(job: BulkJob, criteria: list[Criterion]) -> list[Task]:
    """The next tasks of the confirmed set that still match, locked for the change."""
    size = current_app.config["BULK_BATCH"]
    query = (
        probed(job.campaign, criteria)
        .where(Task.id > job.last_task_id, Task.id <= job.last_confirmed_id)
        .order_by(Task.id)
        .limit(size)
        .with_for_update(of=Task)
    )
    return list(db.session.scalars(query))


def _act(apply: Apply, tasks: list[Task]) -> list[tuple[Task, str]]:
    """Act on the batch at once; when the action refuses it (a clientId the destination
    holds), one task at a time, so each refused task is reported and the others done."""
    try:
        with db.session.begin_nested():
            apply(tasks)
        return []
    except ServiceError:
        pass
    failures = []
    for task in tasks:
        try:
            with db.session.begin_nested():
                apply([task])
        except ServiceError as refusal:
            failures.append((task, refusal.message))
    return failures


def _fail(job: BulkJob, message: str, now: datetime) -> BulkJob:
    db.session.rollback()
    job.state, job.message, job.finished_at = BulkState.FAILED, message, now
    _finished(job)
    db.session.commit()
    return job


def run_bulk(job_id: int, now: datetime | None = None) -> BulkJob | None:
    """Run a recorded job to its end, or on from where an interrupted run stopped; a
    finished one (or none) is left as it is."""
    job = db.session.get(BulkJob, job_id)
    if job is None or job.state not in UNFINISHED:
        return job
    if job.state == BulkState.QUEUED:
        job.state, job.started_at = BulkState.RUNNING, now or utcnow()
        db.session.commit()
    actor = job_actor(job)
    try:
        criteria = job_criteria(job)
        apply = prepare(job.campaign, job_request(job), actor)
    except ServiceError as refusal:
        return _fail(job, f"nothing was changed: {refusal.message}", now or utcnow())
    try:
        while True:
            take_write_lock(db.session)
            tasks = _batch(job, criteria)
            if not tasks:
                break
            last_id = tasks[-1].id  # read before the action: a deleted task's row is gone
            failures = _act(apply, tasks)
            _record(job, last_id, len(tasks), failures)
            db.session.commit()
    except Exception:
        current_app.logger.exception("Bulk job %s failed", job_id)
        message = "the job stopped on an unexpected error; tasks changed so far stay changed"
        return _fail(job, message, now or utcnow())
    job.skipped = max(0, job.confirmed - job.acted - job.failed)
    job.done = job.acted + job.failed + job.skipped
    job.state, job.finished_at = BulkState.DONE, now or utcnow()
    _finished(job)
    db.session.commit()
    return job


def _record(job: BulkJob, last_id: int, count: int, failures: list[tuple[Task, str]]) -> None:
    """The batch's counts, resume point and failures, committed with its changes."""
    for task, reason in failures:
        db.session.add(
            BulkFailure(
                job_id=job.id,
                task_id=task.id,
                record_id=task.record_id,
                client_id=task.client_id,
                reason=reason,
            )
        )
    job.last_task_id = last_id
    job.failed += len(failures)
    job.acted += count - len(failures)
    job.done = min(job.confirmed, job.acted + job.failed)


def _finished(job: BulkJob) -> None:
    """The job's record and `bulk.finished` event, committed with its final state."""
    counts = {
        "bulkJobId": job.id,
        "campaignName": job.campaign.name,
        "action": job.action,
        "fields": job.fields,
        "description": describe(job_request(job), job.confirmed),
        "state": str(job.state),
        "confirmed": job.confirmed,
        "acted": job.acted,
        "skipped": job.skipped,
        "failed": job.failed,
        "message": job.message,
    }
    history.record(
        job_actor(job),
        history.Change(
            "bulk.finished",
            "bulk_job",
            str(job.id),
            job.campaign.tenant_id,
            after=counts,
            event_type="bulk.finished",
            event_data=counts,
            subject=f"bulk-{job.id}",
        ),
    )


def unfinished_jobs() -> list[BulkJob]:
    """Jobs that have not reached their end."""
    return list(db.session.scalars(select(BulkJob).where(BulkJob.state.in_(UNFINISHED))))


def recent_jobs(campaign: Campaign, limit: int = 10) -> list[BulkJob]:
    """The campaign's latest bulk jobs, newest first."""
    return list(
        db.session.scalars(
            select(BulkJob)
            .filter_by(campaign_id=campaign.id)
            .order_by(BulkJob.id.desc())
            .limit(limit)
        )
    )
