"""Intake loads as records: started from the CLI (run there), or from the UI or the drop
watcher (handed to the worker).

Each load keeps its file, its report and its progress, so any process can show how far a
load has come. A load commits its counts with each batch it writes, so a run cut off
mid-way (a worker killed) is taken up again from its last batch by the next run.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flask import current_app
from sqlalchemy import select

from app.db.private_files import private_file
from app.extensions import db
from app.jobs.queue import QueueUnavailable, enqueue
from app.models import Campaign, IntakeLoad, LoadStatus
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.csv_cells import reason_text
from app.services.errors import Unavailable
from app.services.intake.file_reader import FileRefused
from app.services.intake.load import Counts, load_file, refusal_report
from app.services.intake.load_trail import load_actor, load_finished, record_starter


def intake_folder() -> Path:
    """Where loads keep their files and reports: tenant data, readable by this account only."""
    folder = Path(current_app.instance_path) / "intake"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def stored_file(load: IntakeLoad) -> Path:
    return intake_folder() / f"{load.id}.csv"


def report_file(load: IntakeLoad) -> Path:
    return intake_folder() / f"{load.id}-report.csv"


ASIDE = ".aside.json"
UNFINISHED = (LoadStatus.QUEUED, LoadStatus.CHECKING, LoadStatus.LOADING)
WORKER_SOURCES = ("upload", "watch")  # the CLI runs its loads itself, in the foreground


def aside_file(load_id: str) -> Path:
    """Where a dropped file's load keeps what moving the file aside afterwards needs."""
    return intake_folder() / f"{load_id}{ASIDE}"


def start_load(
    campaign: Campaign,
    file_name: str,
    source: str,
    save: Callable[[Path], object],
    *,
    actor: Actor,
    dry_run: bool = False,
    all_or_nothing: bool = False,
    in_worker: bool = False,
    aside: Mapping[str, Any] | None = None,
) -> IntakeLoad:
    """Record a new load, started by `actor`, once `save(path)` has put its file where the
    load reads it; with `in_worker`, hand it to the worker to run (Unavailable, and nothing
    kept, when the job queue cannot be reached). `aside`: where the dropped file it came
    from is, to be moved aside when the load ends."""
    load = IntakeLoad(
        id=str(uuid.uuid4()),
        campaign=campaign,
        file_name=Path(file_name).name[:255] or "upload.csv",
        source=source,
        status=LoadStatus.QUEUED,
        dry_run=dry_run,
        all_or_nothing=all_or_nothing,
        rows_total=0,
        rows_done=0,
        added=0,
        updated=0,
        rejected=0,
        superseded=0,
        normalised=0,
    )
    record_starter(load, actor)
    save(private_file(stored_file(load)))  # `save` writes into the file made 0600
    if aside is not None:
        private_file(aside_file(load.id)).write_text(json.dumps(aside), encoding="utf-8")
    db.session.add(load)
    load_id = load.id
    db.session.commit()
    if in_worker:
        _hand_to_worker(load, load_id)
    return load


NO_WORKER = (
    "Background work is unavailable right now (its job queue cannot be reached), so the "
    "file was not loaded and not kept. Try again in a few minutes."
)


def _hand_to_worker(load: IntakeLoad, load_id: str) -> None:
    """Queue the load's job; when the queue cannot take it, forget the load (its record and
    files) and raise Unavailable: a load is queued, or it is not kept at all.

    The record is committed first, since the worker may take the job at once. Should a job
    reach the queue after all (a reply lost), it finds no load and does nothing.
    """
    try:
        enqueue("intake.load", load_id)
    except QueueUnavailable as error:
        current_app.logger.warning("Intake load %s not queued: %s", load_id, error)
        db.session.rollback()
        for path in (stored_file(load), aside_file(load_id)):
            path.unlink(missing_ok=True)
        db.session.delete(load)
        db.session.commit()
        raise Unavailable(NO_WORKER) from error


def unfinished_loads() -> list[IntakeLoad]:
    """Loads handed to the worker that have not reached their end."""
    return list(
        db.session.scalars(
            select(IntakeLoad).where(
                IntakeLoad.status.in_(UNFINISHED), IntakeLoad.source.in_(WORKER_SOURCES)
            )
        )
    )


def pending_asides() -> list[str]:
    """Ids of loads whose dropped file still waits to be moved aside."""
    return sorted(path.name.removesuffix(ASIDE) for path in intake_folder().glob(f"*{ASIDE}"))


def copy_of(source: Path) -> Callable[[Path], object]:
    """A `save` for start_load that copies a file already on this machine."""
    return lambda target: shutil.copyfile(source, target)


def recent_loads(campaign: Campaign, limit: int = 10) -> list[IntakeLoad]:
    """The campaign's latest loads, newest first."""
    return list(
        db.session.scalars(
            select(IntakeLoad)
            .filter_by(campaign_id=campaign.id)
            .order_by(IntakeLoad.created_at.desc())
            .limit(limit)
        )
    )


def _record(load: IntakeLoad, counts: Counts) -> None:
    load.rows_total, load.rows_done = counts.total, counts.rows
    load.added, load.updated = counts.added, counts.updated
    load.rejected, load.superseded = counts.rejected, counts.superseded
    load.normalised = counts.normalised


def _committed(load: IntakeLoad) -> Counts | None:
    """What an interrupted run committed, when it got as far as writing a batch."""
    if load.status != LoadStatus.LOADING or not load.rows_done:
        return None
    return Counts(
        total=load.rows_total,
        rows=load.rows_done,
        added=load.added,
        updated=load.updated,
        rejected=load.rejected,
        superseded=load.superseded,
        normalised=load.normalised,
    )


def run_load(load_id: str, delimiter: str | None = None) -> IntakeLoad | None:
    """Run a recorded load to its end: done, refused (nothing written) or failed. A load
    an interrupted run left part-written goes on from its last batch; a finished one (or
    none) is left as it is."""
    load = db.session.get(IntakeLoad, load_id)
    if load is None or load.status not in UNFINISHED:
        return load
    resume = _committed(load)
    if resume is None:  # nothing written yet: from the start
        load.status = LoadStatus.CHECKING
        load.report_path = str(private_file(report_file(load)))
        db.session.commit()

    def progress(counts: Counts) -> None:
        _record(load, counts)  # committed by the load with the batch it counts
        load.status = LoadStatus.LOADING

    try:
        counts = load_file(
            load.campaign,
            stored_file(load),
            report_file(load),
            dry_run=load.dry_run,
            all_or_nothing=load.all_or_nothing,
            delimiter=delimiter,
            progress=progress,
            actor=load_actor(load),
            resume=resume,
        )
    except FileRefused as refusal:
        db.session.rollback()
        load.status, load.message = LoadStatus.REFUSED, reason_text(refusal.message)
        if not report_file(load).stat().st_size:  # refused before any row was read
            refusal_report(report_file(load), refusal.message)
        if refusal.counts is not None:
            _record(load, refusal.counts)
            load.added = load.updated = 0  # what would have been: nothing was written
    except Exception:
        db.session.rollback()
        current_app.logger.exception("Intake load %s failed", load_id)
        load.status = LoadStatus.FAILED
        load.message = "the load stopped on an unexpected error; rows written so far are kept"
    else:
        _record(load, counts)
        load.status = LoadStatus.DONE
        ignored = ", ".join(counts.ignored_columns)
        load.message = f"ignored columns: {ignored}" if ignored else None
    load.finished_at = utcnow()
    load_finished(load)  # its record and event, committed with the final status
    db.session.commit()
    return load
