"""Files dropped in a local folder: `<root>/<company>/<environment>/<campaign>/<file>.csv`."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.db.private_files import private_file
from app.services.intake.drops import ASIDE, Dropped, stamped

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
        aside = stamped(dropped.name)
        os.rename(claimed, target_dir / aside)
        if report is not None and report.exists():
            shutil.copyfile(report, private_file(target_dir / f"{aside}.report.csv"))
