"""The Preview API through gunicorn beside a bare Flask endpoint: search by clientId and add.

    make bench                       # SQLite, then PostgreSQL when TEST_DATABASE_URL is set
    python -m bench.api              # the same, this benchmark only
    BENCH_API_SECONDS=4              # how long each endpoint is driven in each round
    BENCH_API_ROUNDS=3               # rounds, after a warm-up round of 2 s per endpoint
    BENCH_API_CLIENTS=8              # concurrent clients, each a thread with one kept-alive
                                     # connection sending its next request on each answer
    BENCH_API_TASKS=100000           # tasks in the campaign searched and added to
    BENCH_API_DATABASE_URL=postgresql+psycopg://…/bench_api   # this PostgreSQL database

Three servers, each gunicorn as `make run` serves the app (`-c python:app.web.serving`: its
threaded worker, 16 threads each) with the same `--workers 2`, without the access log: the
service (wsgi:app) on a fresh database holding one campaign of BENCH_API_TASKS generated
tasks (bench/search_data.py's, 8 data items each); bench/api_bare.py, a Flask endpoint that
parses the same JSON body and answers a small JSON object (the ceiling of any JSON
endpoint); and bench/api_hand.py, the same two requests hand-written on the bare driver
against the same database (the ceiling of a request doing their database work). Every
request of the service is authenticated and counted against API_RATE_LIMIT in the
database, as in production (the limit set never to refuse); the hand-written ones check
the key and count nothing. The three servers run side by side and the five endpoints are
driven one after the other, in BENCH_API_ROUNDS rounds, so that a machine whose speed drifts
(other jobs, a shared host) weighs on each endpoint alike.

Columns: requests per second over all rounds; `ratio`, the median over the rounds of the
endpoint's rate over the bare endpoint's in the same round (the last line gives the
service's over the hand-written, alike); the latency of one request as its client saw it,
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
import statistics
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

SECONDS = float(os.environ.get("BENCH_API_SECONDS", 4))
ROUNDS = int(os.environ.get("BENCH_API_ROUNDS", 3))
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
    from app.services.actors import Actor
    from app.services.tenants import api_keys as keys
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
    seconds: float,
) -> Figures:
    """CLIENTS clients for `seconds`."""
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
    return Figures(
        len(latencies),
        elapsed,
        latencies,
        servers.cpu_spent(cpu, servers.cpu_by_process(pid, database)),
        sum(errors for _, errors, _ in out),
        next((first for _, _, first in out if first), None),
    )


def _merged(rounds: list[Figures]) -> Figures:
    """The rounds of one endpoint as one run: their requests, time, latencies and CPU."""
    return Figures(
        sum(one.requests for one in rounds),
        sum(one.seconds for one in rounds),
        [latency for one in rounds for latency in one.latencies],
        sum(one.cpu_seconds for one in rounds),
        sum(one.errors for one in rounds),
        next((one.first_error for one in rounds if one.first_error), None),
    )


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


def _row(label: str, rounds: list[Figures], bare: list[Figures]) -> str:
    """An endpoint's figures over all rounds; its ratio is the median of its rounds' ratios
    over the bare endpoint's in the same round."""
    figures = _merged(rounds)
    ratio = _over(rounds, bare)
    return (
        f"{label:<24}{figures.per_second:>8,.0f}{ratio:>7.2f}"
        f"{figures.percentile(0.5):>8.1f}{figures.percentile(0.99):>8.1f}"
        f"{figures.cpu_ms:>8.2f}{figures.errors:>8}"
    )


def _over(rounds: list[Figures], ceiling: list[Figures]) -> float:
    """The median over the rounds of one endpoint's rate over another's in the same round."""
    return statistics.median(
        one.per_second / top.per_second for one, top in zip(rounds, ceiling, strict=True)
    )


def report(name: str, url: str, folder: Path) -> None:
    """Load the database at `url`, start the three servers, then drive each endpoint in
    turn, ROUNDS times over, so that every endpoint meets the machine as the others do."""
    started = time.perf_counter()
    key = _load(url)
    loaded = time.perf_counter() - started
    database = make_url(url).database if url.startswith("postgresql") else None
    headers = {"Content-Type": "application/json", **servers.headers(key)}
    print(
        f"api: the Preview API beside a bare Flask endpoint, gunicorn -w {WORKERS} as `make run`,"
        f" {name}, {TASKS:,} tasks (loaded in {loaded:.0f} s)"
    )
    print(
        f"{CLIENTS} clients, {ROUNDS} rounds of {SECONDS:g} s per endpoint (load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs); latency and CPU per request in ms"
    )
    with (
        servers.gunicorn("bench.api_bare:app", url, folder, WORKERS) as bare,
        servers.gunicorn("wsgi:app", url, folder, WORKERS) as service,
        servers.gunicorn("bench.api_hand:app", url, folder, WORKERS) as hand,
    ):
        search = PREVIEW + "searchPreviewCampaign"
        add = PREVIEW + "addOrUpdateCampaignRecord"
        endpoints = {  # label: server, database measured, path, bodies
            "bare": (bare, None, "/bare", _add_body(f"B{time.time_ns()}")),
            "search": (service, database, search, _search_body),
            "add": (service, database, add, _add_body(f"S{time.time_ns()}")),
            "hand search": (hand, database, "/hand/search", _search_body),
            "hand add": (hand, database, "/hand/add", _add_body(f"H{time.time_ns()}")),
        }

        def one_round(seconds: float) -> dict[str, Figures]:
            return {
                label: _drive(port, pid, measured, path, body, headers, seconds)
                for label, ((port, pid), measured, path, body) in endpoints.items()
            }

        one_round(WARM_UP_SECONDS)  # not counted
        rounds = [one_round(SECONDS) for _ in range(ROUNDS)]
        results = {label: [figures[label] for figures in rounds] for label in endpoints}
    bare_rounds = results["bare"]
    print(f"{'endpoint':<24}{'req/s':>8}{'ratio':>7}{'p50':>8}{'p99':>8}{'CPU':>8}{'errors':>8}")
    print(_row("bare Flask JSON", bare_rounds, bare_rounds))
    print(_row("search by clientId", results["search"], bare_rounds))
    print(_row("  hand-written", results["hand search"], bare_rounds))
    print(_row("add (new clientId)", results["add"], bare_rounds))
    print(_row("  hand-written", results["hand add"], bare_rounds))
    print(
        "the service over the hand-written requests: search "
        f"{_over(results['search'], results['hand search']):.2f}, add "
        f"{_over(results['add'], results['hand add']):.2f}"
    )
    for label, rounds in results.items():
        if first_error := _merged(rounds).first_error:
            print(f"  first error of {label}: {first_error}")


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        report("SQLite", f"sqlite:///{folder / 'api-bench.db'}", folder)
        if url := postgresql_url("api_bench", "BENCH_API_DATABASE_URL"):
            print()
            report("PostgreSQL", url, folder)


if __name__ == "__main__":
    main()
