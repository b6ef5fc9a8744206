"""A real worker process for the tests that kill one: `flask --app wsgi worker` on the test
database, with a queue and an instance folder of the test."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.servers import start_process, stop_process

# Short leases and ticks, so a killed worker's work is taken up within seconds.
FAST = {
    "WORKER_LEASE_SECONDS": "3",
    "WORKER_TICK_SECONDS": "0.5",
    "WEBHOOK_LEASE_SECONDS": "2",
    # The tests' webhook receivers listen on this machine.
    "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8,::1/128",
}


def worker_settings(folder: Path, redis_url: str | None = None, queue: str = "test") -> dict:
    """The settings (for the test's app) of the queue the worker processes read."""
    return {
        "WORKER_IMMEDIATE": False,
        "WORKER_DB": str(folder / "worker.db"),
        "REDIS_URL": redis_url,
        "WORKER_QUEUE_NAME": queue,
        "WORKER_LEASE_SECONDS": float(FAST["WORKER_LEASE_SECONDS"]),
        "WEBHOOK_ALLOW_NETWORKS": FAST["WEBHOOK_ALLOW_NETWORKS"],
    }


class Worker:
    """Starts worker processes on one queue; each is killed or stopped by the test."""

    def __init__(self, database_uri: str, folder: Path, settings: dict) -> None:
        self.folder, self.started = folder, []
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "WORKER_IMMEDIATE")},
            **FAST,
            "DATABASE_URL": database_uri,
            "SECRET_KEY": "worker-test-secret",
            "INSTANCE_PATH": str(folder / "instance"),
            "WORKER_DB": settings["WORKER_DB"],
            "WORKER_QUEUE_NAME": settings["WORKER_QUEUE_NAME"],
            **({"REDIS_URL": settings["REDIS_URL"]} if settings["REDIS_URL"] else {}),
        }

    def start(self) -> subprocess.Popen:
        log = self.folder / f"worker-{len(self.started) + 1}.log"
        process = start_process(
            ["-m", "flask", "--app", "wsgi", "worker", "--workers", "2"], self.env, log
        )
        self.started.append((process, log))
        return process

    def kill(self, process: subprocess.Popen) -> None:
        """SIGKILL: nothing of the worker's own shutdown runs."""
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def logs(self) -> str:
        return "\n".join(f"== {log.name}\n{log.read_text()[-3000:]}" for _, log in self.started)

    def stop_all(self) -> None:
        for process, _ in self.started:
            stop_process(process, timeout=15)


@contextmanager
def workers(database_uri: str, folder: Path, settings: dict) -> Iterator[Worker]:
    pool = Worker(database_uri, folder, settings)
    try:
        yield pool
    finally:
        pool.stop_all()


def wait_for(condition: Callable[[], object], seconds: float, what: str, pool: Worker) -> object:
    """Poll until `condition()` is truthy; fail with the workers' logs after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}\n{pool.logs()}")
