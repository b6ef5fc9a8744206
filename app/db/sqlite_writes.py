"""How the app's writers share one SQLite database: turns for its write lock, and checkpoints
beside them rather than in a writer's commit.

SQLite has one write lock. A writer that finds it taken sleeps and retries in growing steps
(up to 100 ms each), so under a steady stream of writes the waiters sleep on while the lock
is free, and their waits pile up. And the commit that grows the write-ahead log past 1,000
pages copies it back into the database and flushes both to disk (a checkpoint), making that
writer, and every writer queued behind it, wait for the disk.

So the app's writers take turns (`WriteTurns`) just before BEGIN IMMEDIATE, in a queue that
wakes the next one as soon as a turn ends; and its connections never checkpoint in a
commit (`wal_autocheckpoint=0`): a thread of each writing process does (`Checkpoints`),
beside the writers, and now and then in a turn of its own so that the log starts over.
Other programs writing to the database are waited for by SQLite as before.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import threading
import time
import weakref
from pathlib import Path

from sqlalchemy.engine import Engine

# A checkpoint follows the end of a write turn by this long (seconds), covering the turns
# that end meanwhile; the checkpoints' thread ends after this long without any.
CHECKPOINT_AFTER = 0.1
CHECKPOINTS_IDLE = 10.0
# A log holding more than this many bytes is checkpointed to its end in a write turn.
WAL_LIMIT = 64 * 1024 * 1024

log = logging.getLogger(__name__)
# Held while a process makes its own locks, files and threads (the first to need them does).
_SETTING_UP = threading.Lock()


class Checkpoints:
    """The write-ahead log of one database copied back into it from a thread of its own.

    PASSIVE checkpoints: the pages no reader still needs are copied and flushed to disk
    while the writers go on. SQLite starts the log over only once all of it was copied, which
    never happens while commits keep coming; so a log grown past WAL_LIMIT is checkpointed
    once more in a write turn (the writers wait for that flush). The thread starts at a
    process's first write turn and ends when the process stopped writing.
    """

    def __init__(self, path: Path, turns: WriteTurns) -> None:
        self._uri = f"{path.absolute().as_uri()}?mode=rw"  # never creates the file
        self._turns = turns
        self._pid: int | None = None

    def _for_this_process(self) -> None:
        if self._pid == os.getpid():
            return
        with _SETTING_UP:  # a thread does not survive fork
            if self._pid != os.getpid():
                self._lock = threading.Lock()
                self._written = threading.Event()
                self._thread: threading.Thread | None = None
                self._pid = os.getpid()  # last: the others use what is set once they see it

    def written(self) -> None:
        """A write turn ended: checkpoint soon."""
        self._for_this_process()
        self._written.set()
        if self._thread is None or not self._thread.is_alive():
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(
                        target=self._run, name="sqlite-checkpoints", daemon=True
                    )
                    self._thread.start()

    def _run(self) -> None:
        try:
            connection = sqlite3.connect(self._uri, uri=True, isolation_level=None)
        except sqlite3.Error:  # the database is gone (a test's): nothing to checkpoint
            return
        try:
            page = connection.execute("PRAGMA page_size").fetchone()[0]
            while self._written.wait(CHECKPOINTS_IDLE):
                time.sleep(CHECKPOINT_AFTER)
                self._written.clear()
                _busy, pages, _copied = _checkpoint(connection)
                if pages * page > WAL_LIMIT:
                    self._turns.take(connection)
                    try:
                        _checkpoint(connection)
                    finally:
                        self._turns.end(connection, checkpointed=True)
        except sqlite3.Error:
            log.exception(
                "A checkpoint of %s failed; the next write turn starts another", self._uri
            )
        finally:
            connection.close()


def _checkpoint(connection: sqlite3.Connection) -> tuple[int, int, int]:
    """A PASSIVE checkpoint: whether it was kept from copying the log to its end, the log's
    pages, and how many of them were copied."""
    return connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()


class WriteTurns:
    """The app's writers to one SQLite database take turns here, before BEGIN IMMEDIATE.

    A process's writers queue on a lock of their own, and the one at its head on an
    exclusive flock of a file beside the database, shared by every process of the host:
    both wake the next writer as soon as a turn ends, when the writer's connection goes back
    to the pool (its transaction ended). A thread not given its turn within the busy timeout
    goes on to SQLite's own wait, as it would without turns.
    """

    def __init__(self, database: Path | None, timeout: float) -> None:
        self._path = database and database.with_name(f"{database.name}-write-turns")
        self._timeout = timeout
        self._checkpoints = database and Checkpoints(database, self)
        self._pid: int | None = None

    def _for_this_process(self) -> None:
        if self._pid == os.getpid():
            return
        with _SETTING_UP:  # a lock or a file inherited through fork is shared with the parent
            if self._pid != os.getpid():
                self._queue = threading.Lock()
                self._file = _open_private(self._path) if self._path else None
                self._holder = None
                self._holding_thread: int | None = None
                self._pid = os.getpid()  # last: the others use what is set once they see it

    def take(self, holder) -> None:
        """Wait for the turn of `holder` (a DBAPI connection) to write.

        A thread whose other connection has the turn does not wait for it: the turn would
        end only when that connection goes back to the pool, which this thread is not doing
        meanwhile. It goes straight to SQLite's lock (free once that connection committed).
        """
        self._for_this_process()
        if self._holder is holder or self._holding_thread == threading.get_ident():
            return
        if not self._queue.acquire(timeout=self._timeout):
            return
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_EX)
        self._holder = holder
        self._holding_thread = threading.get_ident()

    def end(self, holder, checkpointed: bool = False) -> None:
        """End the turn of `holder`, if it has it."""
        if self._pid != os.getpid() or self._holder is not holder:
            return
        self._holder = None
        self._holding_thread = None
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
        self._queue.release()
        if self._checkpoints is not None and not checkpointed:
            self._checkpoints.written()


def _open_private(path: Path) -> int:
    """The file at `path`, created with mode 0600 when absent, open for flock."""
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


# Each SQLite engine's turns, set up with the engine (app/db/engines.py).
_TURNS: weakref.WeakKeyDictionary[Engine, WriteTurns] = weakref.WeakKeyDictionary()


def start_write_turns(engine: Engine, database: Path | None, timeout: float) -> WriteTurns:
    """The turns of the writers to `engine`'s database, from now on."""
    turns = _TURNS[engine] = WriteTurns(database, timeout)
    return turns


def write_turns(engine: Engine) -> WriteTurns:
    """The turns of the writers to `engine`'s database."""
    return _TURNS[engine]
