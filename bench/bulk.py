"""A bulk status change beside an intake update, on the same database: every task of a
campaign set to COMPLETED by a bulk job (as confirmed on the campaign page, run to its end
by the worker's code) against the same tasks updated by an intake file.

    python -m bench.bulk          # 1,000,000 tasks (BENCH_BULK_ROWS), SQLite, then PostgreSQL

Each database is measured in a child process: the file is loaded (every row adds a task),
loaded again (every row updates its task: the intake update), then one bulk job sets every
NOTWORKED task to COMPLETED. Both write an audit record and an event per task. The ratio is
the bulk job's time over the intake update's; its ceiling is 2.0. On PostgreSQL
(BENCH_DATABASE_URL, else TEST_DATABASE_URL's with `_bulk_bench` appended) autovacuum is
off for the tasks and their items, as in bench.intake.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.databases import postgresql_url
from bench.intake import _app, _campaign, write_file

ROWS = int(os.environ.get("BENCH_BULK_ROWS", 1_000_000))
CEILING = 2.0


def child_run(folder: Path, csv_path: Path, url: str | None = None) -> dict:
    """Run in a child process: load, update by intake, then the bulk status change."""
    from app.models import BulkState
    from app.services.actors import Actor
    from app.services.bulk.actions import BulkRequest
    from app.services.bulk.jobs import start_bulk
    from app.services.intake.load import load_file
    from app.services.search.criteria import Condition, Criterion

    app = _app(url or f"sqlite:///{folder / 'bulk.db'}")
    intake = Actor.intake("bench")
    with app.app_context():
        campaign = _campaign()
        load_file(campaign, csv_path, folder / "report.csv", actor=intake)
        started = time.perf_counter()
        updated = load_file(campaign, csv_path, folder / "report.csv", actor=intake)
        update_seconds = time.perf_counter() - started
        criteria = [Criterion("sys_worked_state", Condition.EQUALS, "NOTWORKED")]
        request = BulkRequest("status", state="COMPLETED")
        started = time.perf_counter()
        job = start_bulk(campaign, criteria, request, actor=Actor.supervisor("bench@example"))
        bulk_seconds = time.perf_counter() - started
        assert job.state == BulkState.DONE, job.message
        acted = job.acted
    return {
        "updated": updated.updated,
        "update_seconds": update_seconds,
        "acted": acted,
        "bulk_seconds": bulk_seconds,
    }


def _in_child(folder: Path, csv_path: Path, url: str = "") -> dict:
    output = subprocess.run(
        [sys.executable, "-m", "bench.bulk", str(folder), str(csv_path), url],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(output.stdout.strip().splitlines()[-1])


def _row(name: str, rows: int, run: dict) -> str:
    ratio = run["bulk_seconds"] / run["update_seconds"]
    return (
        f"{name:<11} {rows:>10,} {run['update_seconds']:>9.1f} "
        f"{rows / run['update_seconds']:>9,.0f} {run['bulk_seconds']:>7.1f} "
        f"{run['acted'] / run['bulk_seconds']:>9,.0f} {ratio:>6.2f} {CEILING:>8.1f}"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        csv_path = folder / "bulk.csv"
        write_file(csv_path, ROWS)
        print("bulk: a status change of every task by a bulk job, beside an intake update")
        print(f"{'database':<11} {'tasks':>10} {'update s':>9} {'rows/s':>9} {'bulk s':>7} "
              f"{'tasks/s':>9} {'ratio':>6} {'ceiling':>8}")  # fmt: skip
        run = _in_child(folder, csv_path)
        (folder / "bulk.db").unlink(missing_ok=True)
        print(_row("SQLite", ROWS, run), flush=True)
        if url := postgresql_url("bulk_bench"):
            print(_row("PostgreSQL", ROWS, _in_child(folder, csv_path, url)), flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4:
        folder, csv_path, url = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
        print(json.dumps(child_run(folder, csv_path, url or None)))
    else:
        main()
