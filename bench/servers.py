"""The service under gunicorn for the benchmarks that drive it over HTTP, as `make run`
serves it (`-c python:app.web.serving`), and the CPU its processes spend.

Every API call is counted against the rate limit in the database as in production, with the
limit set never to refuse; the access log goes to /dev/null.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).absolute().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def headers(key: str) -> dict[str, str]:
    """The five X-sc- headers of the benchmarks' tenant, Bench/prod."""
    return {
        "X-sc-platform-code": "AWS Connect", "X-sc-company-code": "Bench",
        "X-sc-company-environment": "prod", "X-sc-secrets-region": "us-east-1",
        "X-sc-company-api-key": key,
    }  # fmt: skip


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_serving(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"gunicorn did not start:\n{log.read_text()}")


@contextmanager
def gunicorn(app: str, url: str, folder: Path, workers: int) -> Iterator[tuple[int, int]]:
    """gunicorn serving `app` (module:variable) with `workers` processes on the database at
    `url`: its port and pid. Its output goes to `folder`/gunicorn-<port>.log, whose last lines
    are printed if the caller fails."""
    port = _free_port()
    environ = {
        **os.environ, "DATABASE_URL": url, "SECRET_KEY": "bench", "INSTANCE_PATH": str(folder),
        "API_RATE_LIMIT": "1000000 per minute",  # counted in the database, never refused
    }  # fmt: skip
    log = folder / f"gunicorn-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and settings
            [sys.executable, "-m", "gunicorn", "-c", "python:app.web.serving", "--workers",
             str(workers), "--bind", f"127.0.0.1:{port}", "--access-logfile", "/dev/null", app],
            cwd=ROOT, env=environ, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        _wait_until_serving(port, process, log)
        yield port, process.pid
    except Exception:
        print("\n".join(log.read_text(errors="replace").splitlines()[-30:]), file=sys.stderr)
        raise
    finally:
        process.terminate()
        process.wait(timeout=30)


def cpu_by_process(master: int, database: str | None) -> dict[int, float]:
    """CPU seconds so far of gunicorn's master and workers, and of the PostgreSQL backends
    serving `database`, by process (Linux's /proc; empty elsewhere)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        pid, parent = int(stat.parent.name), int(fields[1])
        backend = database is not None and f" {database} " in command
        if pid == master or parent == master or backend:
            found[pid] = (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime
    return found


def cpu_spent(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent between two `cpu_by_process` readings (processes started meanwhile
    count from zero)."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())
