"""Pages at scale: each page a supervisor opens, its median and 95th percentile beside its
ceilings (300 ms, 1 s), while 20 agents work tasks through the Desk API at an agent's pace.

python -m bench.pages             # 1,000,000 tasks, 3 attempts each
BENCH_PAGES_TASKS=20000 python -m bench.pages

The campaign and its attempt ledger are loaded by bench/reports.py's builder (the tasks as
bench/delivery.py loads them, BENCH_PAGES_ATTEMPTS attempts a task over the 120 days
before the run, the rollups recounted, ANALYZE) with the audit trail a load leaves, one
`task.added` record per task. gunicorn serves it with 4 workers as `make run` does; a
supervisor signs in through the login form (its CSRF token included), then, while
bench/delivery_pull.py's 20 agents work against the same server, opens each page
BENCH_PAGES_RUNS times in turn after a first: the tenant, the campaign (its Progress panel),
one task, the campaign's search with two conditions, the reports over the last 7 and the
last 90 days, the wallboard, and the audit trail as the tenant's Users page shows it (the
trail of its users and templates, newest first, among the tasks' records). A page answered
other than 200 is printed as failed. On PostgreSQL too when TEST_DATABASE_URL is set (a
database named after it with `_pages_bench` appended; it is emptied).

"20 agents working" means agents at a person's pace, sped up: each takes a task (nextTask),
looks at it for 1 to 2 s (PREVIEW, drawn per agent) and closes it (closeTask COMPLETE),
about 13 deliveries a second for the 20, some ten times what 20 people previewing and
dialling would do; the count they delivered is printed. (bench/delivery_pull.py's agents
unpaced, as the delivery part runs them, close tasks as fast as the server answers: on two
cores they starve every page of CPU, which measures the machine, not the pages.)
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import requests
from sqlalchemy import select, text

from app import create_app
from app.config import test_settings
from app.extensions import db
from app.models import Task
from app.services.actors import Actor
from app.services.people import supervisors
from bench import delivery, delivery_pull, reports
from bench.databases import on_both
from bench.wallboard import EMAIL, PASSWORD, _sign_in

TASKS = int(os.environ.get("BENCH_PAGES_TASKS", 1_000_000))
ATTEMPTS = int(os.environ.get("BENCH_PAGES_ATTEMPTS", 3))  # per task
RUNS = int(os.environ.get("BENCH_PAGES_RUNS", 20))
MEDIAN_CEILING, P95_CEILING = 0.3, 1.0  # seconds
PREVIEW = (1.0, 2.0)  # seconds an agent looks at a task before closing it
WARM_UP = 3.0  # seconds the agents work before the first page is timed


def _load(url: str) -> tuple[dict[str, str], str, float]:
    """The campaign, its ledger and a supervisor: the pages' paths, the API key, seconds."""
    started = time.perf_counter()
    reports.ATTEMPTS = ATTEMPTS  # the builder's rounds, as this part sizes them
    app = create_app(test_settings(url))
    with app.app_context():
        db.drop_all()
        db.create_all()
        campaign, key = delivery._setup()
        delivery._bulk_load(campaign, TASKS)
        today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        reports._load_ledger(campaign, today - timedelta(days=reports.DAYS))
        _load_trail(campaign)
        reports._roll_up(campaign)
        supervisors.create_supervisor(EMAIL, PASSWORD, actor=Actor.operator())
        db.session.commit()
        tenant, campaign_id = campaign.tenant_id, campaign.id
        middle = f"C{TASKS // 2:08d}"
        record = db.session.scalar(
            select(Task.record_id).where(Task.campaign_id == campaign_id).order_by(Task.id)
            .offset(TASKS // 2).limit(1)
        )  # fmt: skip
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()

    def report(days: int) -> str:
        start = (today - timedelta(days=days)).date().isoformat()
        end = (today - timedelta(days=1)).date().isoformat()
        return f"/tenants/{tenant}/reports?from={start}&to={end}&campaign=Big"

    pages = {
        "tenant": f"/tenants/{tenant}/campaigns",
        "campaign": f"/tenants/{tenant}/campaigns/{campaign_id}",
        "progress": f"/tenants/{tenant}/campaigns/{campaign_id}/progress",
        "task": f"/tenants/{tenant}/tasks/{record}",
        "search": f"/tenants/{tenant}/campaigns/{campaign_id}?k=Id&c=EQUALS&v={middle}"
        "&k=sys_worked_state&c=EQUALS&v=NOTWORKED",
        "reports 7 days": report(7),
        "reports 90 days": report(90),
        "wallboard": f"/tenants/{tenant}/wallboard",
        "audit": f"/tenants/{tenant}/users",
    }
    return pages, key, time.perf_counter() - started


def _load_trail(campaign) -> None:
    """One `task.added` record per task of the campaign, as a load leaves them."""
    dialect = db.session.connection().dialect.name
    after = '\'{"campaignName": "Big"}\''
    after = f"CAST({after} AS JSON)" if dialect == "postgresql" else after
    db.session.execute(
        text(
            "INSERT INTO audit_records (tenant_id, at, actor_kind, actor_id, action,"
            " entity_kind, entity_id, after)"
            f" SELECT :tenant, created_at, 'api_key', '1', 'task.added', 'task', record_id,"
            f" {after} FROM tasks WHERE campaign_id = :campaign ORDER BY id"
        ),
        {"tenant": campaign.tenant_id, "campaign": campaign.id},
    )
    db.session.commit()


def _open(http: requests.Session, base: str, path: str) -> tuple[float, int]:
    started = time.perf_counter()
    answer = http.get(base + path, timeout=120, allow_redirects=False)
    return time.perf_counter() - started, answer.status_code


def _ms(seconds) -> str:
    ordered = sorted(seconds)
    if not ordered:
        return "-"
    median, p95 = statistics.median(ordered), ordered[round(0.95 * (len(ordered) - 1))]
    return f"{median * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"


def _report(name: str, url: str) -> None:
    print(f"pages: each supervisor's page on campaign Big under 20 agents, {name}")
    pages, key, loaded = _load(url)
    print(
        f"{TASKS:,} tasks and {TASKS * ATTEMPTS:,} attempts (loaded in {loaded:.0f} s);"
        f" {RUNS} openings of each page after a first, gunicorn {delivery_pull.WORKERS} workers"
    )
    with (
        tempfile.TemporaryDirectory() as folder,
        delivery_pull.served(url, Path(folder)) as (base, _pid),
    ):
        http = requests.Session()
        http.cookies.update(_sign_in(base))
        for path in pages.values():  # the first opening fills the caches
            _open(http, base, path)
        seconds = {page: [] for page in pages}
        statuses: dict[str, set[int]] = {page: set() for page in pages}
        agents: list = []
        pace = delivery_pull.Pace(PREVIEW)

        def work() -> None:  # the agents work until the pages are measured
            agents.append(delivery_pull.pull(base, key, delivery_pull.AGENTS, 3600, pace))

        pulling = threading.Thread(target=work)
        pulling.start()
        started = time.perf_counter()
        try:
            time.sleep(WARM_UP)
            for _ in range(RUNS):
                for page, path in pages.items():
                    took, status = _open(http, base, path)
                    seconds[page].append(took)
                    statuses[page].add(status)
        finally:
            pace.stop.set()
            pulling.join()
        worked = time.perf_counter() - started
        if any(errors for _rate, _out, errors in agents):
            first = next(errors for _rate, _out, errors in agents if errors)
            print(f"agents failed: {first[0][:200]}")
            delivery_pull._server_error(Path(folder))
    out = [delivery for _rate, found, _errors in agents for delivery in found]
    print(
        f"the 20 agents (each previewing a task {PREVIEW[0]:.0f}-{PREVIEW[1]:.0f} s) delivered"
        f" and closed {len(out):,} tasks in {worked:.0f} s ({len(out) / worked:.1f}/s);"
        f" nextTask median {_ms(a for a, _ in out)}"
    )
    print(f"{'page':<16} {'median ms':>10} {'ceiling':>8} {'p95 ms':>8} {'ceiling':>8}  verdict")
    for page, took in seconds.items():
        if statuses[page] != {200}:
            print(f"{page:<16} failed: HTTP {sorted(statuses[page])}")
            continue
        ordered = sorted(took)
        median, p95 = statistics.median(ordered), ordered[round(0.95 * (len(ordered) - 1))]
        within = median < MEDIAN_CEILING and p95 < P95_CEILING
        print(
            f"{page:<16} {median * 1000:>10.0f} {MEDIAN_CEILING * 1000:>8.0f}"
            f" {p95 * 1000:>8.0f} {P95_CEILING * 1000:>8.0f}  {'within' if within else 'OVER'}"
        )


def main() -> None:
    on_both("pages", _report)


if __name__ == "__main__":
    main()
