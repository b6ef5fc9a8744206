"""The job queue: a huey instance chosen by the app's settings, and jobs that run inside
the app.

SQLite in the instance folder (`instance/worker.db`, mode 0600) by default; Redis when
`REDIS_URL` is set. With `WORKER_IMMEDIATE` (the tests' default) a job runs in the caller,
to its end, when it is queued.

A job that cannot be queued (Redis unreachable, the SQLite file locked past its timeout)
raises QueueUnavailable, and the service that queued it says so: it was not queued.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any

from flask import Flask, current_app, has_app_context
from huey import Huey
from huey.storage import BlackHoleStorage, RedisStorage, SqliteStorage
from redis import ConnectionPool, RedisError

from app.db.private_files import private_file
from app.extensions import db


class QueueUnavailable(Exception):
    """The job could not be queued: the queue's storage cannot be reached."""


# How the queue's storage says it cannot be reached.
QUEUE_ERRORS = (RedisError, sqlite3.Error)


class AppHuey(Huey):
    """A huey whose storage the app's settings choose once the app exists."""

    storage_class = BlackHoleStorage  # until `configure`: nothing queued before the app

    def configure(self, name: str, storage_class: type, immediate: bool, **storage: Any) -> None:
        self.name, self.storage_class, self.storage_kwargs = name, storage_class, storage
        self._immediate = immediate
        self.storage = self.create_storage()

    def enqueue(self, task):
        """Queue the task; QueueUnavailable when its storage cannot take it."""
        if self._immediate:
            return super().enqueue(task)  # run here: the job's own errors are its own
        try:
            return super().enqueue(task)
        except QUEUE_ERRORS as error:
            raise QueueUnavailable(f"the job queue cannot be reached ({error})") from error


READ_TIMEOUT = 1  # huey's RedisStorage waits this long for a job (BRPOP) before it looks again
huey = AppHuey("preview-service", results=False)  # jobs answer through the database
_app: Flask | None = None


def init_app(app: Flask) -> None:
    """Point the queue at the app's storage; jobs then run inside this app."""
    global _app
    config = app.config
    if config["REDIS_URL"]:
        storage: dict[str, Any] = {
            "storage_class": RedisStorage,
            "read_timeout": READ_TIMEOUT,
            "connection_pool": redis_pool(config["REDIS_URL"], config["REDIS_TIMEOUT_SECONDS"]),
        }
    elif config["WORKER_IMMEDIATE"]:
        storage = {"storage_class": SqliteStorage}  # not opened: jobs run in memory
    else:
        path = Path(config["WORKER_DB"] or Path(app.instance_path) / "worker.db")
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        private_file(path)  # 0600 before SQLite opens it; its -wal and -shm follow
        storage = {"storage_class": SqliteStorage, "filename": str(path)}
    huey.configure(config["WORKER_QUEUE_NAME"], immediate=config["WORKER_IMMEDIATE"], **storage)
    _app = app


def redis_pool(url: str, timeout: float) -> ConnectionPool:
    """Connections to the queue's Redis that give up after `timeout` seconds (connecting,
    or answering a command beyond the worker's 1-second wait for a job): a Redis gone
    silent holds a request that queues a job no longer than that."""
    return ConnectionPool.from_url(
        url, socket_connect_timeout=timeout, socket_timeout=timeout + READ_TIMEOUT
    )


def worker_app() -> Flask:
    """The app jobs run in."""
    if _app is None:
        raise RuntimeError("the job queue has no app: create_app() configures it")
    return _app


@contextmanager
def job_context() -> Iterator[None]:
    """A job's app context: the caller's when the job runs there (immediate mode), else
    a fresh one whose session ends with the job."""
    if has_app_context() and current_app._get_current_object() is _app:
        yield
        return
    with worker_app().app_context():
        try:
            yield
        finally:
            db.session.remove()


def _in_app(function: Callable) -> Callable:
    @wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        with job_context():
            return function(*args, **kwargs)

    return run


# The jobs by name, as `job` registers them (app/__init__.py imports the job modules).
_JOBS: dict[str, Callable] = {}


def job(name: str, **options: Any) -> Callable:
    """A huey task that runs inside the app: `@job("intake.load")`."""

    def register(function: Callable) -> Callable:
        task = _JOBS[name] = huey.task(name=name, **options)(_in_app(function))
        return task

    return register


def enqueue(name: str, *args: Any) -> None:
    """Queue the job called `name` with these arguments: how a service starts background
    work without importing the job (which imports the service). QueueUnavailable when the
    queue cannot take it; in immediate mode the job runs here, to its end."""
    _JOBS[name](*args)


def periodic(name: str, when: Callable, **options: Any) -> Callable:
    """A huey periodic task (per-minute resolution) that runs inside the app."""
    return lambda function: huey.periodic_task(when, name=name, **options)(_in_app(function))
