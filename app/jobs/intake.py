"""Intake loads as jobs: started from the UI and the drop watcher, taken up again when the
worker that ran them died.

A load commits its counts with each batch, so the job that takes an interrupted load up
goes on from its last batch and ends with the counts and report of an uninterrupted one.
"""

from __future__ import annotations

import time
from datetime import datetime

from app.jobs import leases
from app.jobs.queue import job
from app.models import LoadStatus
from app.models.types import utcnow
from app.services.intake.runs import pending_asides, run_load, unfinished_loads
from app.services.intake.watch import move_aside


@job("intake.load")
def load_intake(load_id: str) -> str | None:
    """Run the load to its end (or on from where an interrupted run stopped), then move its
    dropped file aside; nothing when another worker is running it."""
    with leases.held(f"intake.{load_id}", leases.lease_seconds()) as mine:
        if not mine:
            return None
        load = run_load(load_id)
        move_aside(load_id)
        return str(load.status) if load is not None else None


def sweep_intake(now: datetime | None = None) -> dict[str, int]:
    """Queue again the loads no live worker holds: cut off mid-run, lost from the queue,
    or ended with their dropped file not yet moved aside."""
    waiting = (
        leases.Unfinished(
            f"intake.{load.id}", load.id, load.status == LoadStatus.QUEUED, load.created_at
        )
        for load in unfinished_loads()
    )
    requeued = leases.requeue_unheld(waiting, load_intake, now or utcnow())
    wall = time.time()
    unfinished = {load.id for load in unfinished_loads()}
    moved = 0
    for load_id in pending_asides():
        if load_id not in unfinished and not leases.is_held(f"intake.{load_id}", wall):
            moved += move_aside(load_id)
    return {"requeued": requeued, "moved_aside": moved}
