"""Bulk jobs as worker jobs: queued when a supervisor confirms one, taken up again when the
worker that ran them died.

A job commits its counts and resume point with each batch, so the job that takes an
interrupted one up goes on from its last batch and ends with the counts of an
uninterrupted run.
"""

from __future__ import annotations

from datetime import datetime

from app.jobs import leases
from app.jobs.queue import job
from app.models import BulkState
from app.models.types import utcnow
from app.services.bulk.jobs import run_bulk, unfinished_jobs


@job("bulk.run")
def run_bulk_job(job_id: int) -> str | None:
    """Run the bulk job to its end (or on from its resume point); nothing when another
    worker is running it."""
    with leases.held(f"bulk.{job_id}", leases.lease_seconds()) as mine:
        if not mine:
            return None
        done = run_bulk(job_id)
        return str(done.state) if done is not None else None


def sweep_bulk(now: datetime | None = None) -> dict[str, int]:
    """Queue again the bulk jobs no live worker holds: cut off mid-run, or lost from the
    queue."""
    unfinished = (
        leases.Unfinished(
            f"bulk.{bulk.id}", bulk.id, bulk.state == BulkState.QUEUED, bulk.created_at
        )
        for bulk in unfinished_jobs()
    )
    return {"requeued": leases.requeue_unheld(unfinished, run_bulk_job, now or utcnow())}
