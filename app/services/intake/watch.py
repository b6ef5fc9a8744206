"""The drop location: files put in a campaign's folder (or S3 prefix) are loaded once.

Layout: `<root>/<company>/<environment>/<campaign>/<file>.csv`. The watcher claims a file
and hands its load to the worker; when the load ends the worker moves the file to
`<campaign>/done/` (or `<campaign>/failed/` when it was refused), under a name stamped with
the time, with its report beside it. A file for an unknown campaign goes to `failed/` at once.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from flask import current_app

from app.db.private_files import private_file
from app.extensions import db
from app.models import IntakeLoad, LoadStatus
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns.setup import find_campaign
from app.services.errors import Unavailable
from app.services.intake.load import refusal_report
from app.services.intake.runs import UNFINISHED, aside_file, copy_of, report_file, start_load
from app.services.tenants.setup import find_tenant

# Who starts the load of a dropped file: the watcher, whoever runs it.
WATCHER = Actor.system("intake-watch")
DONE, FAILED = "done", "failed"
ASIDE = frozenset({DONE, FAILED})
WAITING = "waiting"
NOT_QUEUED = (
    "background work is unavailable (its job queue cannot be reached); "
    "the file stays in the drop for the next look"
)


@dataclass(frozen=True)
class Dropped:
    """One file found in the drop location."""

    company: str
    environment: str
    campaign: str
    name: str
    local: Path  # the file's bytes on this machine
    handle: object  # what the drop needs to move it aside (None: it cannot be moved)
    refusal: str | None = None  # why it is not loaded at all


@dataclass(frozen=True)
class Outcome:
    file: str
    status: str
    message: str | None


class Drop(Protocol):
    def pending(self) -> Iterator[Dropped]: ...

    def where(self, dropped: Dropped) -> dict[str, Any]: ...

    def set_aside(self, dropped: Dropped, folder: str, report: Path | None) -> None: ...

    def release(self, dropped: Dropped) -> None: ...


def _stamped(name: str) -> str:
    return f"{utcnow().strftime('%Y%m%dT%H%M%S%fZ')}-{name}"


LINKED_FILE = "a symbolic link, not a file: only plain files in the drop folder are loaded"
LINKED_FOLDER = "a symbolic link to a folder: the watcher does not follow links"


def _plain_copy(claimed: Path, copy: Path, root: Path) -> str | None:
    """Copy the claimed file, opened without following a link; or why it is not loaded."""
    try:
        fd = os.open(claimed, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        return LINKED_FILE if error.errno == errno.ELOOP else f"the file cannot be read: {error}"
    with open(fd, "rb") as source:
        if not claimed.resolve().is_relative_to(root.resolve()):
            return "the file is outside the drop folder (a folder on its way is a link)"
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return "not a plain file: only plain files in the drop folder are loaded"
        if status.st_nlink > 1:
            return "the file has other names (hard links): only plain files are loaded"
        with private_file(copy).open("wb") as target:
            shutil.copyfileobj(source, target)
    return None


class FolderDrop:
    """A local folder; a file is claimed by renaming it, so two watchers never share one.

    Links are never followed: a linked file is set aside as refused (its target is never
    read), a linked folder is reported once and left alone, and a claimed file is opened
    with O_NOFOLLOW and copied before it is loaded, so it cannot be swapped for a link.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._scratch: Path | None = None  # made when the first file is claimed
        self._reported: set[Path] = set()  # linked folders already reported

    def _campaign_folders(self) -> Iterator[Path | Dropped]:
        """Each real campaign folder, and (once) a refusal for each linked folder on the way."""
        level = [self.root] if self.root.is_dir() else []
        for _depth in ("company", "environment", "campaign"):
            below, linked = [], []
            for parent in level:
                with os.scandir(parent) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            below.append(Path(entry.path))
                        elif entry.is_symlink() and entry.is_dir():
                            linked.append(Path(entry.path))
            for path in sorted(set(linked) - self._reported):
                self._reported.add(path)
                where = str(path.relative_to(self.root))
                yield Dropped("", "", "", where, path, None, LINKED_FOLDER)
            level = sorted(below)
        yield from level

    def pending(self) -> Iterator[Dropped]:
        for campaign_dir in self._campaign_folders():
            if isinstance(campaign_dir, Dropped):
                yield campaign_dir
                continue
            with os.scandir(campaign_dir) as entries:
                names = sorted(e.name for e in entries if e.is_file() or e.is_symlink())
            for name in names:
                if not name.startswith(".") and name not in ASIDE:
                    dropped = self._claim(campaign_dir, name)
                    if dropped is not None:
                        yield dropped

    def _claim(self, campaign_dir: Path, name: str) -> Dropped | None:
        claimed = campaign_dir / f".{name}.loading"
        try:
            os.rename(campaign_dir / name, claimed)
        except OSError:
            return None  # another watcher took it
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="intake-drop-"))
        copy = self._scratch / name
        refusal = _plain_copy(claimed, copy, self.root)
        company, environment = campaign_dir.parent.parent.name, campaign_dir.parent.name
        return Dropped(company, environment, campaign_dir.name, name, copy, claimed, refusal)

    def where(self, dropped: Dropped) -> dict[str, Any]:
        """What moving the claimed file aside later needs, as plain values."""
        return {"kind": "folder", "path": str(dropped.handle), "name": dropped.name}

    def release(self, dropped: Dropped) -> None:
        """Give a claimed file back to the drop, for the next look (its copy goes)."""
        if dropped.handle is None:
            return
        claimed = Path(str(dropped.handle))
        os.rename(claimed, claimed.parent / dropped.name)
        dropped.local.unlink(missing_ok=True)

    def set_aside(self, dropped: Dropped, folder: str, report: Path | None) -> None:
        claimed = Path(str(dropped.handle))
        target_dir = claimed.parent / folder
        target_dir.mkdir(exist_ok=True)
        stamped = _stamped(dropped.name)
        os.rename(claimed, target_dir / stamped)
        if report is not None and report.exists():
            shutil.copyfile(report, private_file(target_dir / f"{stamped}.report.csv"))


class S3Drop:
    """A bucket and prefix; needs boto3 (the `connect` extra brings it)."""

    def __init__(self, bucket: str, prefix: str, client) -> None:
        self.bucket, self.prefix, self.client = bucket, prefix.strip("/"), client
        self._scratch: Path | None = None  # made when the first object is downloaded

    def _keys(self) -> Iterator[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=f"{self.prefix}/" if self.prefix else ""
        )
        for page in pages:
            for entry in page.get("Contents", []):
                yield entry["Key"]

    def pending(self) -> Iterator[Dropped]:
        start = len(self.prefix) + 1 if self.prefix else 0
        for key in sorted(self._keys()):
            parts = key[start:].split("/")
            if len(parts) != 4 or not parts[3] or parts[3].startswith("."):
                continue
            if self._scratch is None:
                self._scratch = Path(tempfile.mkdtemp(prefix="intake-s3-"))
            local = self._scratch / parts[3]
            self.client.download_file(self.bucket, key, str(local))
            yield Dropped(parts[0], parts[1], parts[2], parts[3], local, key)

    def where(self, dropped: Dropped) -> dict[str, Any]:
        return {"kind": "s3", "bucket": self.bucket, "key": dropped.handle, "name": dropped.name}

    def release(self, dropped: Dropped) -> None:
        """The object stays where it is, for the next look; only its download goes."""
        dropped.local.unlink(missing_ok=True)

    def set_aside(self, dropped: Dropped, folder: str, report: Path | None) -> None:
        key = str(dropped.handle)
        target = f"{key.rsplit('/', 1)[0]}/{folder}/{_stamped(dropped.name)}"
        self.client.copy_object(
            Bucket=self.bucket, Key=target, CopySource={"Bucket": self.bucket, "Key": key}
        )
        self.client.delete_object(Bucket=self.bucket, Key=key)
        if report is not None and report.exists():
            self.client.upload_file(str(report), self.bucket, f"{target}.report.csv")


def s3_client() -> Any:
    """The S3 client the worker moves dropped objects aside with (boto3's defaults)."""
    import boto3

    return boto3.client("s3")


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
