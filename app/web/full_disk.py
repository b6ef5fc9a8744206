"""A full disk: a write is refused with 507 Insufficient Storage, reads go on, and the log
says so once a minute with how many writes it refused, not with a traceback per request.

What counts as full is app/db/full_disk.py's `storage_full`.
"""

from __future__ import annotations

import threading

from werkzeug.exceptions import HTTPException

NOTICE_SECONDS = 60.0


class InsufficientStorage(HTTPException):
    code = 507
    description = (
        "The server's storage is full, so nothing was changed. Reading still works; "
        "try again once space has been freed."
    )


class FullStorageNotices:
    """Counts the writes refused for a full storage; says so once per `interval` seconds."""

    def __init__(self, interval: float = NOTICE_SECONDS) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._said_at: float | None = None
        self._refused = 0

    def refused(self, now: float) -> int | None:
        """Count one refused write; how many to report when a notice is due, else None."""
        with self._lock:
            self._refused += 1
            if self._said_at is not None and now - self._said_at < self.interval:
                return None
            self._said_at, count, self._refused = now, self._refused, 0
            return count
