"""Agents pulling at once: deliveries per second from gunicorn with 4 workers.

Run by bench/delivery.py on PostgreSQL, on the campaign it loaded last: 1 agent (agent00,
for whom nothing is held), then 20 (tasks are held for half of them). Each agent's thread
(a requests session, as tests/delivery/test_delivery_concurrency.py's agents) sets the agent
AVAILABLE, then for BENCH_DELIVERY_PULL_SECONDS asks nextTask and completes the task it
gets. The server runs as `make run` serves it (app/web/serving.py), every API call counted
against the rate limit in the database as in production (the limit set never to refuse).
The last column is the CPU that gunicorn's processes and the database's backends spent per
delivery (Linux's /proc), which holds when other jobs share the machine: N free CPUs serve
at most N x 1000 / that many deliveries per second. A failure (an agent's error, the
server's last exception) is printed in place of the figures.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import requests
from sqlalchemy import make_url

from bench import servers

AGENTS, WORKERS = 20, 4
PULL_SECONDS = float(os.environ.get("BENCH_DELIVERY_PULL_SECONDS", 10))
AGENT_NAMES = [f"agent{n:02d}" for n in range(AGENTS)]
DESK = "/desk-api/v1/"
TENANT = {"platform": "AWS Connect", "companyCode": "Bench", "environment": "prod"}


@dataclass(frozen=True)
class Pace:
    """How agents work: as fast as they can, or each looking at a task for between
    `preview` seconds before closing it; all stop early when `stop` is set."""

    preview: tuple[float, float] | None = None
    stop: threading.Event = field(default_factory=threading.Event)


def _agent(base: str, key: str, login: str, start, until: list, out: list, errors: list, pace):
    """Become AVAILABLE, then take and complete tasks until the time is up (or `pace.stop`
    is set); with `pace.preview` (the shortest and longest seconds), look at each task that
    long before closing it."""
    chance = random.Random(login)  # noqa: S311 - a pace, not a secret
    with requests.Session() as http:

        def call(action: str, **fields) -> dict:
            body = {"tenant": TENANT, "agent": login, **fields}
            answer = http.post(
                base + DESK + action, json=body, headers=servers.headers(key), timeout=60
            )
            if answer.status_code != 200 or answer.json()["result"] != "SUCCESS":
                raise RuntimeError(f"{action}: HTTP {answer.status_code} {answer.text[:300]}")
            return answer.json()

        try:
            call("setAgentState", state="AVAILABLE")
            start.wait()
            while time.monotonic() < until[0] and not pace.stop.is_set():
                started = time.perf_counter()
                record_id = call("nextTask")["task"]["previewRecordID"]
                asked = time.perf_counter() - started
                if pace.preview:
                    pace.stop.wait(chance.uniform(*pace.preview))
                call("closeTask", previewRecordID=record_id, outcome="COMPLETE")
                out.append((asked, time.perf_counter() - started))
        except Exception as error:  # noqa: BLE001 - reported with the figures
            errors.append(f"{login}: {type(error).__name__}: {error}")
            start.abort()


def pull(
    base: str, key: str, count: int, seconds: float, pace: Pace | None = None
) -> tuple[float, list, list]:
    """`count` agents at once for `seconds` (at `pace`, default as fast as they can):
    deliveries per second; per delivery the seconds of its nextTask and of nextTask (the
    preview included) + closeTask; the agents' errors."""
    pace = pace or Pace()
    out: list[tuple[float, float]] = []
    errors: list[str] = []
    until = [0.0]

    def go() -> None:  # when every agent is AVAILABLE, before any asks
        until[0] = time.monotonic() + seconds

    start = threading.Barrier(count + 1, action=go)
    threads = [
        threading.Thread(target=_agent, args=(base, key, login, start, until, out, errors, pace))
        for login in AGENT_NAMES[:count]
    ]
    for thread in threads:
        thread.start()
    with suppress(threading.BrokenBarrierError):  # an agent failed: its error is kept
        start.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    return (
        len(out) / (time.perf_counter() - started),
        out,
        [e for e in errors if "BrokenBarrierError" not in e],
    )


def _ms(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    median, p95 = statistics.median(ordered), ordered[round(0.95 * (len(ordered) - 1))]
    return f"{median * 1000:>7.1f} {p95 * 1000:>7.1f}"


def main(url: str, key: str, size: int) -> None:
    print(
        f"delivery: agents pulling at once from gunicorn ({WORKERS} workers), {size:,} tasks,"
        f" {PULL_SECONDS:.0f} s each; a delivery is nextTask + closeTask COMPLETE"
    )
    print(f"{'agents':>7} {'deliveries/s':>13}   nextTask median p95 ms   delivery median p95 ms"
          "   server CPU ms per delivery")  # fmt: skip
    database = make_url(url).database
    with tempfile.TemporaryDirectory() as folder, served(url, Path(folder)) as (base, pid):
        pull(base, key, AGENTS, 2)  # every worker has served a few requests (or failed)
        for count in (1, AGENTS):
            before = servers.cpu_by_process(pid, database)
            rate, out, errors = pull(base, key, count, PULL_SECONDS)
            cpu = servers.cpu_spent(before, servers.cpu_by_process(pid, database))
            if errors or not out:
                first = errors[0] if errors else "no delivery"
                print(f"{count:>7}   failed, {len(errors)} agents: {first[:200]}")
                _server_error(Path(folder))
                continue
            asked, whole = _ms([a for a, _ in out]), _ms([w for _, w in out])
            print(f"{count:>7} {rate:>13.0f}   {asked:>22}   {whole:>22}"
                  f"   {cpu * 1000 / len(out):>26.1f}")  # fmt: skip


@contextmanager
def served(url: str, folder: Path, workers: int = WORKERS) -> Iterator[tuple[str, int]]:
    """The service under gunicorn with `workers` processes: its base URL and pid."""
    with servers.gunicorn("wsgi:app", url, folder, workers) as (port, pid):
        yield f"http://127.0.0.1:{port}", pid


def _server_error(folder: Path) -> None:
    """The last exception the server logged, in one line."""
    lines = [
        line
        for log in folder.glob("gunicorn-*.log")
        for line in log.read_text(errors="replace").splitlines()
    ]
    found = [line for line in lines if "Error" in line and not line.startswith(" ")]
    if found:
        print(f"          server: {found[-1][:200]}")
