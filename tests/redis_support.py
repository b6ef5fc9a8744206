"""Redis for the tests: the shared server at 127.0.0.1:6379 with a key prefix of the test's
own (so pytest-xdist's workers and other runs on the machine never meet), and private
servers a test starts, stops and starts again on a port of its own (an outage).

Without a reachable Redis the tests that need one skip, saying so; under CI (CI=true)
they fail instead, since there Redis must be up (.ci/run starts it).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.servers import free_port

HOST, PORT = "127.0.0.1", 6379
SHARED = f"redis://{HOST}:{PORT}/0"


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def unavailable(reason: str) -> None:
    """Skip for want of Redis; fail under CI, where it must be there."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true requires it (.ci/run starts one)")
    pytest.skip(f"{reason}: start one (redis-server --port {PORT}) or set CI=true to fail")


@pytest.fixture
def redis_url() -> str:
    """The shared Redis server's URL."""
    if not reachable(HOST, PORT):
        unavailable(f"no Redis server on {HOST}:{PORT}")
    return SHARED


@pytest.fixture
def redis_prefix(redis_url) -> Iterator[str]:
    """A key prefix of this test's own; its keys are deleted afterwards."""
    prefix = f"test-{uuid.uuid4().hex}"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class PrivateRedis:
    """A redis-server of the test's own on a free port, in memory only: stopped to make an
    outage, started again on the same port to end it."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def start(self) -> None:
        with (self.folder / "redis.log").open("a") as out:
            self.process = subprocess.Popen(  # noqa: S603 - the server binary, our arguments
                ["redis-server", "--port", str(self.port), "--bind", HOST,
                 "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
                stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 10
        while not reachable(HOST, self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = (self.folder / "redis.log").read_text()
                pytest.fail(f"redis-server did not start:\n{log}")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def private_redis(tmp_path) -> Iterator[PrivateRedis]:
    """A running redis-server of this test's own (see PrivateRedis)."""
    if shutil.which("redis-server") is None:
        unavailable("no redis-server binary to start a private Redis")
    folder = tmp_path / "redis"
    folder.mkdir()
    server = PrivateRedis(folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()
