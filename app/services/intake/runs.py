"""Intake loads as records: started from the CLI, the UI (in the background) or the watcher.

Each load keeps its file, its report and its progress, so any worker process can show
how far a load has come.
"""

from __future__ import annotations

import shutil
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

from flask import Flask, current_app
from sqlalchemy import select

from app.extensions import db
from app.models import Campaign, IntakeLoad, LoadStatus
from app.models.types import utcnow
from app.services.intake.csvfile import FileRefused
from app.services.intake.load import Counts, load_file, refusal_report


def intake_folder() -> Path:
    folder = Path(current_app.instance_path) / "intake"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def stored_file(load: IntakeLoad) -> Path:
    return intake_folder() / f"{load.id}.csv"


def report_file(load: IntakeLoad) -> Path:
    return intake_folder() / f"{load.id}-report.csv"


def start_load(
    campaign: Campaign,
    file_name: str,
    source: str,
    save: Callable[[Path], object],
    *,
    dry_run: bool = False,
    all_or_nothing: bool = False,
) -> IntakeLoad:
    """Record a new load once `save(path)` has put its file where the load reads it."""
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
    )
    save(stored_file(load))
    db.session.add(load)
    db.session.commit()
    return load


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


def run_load(load_id: str, delimiter: str | None = None) -> IntakeLoad:
    """Run a recorded load to its end: done, refused (nothing written) or failed."""
    load = db.session.get(IntakeLoad, load_id)
    load.status = LoadStatus.CHECKING
    load.report_path = str(report_file(load))
    db.session.commit()

    def progress(counts: Counts) -> None:
        _record(load, counts)
        load.status = LoadStatus.LOADING
        db.session.commit()

    try:
        counts = load_file(
            load.campaign,
            stored_file(load),
            report_file(load),
            dry_run=load.dry_run,
            all_or_nothing=load.all_or_nothing,
            delimiter=delimiter,
            progress=progress,
        )
    except FileRefused as refusal:
        db.session.rollback()
        load.status, load.message = LoadStatus.REFUSED, refusal.message
        if not report_file(load).exists():  # refused before any row was read
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
    db.session.commit()
    return load


def run_in_background(app: Flask, load_id: str) -> threading.Thread:
    """Run the load in a thread of this process; its progress is in the database."""

    def work() -> None:
        with app.app_context():
            run_load(load_id)
            db.session.remove()

    thread = threading.Thread(target=work, name=f"intake-{load_id}", daemon=True)
    thread.start()
    return thread
