"""The drop location: files put in a campaign's folder (or S3 prefix) are loaded once.

Layout: `<root>/<company>/<environment>/<campaign>/<file>.csv`. The watcher claims a file
and hands its load to the worker; when the load ends the worker moves the file to
`<campaign>/done/` (or `<campaign>/failed/` when it was refused), under a name stamped with
the time, with its report beside it. A file for an unknown campaign goes to `failed/` at once.
The drops themselves: a folder (`folder_drop`) or an S3 prefix (`s3_drop`), as `drops` says.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import current_app

from app.extensions import db
from app.models import IntakeLoad, LoadStatus
from app.services.actors import Actor
from app.services.campaigns.catalogue import find_campaign
from app.services.errors import Unavailable
from app.services.intake.drops import DONE, FAILED, Drop, Dropped
from app.services.intake.folder_drop import FolderDrop
from app.services.intake.load import refusal_report
from app.services.intake.runs import UNFINISHED, aside_file, copy_of, report_file, start_load
from app.services.intake.s3_drop import S3Drop, s3_client
from app.services.tenants.setup import find_tenant

# Who starts the load of a dropped file: the watcher, whoever runs it.
WATCHER = Actor.system("intake-watch")
WAITING = "waiting"
NOT_QUEUED = (
    "background work is unavailable (its job queue cannot be reached); "
    "the file stays in the drop for the next look"
)


@dataclass(frozen=True)
class Outcome:
    file: str
    status: str
    message: str | None


def _drop_at(where: dict[str, Any]) -> tuple[Drop, Dropped]:
    """The drop and the dropped file that `Drop.where` described."""
    name = where["name"]
    if where["kind"] == "s3":
        drop: Drop = S3Drop(where["bucket"], "", s3_client())
        return drop, Dropped("", "", "", name, Path(name), where["key"])  # no local copy
    claimed = Path(where["path"])
    return FolderDrop(claimed.parent), Dropped("", "", "", name, claimed, claimed)


def move_aside(load_id: str) -> bool:
    """Once a dropped file's load has ended, move the file aside (done/ or failed/) with
    its report beside it; False when there is nothing (yet) to move."""
    pending = aside_file(load_id)
    load = db.session.get(IntakeLoad, load_id)
    if not pending.exists() or (load is not None and load.status in UNFINISHED):
        return False
    drop, dropped = _drop_at(json.loads(pending.read_text(encoding="utf-8")))
    folder = DONE if load is not None and load.status == LoadStatus.DONE else FAILED
    drop.set_aside(dropped, folder, report_file(load) if load is not None else None)
    pending.unlink()
    return True


def _load(drop: Drop, dropped: Dropped, scratch: Path) -> tuple[Outcome, Path | None]:
    """Hand the file's load to the worker; or, for a refused file or an unknown campaign,
    the reason."""
    tenant = find_tenant(current_app.config["PLATFORM_CODE"], dropped.company, dropped.environment)
    campaign = tenant and find_campaign(tenant, dropped.campaign)
    reason = dropped.refusal
    if reason is None and campaign is None:
        reason = f"no campaign {dropped.company}/{dropped.environment}/{dropped.campaign}"
    if reason is not None:
        report = scratch / f"{dropped.name}.reason.csv"
        refusal_report(report, reason)
        return Outcome(dropped.name, LoadStatus.REFUSED, reason), report
    load = start_load(
        campaign,
        dropped.name,
        "watch",
        copy_of(dropped.local),
        actor=WATCHER,
        in_worker=True,
        aside=drop.where(dropped),
    )
    db.session.refresh(load)  # queued, or already ended when jobs run in this process
    return Outcome(dropped.name, load.status, load.message), None


def watch_once(drop: Drop) -> list[Outcome]:
    """Hand every file waiting in the drop to the worker, once; each is moved aside with
    its report when its load ends (a refused file, or one for an unknown campaign, at once).
    While the job queue cannot be reached, files stay in the drop, unclaimed, for a later look."""
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="intake-watch-") as scratch:
        for dropped in drop.pending():
            try:
                outcome, reason = _load(drop, dropped, Path(scratch))
            except Unavailable:  # the job queue is down: nothing kept, the file left for later
                db.session.rollback()
                drop.release(dropped)
                outcomes.append(Outcome(dropped.name, WAITING, NOT_QUEUED))
                break  # the files after it stay unclaimed too
            db.session.rollback()  # end the read, so a long watch holds no lock between files
            if reason is not None and dropped.handle is not None:
                drop.set_aside(dropped, FAILED, reason)
            if dropped.handle is not None and dropped.local != dropped.handle:
                dropped.local.unlink(missing_ok=True)  # the copy; a load keeps its own
            outcomes.append(outcome)
    return outcomes
