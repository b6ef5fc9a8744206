"""SQLite writers take turns for the write lock, in a queue that wakes the next at once, and
the write-ahead log is checkpointed beside them (app/db/sqlite_writes.py)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from app.api.preview import PREFIX
from app.db import sqlite_writes
from app.db.sqlite_writes import WriteTurns
from app.db.transactions import take_write_lock
from app.extensions import db

ROOT = Path(__file__).resolve().parents[2]


def test_the_threads_of_a_process_write_one_at_a_time(tmp_path):
    turns = WriteTurns(tmp_path / "one.db", timeout=10)
    inside: list[int] = []
    overlapped = []

    def writer(n: int) -> None:
        for _ in range(30):
            holder = object()
            turns.take(holder)
            inside.append(n)
            overlapped.append(len(inside) > 1)
            time.sleep(0.0002)
            inside.remove(n)
            turns.end(holder)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(overlapped) == 120 and not any(overlapped)


HOLD_A_TURN = """
import sys, time
from pathlib import Path
from app.db.sqlite_writes import WriteTurns
turns = WriteTurns(Path(sys.argv[1]), timeout=10)
turns.take("other process")
print("taken", flush=True)
time.sleep(float(sys.argv[2]))
turns.end("other process")
"""


def test_another_process_waits_for_the_turn(tmp_path):
    database = tmp_path / "shared.db"
    with subprocess.Popen(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", HOLD_A_TURN, str(database), "0.5"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    ) as other:  # fmt: skip
        assert other.stdout.readline().strip() == "taken"
        turns = WriteTurns(database, timeout=10)
        started = time.monotonic()
        turns.take("this process")
        waited = time.monotonic() - started
        turns.end("this process")
    assert 0.2 < waited < 5


def test_a_turn_not_given_within_the_timeout_is_given_up(tmp_path):
    turns = WriteTurns(tmp_path / "busy.db", timeout=0.05)
    turns.take("first")
    waiting = threading.Thread(target=lambda: (turns.take("second"), turns.end("second")))
    started = time.monotonic()
    waiting.start()
    waiting.join(timeout=5)
    assert not waiting.is_alive() and time.monotonic() - started < 2
    turns.end("first")  # still the first's turn to end: the second never had it
    turns.take("third")
    turns.end("third")


def test_a_thread_whose_other_connection_has_the_turn_does_not_wait_for_it(tmp_path):
    turns = WriteTurns(tmp_path / "own.db", timeout=10)
    turns.take("the load's connection")  # committed, not yet back in the pool
    started = time.monotonic()
    turns.take("a second connection of the same thread")
    assert time.monotonic() - started < 1
    turns.end("a second connection of the same thread")  # never had it: nothing to end
    waiting = threading.Thread(target=lambda: (turns.take("another"), turns.end("another")))
    waiting.start()
    waiting.join(timeout=0.3)
    assert waiting.is_alive()  # another thread still waits for the turn
    turns.end("the load's connection")
    waiting.join(timeout=5)
    assert not waiting.is_alive()


@pytest.fixture
def sqlite(app):
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's write-ahead log")
    return app


def _wal_index() -> tuple[int, int]:
    """The write-ahead log's last frame and how many of its frames were copied back into the
    database (mxFrame and nBackfill of its wal-index, sqlite.org/walformat.html).

    Read by another process: closing a file drops every POSIX lock its process holds on it,
    so a -shm opened and closed here would lose SQLite's locks on the wal-index, and the next
    process to open the database would truncate the index under this one's mapping (SIGBUS).
    """
    header = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", "import sys; sys.stdout.buffer.write(open(sys.argv[1], 'rb')"
         ".read(100))", f"{db.engine.url.database}-shm"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    return int.from_bytes(header[16:20], sys.byteorder), int.from_bytes(
        header[96:100], sys.byteorder
    )


def _wal_salts() -> bytes:
    """The salts of the write-ahead log's header, new each time the log starts over."""
    return Path(f"{db.engine.url.database}-wal").read_bytes()[16:24]


def test_the_app_s_connections_leave_checkpoints_to_the_checkpoints_thread(sqlite):
    with db.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0


def test_the_log_is_copied_back_beside_the_writers_and_then_starts_over(sqlite, api, monkeypatch):
    monkeypatch.setattr(sqlite_writes, "CHECKPOINT_AFTER", 0.01)
    monkeypatch.setattr(sqlite_writes, "WAL_LIMIT", 0)  # every checkpoint to its end, in a turn
    for n in range(3):
        api.add(f"C{n}", {"Name": f"Customer {n}"})
    deadline = time.monotonic() + 5
    while (index := _wal_index())[1] < index[0] and time.monotonic() < deadline:
        time.sleep(0.02)
    frames, copied = index
    assert copied == frames > 0  # copied by the thread: no connection of the app checkpoints
    salts = _wal_salts()
    api.add("C99", {"Name": "One more"})
    assert _wal_salts() != salts  # the log started over, instead of growing
    assert db.session.scalar(text("SELECT count(*) FROM tasks")) == 4


def test_a_write_before_the_write_lock_of_a_reads_first_view_is_refused(sqlite):
    with sqlite.test_request_context(f"{PREFIX}/addOrUpdateCampaignRecord", method="POST"):
        sqlite.preprocess_request()  # a reads_first view: its transaction begins as a reader
        db.session.execute(
            text("INSERT INTO rate_limits (key, count, expires_at) VALUES ('k', 1, 0)")
        )
        with pytest.raises(RuntimeError, match="before take_write_lock"):
            take_write_lock(db.session)
        db.session.rollback()
    assert db.session.scalar(text("SELECT count(*) FROM rate_limits")) == 0
