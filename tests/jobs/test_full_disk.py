"""A full disk in the worker and the commands (app/jobs/full_disk.py, app/cli/common.py):
the clock's jobs and huey's own failures are said once a minute with a count and no
traceback, and a command ends in one clear line with a non-zero exit."""

from __future__ import annotations

import logging

import pytest

from app.extensions import db
from app.jobs import clock, full_disk
from app.jobs.full_disk import FullStorageLogFilter
from app.services.actors import Actor
from app.services.dnc.numbers import add_numbers
from tests.web.test_full_disk import full

# Enough rows to need new pages of the file (one row may fit in a page it has).
MANY_NUMBERS = [f"+1415555{n:04d}" for n in range(400)]


@pytest.fixture
def monotonic(monkeypatch):
    """The notices' clock, moved by the test."""
    now = [1000.0]
    monkeypatch.setattr(full_disk.time, "monotonic", lambda: now[0])
    return now


def _notices(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "storage is full" in r.getMessage()]


def test_a_tick_on_a_full_disk_says_so_once_a_minute_without_a_traceback(
    app, acme, caplog, monotonic
):
    def list_a_number(_now):
        add_numbers(acme, MANY_NUMBERS, actor=Actor.operator())
        db.session.flush()

    with full(db.engine), caplog.at_level(logging.ERROR):
        for _ in range(30):  # a minute of two-second ticks
            clock.run_all([list_a_number], clock.utcnow())
        monotonic[0] += 61
        clock.run_all([list_a_number], clock.utcnow())
    said = _notices(caplog)
    assert [r.getMessage().rsplit("; ", 1)[1] for r in said] == [
        "1 failed since the last notice",
        "30 failed since the last notice",
    ]
    assert all(r.exc_info is None and r.exc_text is None for r in said)
    assert "Worker job" not in caplog.text and "Traceback" not in caplog.text


def test_any_other_failure_of_a_tick_keeps_its_traceback(app, caplog):
    def broken(_now):
        raise ValueError("not a storage problem")

    with caplog.at_level(logging.ERROR):
        clock.run_all([broken], clock.utcnow())
    (record,) = [r for r in caplog.records if r.getMessage() == "Worker job broken failed"]
    assert record.exc_info is not None


def test_huey_s_own_records_of_a_full_disk_are_one_line_a_minute(app, monotonic):
    seen: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = seen.append
    handler.addFilter(FullStorageLogFilter(app))
    logger = logging.getLogger("huey.consumer.test-full-disk")
    logger.addHandler(handler)
    logger.propagate = False
    full_error = OSError(28, "No space left on device")
    try:
        for _ in range(5):
            try:
                raise full_error
            except OSError:
                logger.exception("Error reading from queue")
        monotonic[0] += 60
        try:
            raise full_error
        except OSError:
            logger.exception("Unhandled exception in task")
        try:
            raise KeyError("other")
        except KeyError:
            logger.exception("Unhandled exception in task")
    finally:
        logger.removeHandler(handler)
    messages = [(r.getMessage(), r.exc_info is None) for r in seen]
    assert messages == [
        (full_disk.NOTICE % ("[Errno 28] No space left on device", 1), True),
        (full_disk.NOTICE % ("[Errno 28] No space left on device", 5), True),
        ("Unhandled exception in task", False),
    ]


def test_a_command_on_a_full_disk_ends_in_one_line(app, acme):
    with full(db.engine):
        result = app.test_cli_runner().invoke(args=["dnc", "add", "Acme", "prod", *MANY_NUMBERS])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: The storage is full (")
    assert lines[0].endswith("nothing was changed. Free some space and run it again.")
