"""Whether an error says the storage is full: SQLite's SQLITE_FULL ("database or disk is
full"), PostgreSQL's disk_full (SQLSTATE 53100), or a file write's ENOSPC or EDQUOT (an intake
upload, a report), and the notices that say so once a minute with a count, never a
traceback per failure. The web side's answer to it is app/web/full_disk.py; the worker's and
the commands' are in app/jobs/full_disk.py and app/cli/__init__.py."""

from __future__ import annotations

import errno
import threading

SQLITE_FULL = 13
PG_DISK_FULL = "53100"
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
NOTICE_SECONDS = 60.0


def storage_full(error: BaseException | None) -> bool:
    """Whether `error`, or an error it came from, says the storage is full."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in _FULL_ERRNOS:
            return True
        if getattr(error, "sqlite_errorcode", None) == SQLITE_FULL:
            return True
        if getattr(error, "sqlstate", None) == PG_DISK_FULL:
            return True
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
    return False


def cause(error: BaseException) -> str:
    """The first line of what the database or the file system said."""
    origin = getattr(error, "orig", None) or error
    text = str(origin).strip().splitlines()
    return text[0] if text else type(origin).__name__


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
