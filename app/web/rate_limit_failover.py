"""The API's request counts, kept when their shared storage (Redis, the database) is gone.

Counts are taken from leases of the shared count (`Leases`, app/web/rate_limits.py). When the
storage cannot be reached the limit fails open to a count of this process's own: each
process admits up to the limit by itself, so the API keeps answering and a runaway client
is still held back. The switch is logged once, not per request; the shared storage is
tried again every RETRY_SECONDS (by one request, the others meanwhile counting here), and
the first answer switches back, logged once too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from flask import Flask
from limits import RateLimitItem
from limits.errors import StorageError
from limits.storage import Storage

from app.web.rate_limits import Leases

log = logging.getLogger(__name__)

# How long a process counts by itself before it tries the shared storage again.
RETRY_SECONDS = 5.0


class LocalWindows:
    """Fixed windows counted in this process's memory."""

    def __init__(self) -> None:
        self._windows: dict[str, tuple[float, int]] = {}  # key: (ends_at, count)
        self._lock = threading.Lock()

    def hit(self, item: RateLimitItem, *identifiers: str, now: float) -> tuple[bool, float]:
        """Count one hit: whether it is within the limit, and when its window ends."""
        key = item.key_for(*identifiers)
        with self._lock:
            ends_at, count = self._windows.get(key, (now, 0))
            if now >= ends_at:
                ends_at, count = now + item.get_expiry(), 0
            within = count < item.amount
            self._windows[key] = (ends_at, count + 1 if within else count)
        return within, ends_at

    def clear(self) -> None:
        with self._lock:
            self._windows.clear()


def unreachable_errors(storage: Storage) -> tuple[type[Exception], ...]:
    """The errors by which a storage says it cannot be reached (a connection refused, a
    timeout, a database gone): its driver's own, or the library's wrapping of them."""
    errors = storage.base_exceptions
    return (StorageError, *(errors if isinstance(errors, tuple) else (errors,)))


class ApiCounts:
    """Hits of the API's limits: from leases of the shared count while its storage
    answers, else from this process's own count (see the module's docstring)."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, retry_seconds: float = RETRY_SECONDS
    ) -> None:
        self.leases, self.local = Leases(), LocalWindows()
        self.clock, self.retry_seconds = clock, retry_seconds
        self.down_since: float | None = None  # while the shared storage is unreachable
        self._retry_at = 0.0
        self._lock = threading.Lock()

    def hit(
        self,
        storage: Storage,
        item: RateLimitItem,
        *identifiers: str,
        before_writing: Callable[[], object] = lambda: None,
    ) -> tuple[bool, float]:
        """Count one hit of `item` for `identifiers`: whether it is within the limit, and
        when its window ends (epoch seconds)."""
        if self._shared_due():
            wrote = []  # whether the storage was written, or a lease in hand served

            def writing() -> None:
                wrote.append(True)
                before_writing()

            try:
                counted = self.leases.hit(storage, item, *identifiers, before_writing=writing)
            except unreachable_errors(storage) as error:
                self._went_down(error)
            else:
                if wrote:
                    self._came_back()
                return counted
        within, ends_in = self.local.hit(item, *identifiers, now=self.clock())
        return within, time.time() + (ends_in - self.clock())

    def _shared_due(self) -> bool:
        """Whether this hit goes to the shared storage: always while it is up; while it is
        down, one hit every retry_seconds."""
        if self.down_since is None:
            return True
        with self._lock:
            now = self.clock()
            if self.down_since is None or now < self._retry_at:
                return self.down_since is None
            self._retry_at = now + self.retry_seconds
            return True

    def _went_down(self, error: Exception) -> None:
        with self._lock:
            now = self.clock()
            self._retry_at = now + self.retry_seconds
            if self.down_since is not None:
                return  # still down: said when it went
            self.down_since = now
        log.warning(
            "The rate-limit storage is unreachable (%s: %s); API requests are counted per "
            "process until it answers again, tried every %g s",
            type(error).__name__,
            error,
            self.retry_seconds,
        )

    def _came_back(self) -> None:
        if self.down_since is None:
            return
        with self._lock:
            if self.down_since is None:
                return
            gone_for, self.down_since = self.clock() - self.down_since, None
        self.local.clear()
        log.warning(
            "The rate-limit storage answers again after %.0f s; API requests are counted in "
            "it again",
            gone_for,
        )


def api_counts(app: Flask) -> ApiCounts:
    """The app's API counts: this process's, shared by its threads."""
    try:
        return app.extensions["api_rate_counts"]
    except KeyError:
        return app.extensions.setdefault("api_rate_counts", ApiCounts())
