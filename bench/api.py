"""The Preview API through gunicorn beside a bare Flask endpoint: search by clientId and add.

    make bench                       # SQLite, then PostgreSQL when TEST_DATABASE_URL is set
    python -m bench.api              # the same, this benchmark only
    BENCH_API_SECONDS=10             # how long each endpoint is driven (after 2 s of warm-up)
    BENCH_API_CLIENTS=8              # concurrent clients, each a thread with one kept-alive
                                     # connection sending its next request on each answer
    BENCH_API_TASKS=100000           # tasks in the campaign searched and added to
    BENCH_API_DATABASE_URL=postgresql+psycopg://…/bench_api   # this PostgreSQL database

Three servers, each gunicorn as `make run` serves the app (`-c python:app.serving`: its
threaded worker, 16 threads each) with the same `--workers 2`, without the access log: the
service (wsgi:app) on a fresh database holding one campaign of BENCH_API_TASKS generated
tasks (bench/search_data.py's, 8 data items each); bench/api_bare.py, a Flask endpoint that
parses the same JSON body and answers a small JSON object (the ceiling of any JSON
endpoint); and bench/api_hand.py, the same two requests hand-written on the bare driver
against the same database (the ceiling of a request doing their database work). Every
request of the service is authenticated and counted against API_RATE_LIMIT in the
database, as in production (the limit set never to refuse); the hand-written ones check
the key and count nothing. The endpoints are driven one after the other, bare first.

Columns: requests per second; `ratio`, those over the bare endpoint's (the last line gives
the service's over the hand-written); the latency of one request as its client saw it,
median and 99th percentile; `CPU`, the CPU time the server's
processes spent per request (gunicorn's, plus on PostgreSQL the database backends'), which
holds when other jobs share the machine; `errors`, answers other than HTTP 200 with
SUCCESS (the first one is printed). On PostgreSQL the database is BENCH_API_DATABASE_URL,
else TEST_DATABASE_URL's with `_api_bench` appended, emptied and loaded again each run.
Figures only, nothing asserted.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from sqlalchemy import make_url

from bench import servers
from bench.databases import postgresql_url

SECONDS = float(os.environ.get("BENCH_API_SECONDS", 10))
WARM_UP_SECONDS = 2.0
CLIENTS = int(os.environ.get("BENCH_API_CLIENTS", 8))
TASKS = int(os.environ.get("BENCH_API_TASKS", 100_000))
WORKERS = 2
PREVIEW = "/service-previewcontact-service/svc/rs/PreviewContactServiceExternal/"
IDENTITY = {
    "platform": "AWS Connect",
    "companyCode": "Bench",
    "environment": "prod",
    "region": "us-east-1",
    "campaignName": f"Size {TASKS}",
}


# --- The database and the servers ----------------------------------------------------------


def _load(url: str) -> str:
    """A fresh schema at `url` with one campaign of TASKS tasks; the tenant's API key."""
    from app import create_app
    from app.config import test_settings
    from app.extensions import db
    from app.services import keys
    from app.services.actors import Actor
    from bench import search_data

    app = create_app(test_settings(url))
    with app.app_context():
        db.drop_all()
        db.create_all()
        campaign = search_data.load((TASKS,))[TASKS]
        key = keys.issue_key(campaign.tenant, actor=Actor.operator())
        db.session.commit()
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
    return key


# --- Driving an endpoint ---------------------------------------------------------------------


@dataclass
class Figures:
    requests: int
    seconds: float
    latencies: list[float]
    cpu_seconds: float
    errors: int
    first_error: str | None

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000

    @property
    def cpu_ms(self) -> float:
        return self.cpu_seconds / max(1, self.requests) * 1000


def _client(
    port: int, path: str, body: Callable[[int], bytes], headers: dict, deadline: float, out: list
) -> None:
    """One client: a request, its answer, the next request, until the deadline; an answer is
    a success when it is HTTP 200 and says SUCCESS (the bare endpoint says it too)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    latencies, errors, first_error, n = [], 0, None, 0
    while time.perf_counter() < deadline:
        data = body(n)
        n += 1
        started = time.perf_counter()
        try:
            connection.request("POST", path, data, headers)
            response = connection.getresponse()
            answer = response.read()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            errors, first_error = errors + 1, first_error or repr(error)
            continue
        latencies.append(time.perf_counter() - started)
        if response.status != 200 or b'"SUCCESS"' not in answer:
            errors += 1
            first_error = first_error or f"HTTP {response.status} {answer[:300]!r}"
    connection.close()
    out.append((latencies, errors, first_error))


def _drive(
    port: int,
    pid: int,
    database: str | None,
    path: str,
    body: Callable[[int, int], bytes],
    headers: dict,
) -> Figures:
    """CLIENTS clients for WARM_UP_SECONDS (not counted), then for SECONDS."""
    figures = None
    for seconds in (WARM_UP_SECONDS, SECONDS):
        out: list = []
        cpu = servers.cpu_by_process(pid, database)
        started = time.perf_counter()
        deadline = started + seconds
        threads = [
            threading.Thread(
                target=_client, args=(port, path, partial(body, c), headers, deadline, out)
            )
            for c in range(CLIENTS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        latencies = [latency for one, _, _ in out for latency in one]
        figures = Figures(
            len(latencies),
            elapsed,
            latencies,
            servers.cpu_spent(cpu, servers.cpu_by_process(pid, database)),
            sum(errors for _, errors, _ in out),
            next((first for _, _, first in out if first), None),
        )
    return figures


def _search_body(_client: int, _n: int) -> bytes:
    """A lookup of a random task of the campaign by its clientId."""
    client_id = f"C{random.randrange(TASKS):08d}"  # noqa: S311 - not a secret
    return json.dumps({**IDENTITY, "clientId": client_id}).encode()


def _add_body(run: str) -> Callable[[int, int], bytes]:
    """A new task each time (a clientId never used, warm-up included), with six data items."""
    sent = itertools.count()  # across the warm-up and the measured run, whose `n` restart

    def body(client: int, n: int) -> bytes:
        n = next(sent)
        data = {
            "Name": f"Customer {client}-{n}",
            "Phone": f"+1415{client:02d}{n % 100000:05d}",
            "Plan": "Premium",
            "Balance": str(n % 9000),
            "City": "Lima",
            "Notes": f"added by client {client}",
        }
        return json.dumps(
            {
                **IDENTITY,
                "clientId": f"N{run}-{client}-{n}",
                "previewRecordData": [{"key": k, "value": v} for k, v in data.items()],
            }
        ).encode()

    return body


# --- The report -----------------------------------------------------------------------------


def _row(label: str, figures: Figures, bare: Figures) -> str:
    return (
        f"{label:<24}{figures.per_second:>8,.0f}{figures.per_second / bare.per_second:>7.2f}"
        f"{figures.percentile(0.5):>8.1f}{figures.percentile(0.99):>8.1f}"
        f"{figures.cpu_ms:>8.2f}{figures.errors:>8}"
    )


def report(name: str, url: str, folder: Path) -> None:
    """Load the database at `url`, then drive the bare endpoint, search and add."""
    started = time.perf_counter()
    key = _load(url)
    loaded = time.perf_counter() - started
    database = make_url(url).database if url.startswith("postgresql") else None
    headers = {"Content-Type": "application/json", **servers.headers(key)}
    bodies = _add_body(f"{int(time.time())}")
    print(
        f"api: the Preview API beside a bare Flask endpoint, gunicorn -w {WORKERS} as `make run`,"
        f" {name}, {TASKS:,} tasks (loaded in {loaded:.0f} s)"
    )
    print(
        f"{CLIENTS} clients, {SECONDS:g} s each (load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} CPUs); latency and CPU per request in ms"
    )
    results = {}
    with servers.gunicorn("bench.api_bare:app", url, folder, WORKERS) as (port, pid):
        results["bare"] = _drive(port, pid, None, "/bare", bodies, headers)
    with servers.gunicorn("wsgi:app", url, folder, WORKERS) as (port, pid):
        search = PREVIEW + "searchPreviewCampaign"
        results["search"] = _drive(port, pid, database, search, _search_body, headers)
        add = PREVIEW + "addOrUpdateCampaignRecord"
        results["add"] = _drive(port, pid, database, add, bodies, headers)
    with servers.gunicorn("bench.api_hand:app", url, folder, WORKERS) as (port, pid):
        results["hand search"] = _drive(port, pid, database, "/hand/search", _search_body, headers)
        hand_bodies = _add_body(f"H{int(time.time())}")
        results["hand add"] = _drive(port, pid, database, "/hand/add", hand_bodies, headers)
    bare = results["bare"]
    print(f"{'endpoint':<24}{'req/s':>8}{'ratio':>7}{'p50':>8}{'p99':>8}{'CPU':>8}{'errors':>8}")
    print(_row("bare Flask JSON", bare, bare))
    print(_row("search by clientId", results["search"], bare))
    print(_row("  hand-written", results["hand search"], bare))
    print(_row("add (new clientId)", results["add"], bare))
    print(_row("  hand-written", results["hand add"], bare))
    print(
        "the service over the hand-written requests: search "
        f"{results['search'].per_second / results['hand search'].per_second:.2f}, add "
        f"{results['add'].per_second / results['hand add'].per_second:.2f}"
    )
    for label, figures in results.items():
        if figures.first_error:
            print(f"  first error of {label}: {figures.first_error}")


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        report("SQLite", f"sqlite:///{folder / 'api-bench.db'}", folder)
        if url := postgresql_url("api_bench", "BENCH_API_DATABASE_URL"):
            print()
            report("PostgreSQL", url, folder)


if __name__ == "__main__":
    main()
