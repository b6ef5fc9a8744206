"""The background worker: `flask --app wsgi worker [--workers N]`."""

from __future__ import annotations

import logging

import click
from flask import current_app

from app.extensions import db
from app.jobs import huey
from app.jobs.bulk import sweep_bulk
from app.jobs.clock import start_clock
from app.jobs.full_disk import FullStorageLogFilter
from app.jobs.intake import sweep_intake


@click.command("worker")
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    help="Jobs run at once (default: WORKER_CONCURRENCY, 2).",
)
@click.option("--verbose", "-v", is_flag=True, help="Log every job run.")
def worker_command(workers: int | None, verbose: bool) -> None:
    """Run the background jobs: intake loads, bulk jobs, webhook deliveries, clock-driven work."""
    config = current_app.config
    if huey.immediate:
        raise click.ClickException("WORKER_IMMEDIATE=1 runs jobs where they are queued")
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("huey").setLevel(logging.INFO if verbose else logging.WARNING)
    quiet = FullStorageLogFilter(current_app._get_current_object())
    for handler in logging.getLogger().handlers:
        handler.addFilter(quiet)
    workers = workers or config["WORKER_CONCURRENCY"]
    # What a worker killed before this one left: loads to take up, and the tick to start.
    taken_up = sweep_intake()
    bulk_taken_up = sweep_bulk()
    start_clock()
    db.session.remove()
    where = "Redis (REDIS_URL)" if config["REDIS_URL"] else huey.storage.filename
    click.echo(
        f"Worker: {workers} jobs at once, queue {huey.name} on {where}; "
        f"{taken_up['requeued']} interrupted loads and {bulk_taken_up['requeued']} bulk jobs "
        "queued again"
    )
    consumer = huey.create_consumer(
        workers=workers,
        worker_type="thread",
        periodic=True,
        max_delay=1.0,  # an idle worker looks for new jobs every second
        check_worker_health=True,
    )
    consumer.run()
