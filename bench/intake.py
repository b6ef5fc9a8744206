"""Intake at scale: load a generated CSV into SQLite and compare with a bare executemany;
then the same loads on PostgreSQL beside SQLite's time.

    python -m bench.intake            # 100,000 and 1,000,000 rows (BENCH_INTAKE_ROWS: the larger)

The file is loaded twice: first every row adds a task, then every row updates one. The load
runs in a child process so that its peak memory (max RSS) is its own; the ceiling inserts
the same tasks and items with sqlite3's executemany into the same schema.

On PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL's with `_intake_bench` appended,
emptied each run) autovacuum is switched off for the tasks and their items, as on a server
whose autovacuum is off: the load must keep the planner's statistics fresh itself.
"""

from __future__ import annotations

import csv
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.databases import postgresql_url

ROWS = int(os.environ.get("BENCH_INTAKE_ROWS", 1_000_000))
HEADER = ["Id", "Name", "Phone", "Plan", "Balance", "City"]
PLANS = ("Basic", "Plus", "Premium", "Gold")
CITIES = ("Paris", "Lima", "Oslo", "Pune", "Kyiv", "Accra", "Quito")


def write_file(path: Path, rows: int) -> None:
    rng = random.Random(11)
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(HEADER)
        for n in range(rows):
            out.writerow(
                [f"C{n:08d}", f"Customer {n}", f"+1415{n:07d}", PLANS[n % 4],
                 f"{rng.randint(0, 100000) / 100:.2f}", CITIES[n % 7]]
            )  # fmt: skip


def _app(url: str):
    """The app on a fresh schema at `url`; on PostgreSQL without autovacuum on the tasks."""
    from sqlalchemy import text

    from app import create_app
    from app.config import test_settings
    from app.extensions import db

    app = create_app(test_settings(url))
    with app.app_context():
        db.drop_all()
        db.create_all()
        if db.engine.dialect.name == "postgresql":
            for table in ("tasks", "task_items"):
                db.session.execute(text(f"ALTER TABLE {table} SET (autovacuum_enabled = false)"))
            db.session.commit()
    return app


def _campaign():
    from app.extensions import db
    from app.services.actors import Actor
    from app.services.campaigns import catalogue as campaigns
    from app.services.tenants import setup as tenants

    tenant = tenants.create_tenant(
        "AWS Connect", "Bench", "prod", "us-east-1", "saml", actor=Actor.operator()
    )
    tenants.create_skill_queue(tenant, "Sales", actor=Actor.operator())
    db.session.flush()
    campaign = campaigns.create_campaign(tenant, "Big", "Sales", "UTC", actor=Actor.operator())
    db.session.commit()
    return campaign


def child_load(folder: Path, csv_path: Path, url: str | None = None) -> dict:
    """Run in a child process: load the file into the database at `url` (a SQLite file in
    `folder` by default), report seconds and peak memory."""
    from app.services.actors import Actor
    from app.services.intake.load import load_file

    actor = Actor.intake("bench")  # as a recorded load's: one audit record per task written
    app = _app(url or f"sqlite:///{folder / 'load.db'}")
    with app.app_context():
        campaign = _campaign()
        started = time.perf_counter()
        counts = load_file(campaign, csv_path, folder / "report.csv", actor=actor)
        seconds = time.perf_counter() - started
        started = time.perf_counter()  # the same file again: every row updates its task
        again = load_file(campaign, csv_path, folder / "report.csv", actor=actor)
        update_seconds = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "seconds": seconds,
        "added": counts.added,
        "update_seconds": update_seconds,
        "updated": again.updated,
        "peak_mib": peak_kib / 1024,
    }


def child_ceiling(folder: Path, csv_path: Path) -> dict:
    """Run in a child process: the same rows with a bare executemany, no checks."""
    import sqlite3

    from app.services.record_ids import new_record_id

    app = _app(f"sqlite:///{folder / 'ceiling.db'}")
    with app.app_context():
        _campaign()
    started = time.perf_counter()
    connection = sqlite3.connect(folder / "ceiling.db", isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA cache_size=-65536")  # as the app's connections
    now = "2026-01-01 00:00:00.000000"
    with csv_path.open(newline="", encoding="utf-8") as handle:
        rows = csv.reader(handle)
        header = next(rows)
        task_id = 0
        while chunk := [row for _, row in zip(range(2000), rows, strict=False)]:
            connection.execute("BEGIN")
            tasks, items = [], []
            for row in chunk:
                task_id += 1
                tasks.append((task_id, new_record_id(), 1, row[0], "Id", 1, "UTC",
                              "NOTWORKED", 0, now, now))  # fmt: skip
                pairs = enumerate(zip(header, row, strict=True))
                items += [(task_id, 1, key, value, None, place) for place, (key, value) in pairs]
            connection.executemany(
                "INSERT INTO tasks (id, record_id, campaign_id, client_id, client_id_field,"
                " skill_queue_id, time_zone, worked_state, work_attempts, created_at, updated_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                tasks,
            )
            connection.executemany(
                "INSERT INTO task_items (task_id, campaign_id, key, value, number, position)"
                " VALUES (?,?,?,?,?,?)",
                items,
            )
            connection.execute("COMMIT")
    connection.close()
    return {"seconds": time.perf_counter() - started}


def _in_child(role: str, folder: Path, csv_path: Path, url: str = "") -> dict:
    output = subprocess.run(
        [sys.executable, "-m", "bench.intake", role, str(folder), str(csv_path), url],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(output.stdout.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        sizes = sorted({min(ROWS, 100_000), ROWS})
        print(f"intake: generated CSV, {len(HEADER)} columns, SQLite")
        print(f"{'rows':>10} {'load s':>8} {'rows/s':>10} {'ceiling s':>10} {'rows/s':>10} "
              f"{'ratio':>6} {'update s':>9} {'rows/s':>10} {'peak MiB':>9}")  # fmt: skip
        files, sqlite_seconds = {}, {}
        for rows in sizes:
            files[rows] = csv_path = folder / f"intake-{rows}.csv"
            write_file(csv_path, rows)
            run = folder / f"run-{rows}"
            run.mkdir()
            loaded = _in_child("load", run, csv_path)
            (run / "load.db").unlink()
            ceiling = _in_child("ceiling", run, csv_path)
            (run / "ceiling.db").unlink()
            sqlite_seconds[rows] = loaded["seconds"]
            print(
                f"{rows:>10,} {loaded['seconds']:>8.1f} {rows / loaded['seconds']:>10,.0f} "
                f"{ceiling['seconds']:>10.1f} {rows / ceiling['seconds']:>10,.0f} "
                f"{ceiling['seconds'] / loaded['seconds']:>6.2f} "
                f"{loaded['update_seconds']:>9.1f} {rows / loaded['update_seconds']:>10,.0f} "
                f"{loaded['peak_mib']:>9.0f}",
                flush=True,
            )
        if url := postgresql_url("intake_bench"):
            _postgresql(url, files, sqlite_seconds, folder)


def _postgresql(url: str, files: dict, sqlite_seconds: dict, folder: Path) -> None:
    print("\nintake on PostgreSQL, autovacuum off for the tasks and items; beside SQLite's time")
    print(f"{'rows':>10} {'load s':>8} {'rows/s':>10} {'SQLite s':>9} {'x SQLite':>9} "
          f"{'update s':>9} {'rows/s':>10} {'peak MiB':>9}")  # fmt: skip
    for rows, csv_path in files.items():
        loaded = _in_child("load", folder, csv_path, url)
        print(
            f"{rows:>10,} {loaded['seconds']:>8.1f} {rows / loaded['seconds']:>10,.0f} "
            f"{sqlite_seconds[rows]:>9.1f} {loaded['seconds'] / sqlite_seconds[rows]:>9.2f} "
            f"{loaded['update_seconds']:>9.1f} {rows / loaded['update_seconds']:>10,.0f} "
            f"{loaded['peak_mib']:>9.0f}",
            flush=True,
        )


if __name__ == "__main__":
    if len(sys.argv) == 5:
        role, folder, csv_path, url = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
        if role == "load":
            result = child_load(folder, csv_path, url or None)
        else:
            result = child_ceiling(folder, csv_path)
        print(json.dumps(result))
    else:
        main()
