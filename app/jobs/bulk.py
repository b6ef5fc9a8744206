"""Bulk jobs as worker jobs: queued when a supervisor confirms one, taken up again when the
worker that ran them died.

A job commits its counts and resume point with each batch, so the job that takes an
interrupted one up goes on from its last batch and ends with the counts of an
uninterrupted run.
"""

from __future__ import annotations

import time
from datetime import datetime

from flask import current_app

from app.jobs import leases
from app.jobs.queue import job
from app.models import BulkState
from app.models.types import utcnow
from app.services.bulk.runs import run_bulk, unfinished_jobs

# As for intake loads: a queued job this many lease lengths old is taken to be lost.
QUEUED_PATIENCE = 10


def _lease_seconds() -> float:
    return current_app.config["WORKER_LEASE_SECONDS"]


@job("bulk.run")
def run_bulk_job(job_id: int) -> str | None:
    """Run the bulk job to its end (or on from its resume point); nothing when another
    worker is running it."""
    with leases.held(f"bulk.{job_id}", _lease_seconds()) as mine:
        if not mine:
            return None
        done = run_bulk(job_id)
        return str(done.state) if done is not None else None


def sweep_bulk(now: datetime | None = None) -> dict[str, int]:
    """Queue again the bulk jobs no live worker holds: cut off mid-run, or lost from the
    queue."""
    now = now or utcnow()
    wall, patience = time.time(), QUEUED_PATIENCE * _lease_seconds()
    requeued = 0
    for bulk in unfinished_jobs():
        if leases.is_held(f"bulk.{bulk.id}", wall):
            continue
        waiting = bulk.state == BulkState.QUEUED
        if waiting and (now - bulk.created_at).total_seconds() < patience:
            continue  # most likely still in the queue, behind other jobs
        run_bulk_job(bulk.id)
        requeued += 1
    return {"requeued": requeued}
