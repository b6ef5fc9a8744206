"""The drop location: files put in a campaign's folder (or S3 prefix) are loaded once.

Layout: `<root>/<company>/<environment>/<campaign>/<file>.csv`. After its load a file
moves to `<campaign>/done/` (or `<campaign>/failed/` when it was refused or the campaign
is unknown) under a name stamped with the time, with its report beside it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from flask import current_app

from app.extensions import db
from app.models import LoadStatus
from app.models.types import utcnow
from app.services.campaigns import find_campaign
from app.services.intake.load import refusal_report
from app.services.intake.runs import copy_of, report_file, run_load, start_load
from app.services.tenants import find_tenant

DONE, FAILED = "done", "failed"
ASIDE = frozenset({DONE, FAILED})


@dataclass(frozen=True)
class Dropped:
    """One file found in the drop location."""

    company: str
    environment: str
    campaign: str
    name: str
    local: Path  # the file's bytes on this machine
    handle: object  # what the drop needs to move it aside


@dataclass(frozen=True)
class Outcome:
    file: str
    status: str
    message: str | None


class Drop(Protocol):
    def pending(self) -> Iterator[Dropped]: ...

    def set_aside(self, dropped: Dropped, folder: str, report: Path | None) -> None: ...


def _stamped(name: str) -> str:
    return f"{utcnow().strftime('%Y%m%dT%H%M%S%fZ')}-{name}"


class FolderDrop:
    """A local folder; a file is claimed by renaming it, so two watchers never share one."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def pending(self) -> Iterator[Dropped]:
        for path in sorted(self.root.glob("*/*/*/*")):
            if not path.is_file() or path.name.startswith(".") or path.parent.name in ASIDE:
                continue
            campaign_dir = path.parent
            claimed = campaign_dir / f".{path.name}.loading"
            try:
                os.rename(path, claimed)
            except OSError:
                continue  # another watcher took it
            company, environment = campaign_dir.parent.parent.name, campaign_dir.parent.name
            yield Dropped(company, environment, campaign_dir.name, path.name, claimed, claimed)

    def set_aside(self, dropped: Dropped, folder: str, report: Path | None) -> None:
        target_dir = dropped.local.parent / folder
        target_dir.mkdir(exist_ok=True)
        stamped = _stamped(dropped.name)
        os.rename(dropped.local, target_dir / stamped)
        if report is not None and report.exists():
            shutil.copyfile(report, target_dir / f"{stamped}.report.csv")


class S3Drop:
    """A bucket and prefix; needs boto3 (the `connect` extra brings it)."""

    def __init__(self, bucket: str, prefix: str, client) -> None:
        self.bucket, self.prefix, self.client = bucket, prefix.strip("/"), client
        self._scratch = Path(tempfile.mkdtemp(prefix="intake-s3-"))

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
            local = self._scratch / parts[3]
            self.client.download_file(self.bucket, key, str(local))
            yield Dropped(parts[0], parts[1], parts[2], parts[3], local, key)

    def set_aside(self, dropped: Dropped, folder: str, report: Path | None) -> None:
        key = str(dropped.handle)
        target = f"{key.rsplit('/', 1)[0]}/{folder}/{_stamped(dropped.name)}"
        self.client.copy_object(
            Bucket=self.bucket, Key=target, CopySource={"Bucket": self.bucket, "Key": key}
        )
        self.client.delete_object(Bucket=self.bucket, Key=key)
        if report is not None and report.exists():
            self.client.upload_file(str(report), self.bucket, f"{target}.report.csv")
        dropped.local.unlink(missing_ok=True)


def _load(dropped: Dropped, scratch: Path) -> tuple[Outcome, Path | None]:
    tenant = find_tenant(current_app.config["PLATFORM_CODE"], dropped.company, dropped.environment)
    campaign = tenant and find_campaign(tenant, dropped.campaign)
    if campaign is None:
        where = f"{dropped.company}/{dropped.environment}/{dropped.campaign}"
        reason = f"no campaign {where}"
        report = scratch / f"{dropped.name}.reason.csv"
        refusal_report(report, reason)
        return Outcome(dropped.name, LoadStatus.REFUSED, reason), report
    load = start_load(campaign, dropped.name, "watch", copy_of(dropped.local))
    load = run_load(load.id)
    return Outcome(dropped.name, load.status, load.message), report_file(load)


def watch_once(drop: Drop) -> list[Outcome]:
    """Load every file waiting in the drop, once, and set each aside with its report."""
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="intake-watch-") as scratch:
        for dropped in drop.pending():
            outcome, report = _load(dropped, Path(scratch))
            db.session.rollback()  # end the read, so a long watch holds no lock between files
            folder = DONE if outcome.status == LoadStatus.DONE else FAILED
            drop.set_aside(dropped, folder, report)
            outcomes.append(outcome)
    return outcomes
