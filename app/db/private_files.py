"""Files no other account of the machine may read: the SQLite database, intake files, the
job queue's file."""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path


def private_file(path: Path) -> Path:
    """Create `path` empty with mode 0600 unless it exists; whatever later opens it for
    writing keeps that mode, so no other account of the machine can read it."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    return path
