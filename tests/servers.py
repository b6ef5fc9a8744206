"""A real gunicorn for the tests that need one: the concurrency test and the browser tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class LiveServer:
    url: str
    log: Path

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_serving(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"gunicorn exited early:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"gunicorn did not start:\n{log.read_text()}")


@contextmanager
def gunicorn(database_uri: str, log: Path, workers: int, secret: str) -> Iterator[LiveServer]:
    """gunicorn with `workers` processes on a free port, on the test database."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_uri, "SECRET_KEY": secret}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--workers", str(workers),
             "--bind", f"127.0.0.1:{port}", "--access-logfile", "-", "wsgi:app"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        _wait_until_serving(port, process, log)
        yield LiveServer(f"http://127.0.0.1:{port}", log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
