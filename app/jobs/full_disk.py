"""The worker on a full disk: its jobs' failures are said once a minute, with how many failed
since the last notice and what the storage said, never a traceback per failure (the tick
runs every two seconds, so a traceback each time would fill what space is left).

The clock's work reports its failures here itself (`say_job_failed`); what huey logs of a
job or of its queue goes through `FullStorageLogFilter`, installed on the worker's log
handlers by `flask --app wsgi worker`.
"""

from __future__ import annotations

import logging
import time

from flask import Flask

from app.db.full_disk import FullStorageNotices, cause, storage_full

NOTICE = (
    "The storage is full (%s): the worker's jobs fail until space is freed; "
    "%d failed since the last notice"
)


def notices_of(app: Flask) -> FullStorageNotices:
    """The app's count of failures for a full storage (the web's 507s share it)."""
    return app.extensions.setdefault("full_storage", FullStorageNotices())


def say_job_failed(app: Flask, name: str, error: Exception) -> None:
    """Log a job's failure: once a minute without a traceback for a full storage, else
    with its traceback."""
    if not storage_full(error):
        app.logger.error("Worker job %s failed", name, exc_info=error)
        return
    count = notices_of(app).refused(time.monotonic())
    if count is not None:
        app.logger.error(NOTICE, cause(error), count)


class FullStorageLogFilter(logging.Filter):
    """Turns log records of a full storage, with their traceback, into one line a minute."""

    def __init__(self, app: Flask) -> None:
        super().__init__()
        self.app = app

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None or not storage_full(error):
            return True
        count = notices_of(self.app).refused(time.monotonic())
        if count is None:
            return False
        record.msg, record.args = NOTICE, (cause(error), count)
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True
