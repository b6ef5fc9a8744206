"""The drop location's files, wherever they wait (a folder: `folder_drop`; an S3 prefix:
`s3_drop`): what the watcher (`watch`) finds in a drop and asks of it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from app.models.types import utcnow

# The folders a campaign's files are moved to once their loads end.
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
    handle: object  # what the drop needs to move it aside (None: it cannot be moved)
    refusal: str | None = None  # why it is not loaded at all


class Drop(Protocol):
    def pending(self) -> Iterator[Dropped]: ...

    def where(self, dropped: Dropped) -> dict[str, Any]: ...

    def set_aside(self, dropped: Dropped, folder: str, report: Path | None) -> None: ...

    def release(self, dropped: Dropped) -> None: ...


def stamped(name: str) -> str:
    return f"{utcnow().strftime('%Y%m%dT%H%M%S%fZ')}-{name}"
