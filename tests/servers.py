"""A real gunicorn for the tests that need one (concurrency, serving, browser), started with
the settings `make run` uses (app/web/serving.py); and starting and stopping such a process
(the worker tests' too)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
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
def gunicorn(
    database_uri: str,
    log: Path,
    workers: int,
    secret: str,
    *,
    options: Sequence[str] = (),
    env: dict[str, str] | None = None,
) -> Iterator[LiveServer]:
    """gunicorn with `workers` processes on a free port, on the test database, configured
    by app/web/serving.py; `options` are further command-line settings (`--timeout 2`). No
    control socket: the checkout's instance folder (and a `make run` there) keeps its own."""
    port = free_port()
    environ = {**os.environ, "DATABASE_URL": database_uri, "SECRET_KEY": secret, **(env or {})}
    process = start_process(
        ["-m", "gunicorn", "-c", "python:app.web.serving", "--workers", str(workers),
         "--bind", f"127.0.0.1:{port}", "--no-control-socket", *options, "wsgi:app"],
        environ, log,
    )  # fmt: skip
    try:
        _wait_until_serving(port, process, log)
        yield LiveServer(f"http://127.0.0.1:{port}", log)
    finally:
        stop_process(process, timeout=30)


def start_process(args: Sequence[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """`python args…` in the project's folder, its output (and errors) written to `log`."""
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )


def stop_process(process: subprocess.Popen, timeout: float) -> None:
    """SIGTERM and wait; SIGKILL when it has not ended within `timeout` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
