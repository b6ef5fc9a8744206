"""Which clientIds a file has shown already, kept on disk so memory stays flat."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path


class SeenIds:
    """A scratch SQLite file of clientId → the last line that carried it."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="intake-")
        self._db = sqlite3.connect(Path(self._folder.name) / "seen.db", isolation_level=None)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("CREATE TABLE seen (client_id TEXT PRIMARY KEY, line INTEGER)")

    def record(self, batch: list[tuple[str, int]]) -> list[tuple[int, str, int]]:
        """Record (clientId, line) pairs in file order; return (earlier line, id, later line).

        `self.earlier_batches` then holds the clientIds of this batch that an earlier
        batch carried already.
        """
        repeats = []
        first: dict[str, int] = {}
        latest: dict[str, int] = {}
        for client_id, line in batch:
            if client_id in latest:
                repeats.append((latest[client_id], client_id, line))
            first.setdefault(client_id, line)
            latest[client_id] = line
        ids = list(latest)
        self.earlier_batches: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for client_id, earlier in self._db.execute(
                f"SELECT client_id, line FROM seen WHERE client_id IN ({marks})",  # noqa: S608
                chunk,
            ):
                repeats.append((earlier, client_id, first[client_id]))
                self.earlier_batches.add(client_id)
        self._db.execute("BEGIN")
        self._db.executemany("INSERT OR REPLACE INTO seen VALUES (?, ?)", latest.items())
        self._db.execute("COMMIT")
        return repeats

    def close(self) -> None:
        self._db.close()
        self._folder.cleanup()

    def __enter__(self) -> SeenIds:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()
