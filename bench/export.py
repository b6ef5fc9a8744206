"""Export at scale: the service's export beside a plain export by hand, same file, same run.

    python -m bench.export                # SQLite, then PostgreSQL when TEST_DATABASE_URL is set
    BENCH_EXPORT_TASKS=100000 …           # other campaign sizes (default 100,000 and 1,000,000)
    BENCH_EXPORT_FOLDER=/var/tmp/bench …  # keep the SQLite file there, and reuse it next time
    BENCH_EXPORT_REPEAT=3 …               # the best of 3 runs of each export (default 1)
    BENCH_EXPORT_DATABASE_URL=postgresql+psycopg://…/h_export_bench  # this PostgreSQL database

On PostgreSQL the database is BENCH_EXPORT_DATABASE_URL, else TEST_DATABASE_URL's with
`_export_bench` appended (created when missing); one that already holds the generated
campaigns is reused. Each campaign has 8 data keys (one of them on half of the tasks), phone
numbers the spreadsheet guard rewrites, notes with quotes and commas, work codes on the
completed tasks and times on the worked ones.

Every export runs in a child process of its own, so its time and peak memory are its own:
the service through `flask intake export -o FILE` (the CLI) and through the campaign page's
download (the UI, a signed-in supervisor's GET), and the ceiling, `plain_export`
(bench/export_children.py): the same three ordered cursors as plain driver cursors merged
in a loop, on a new connection of the app's engine (its pragmas on SQLite, its options on
PostgreSQL). Printed for each: wall seconds, the ratio service (CLI) / ceiling, the same in
CPU seconds (steadier when other work shares the machine), and the peak RSS (Linux's
VmHWM, the child's own) with, in brackets, what the export added to the app's imports.
Every file must be byte-identical (`same`). The campaigns are loaded by
bench/export_data.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from operator import itemgetter
from pathlib import Path

from bench.databases import postgresql_url
from bench.export_children import CHILDREN, peak_mib
from bench.export_data import SIZES, prepare

REPEAT = int(os.environ.get("BENCH_EXPORT_REPEAT", 1))  # the best of this many runs of each


def _in_child(role: str, url: str, campaign: str, out: Path) -> dict:
    """Run one export in a child process: its seconds, its peak RSS, its file's digest."""
    try:
        output = subprocess.run(
            [sys.executable, "-m", "bench.export", role, url, campaign, str(out)],
            capture_output=True, text=True,
        )  # fmt: skip
        if output.returncode:
            raise SystemExit(f"export {role} failed:\n{output.stdout}{output.stderr}")
        found = json.loads(output.stdout.strip().splitlines()[-1])
        digest = hashlib.sha256()
        with out.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
        return {**found, "role": role, "sha256": digest.hexdigest(), "bytes": out.stat().st_size}
    finally:
        out.unlink(missing_ok=True)


def _mib(result: dict) -> str:
    return f"{result['peak_mib']:.0f} (+{result['peak_mib'] - result['start_mib']:.0f})"


def run(label: str, url: str, folder: Path) -> None:
    """Load (or find) the campaigns, then export each by the three roads, side by side."""
    print(f"export: {label}; the service by the CLI and by the UI download vs plain cursors "
          f"(the ceiling); best of {REPEAT}", flush=True)  # fmt: skip
    made = prepare(url)
    print(f"{'tasks':>10} {'MB':>5} {'CLI s':>6} {'UI s':>6} {'ceiling s':>9} {'ratio':>5}  "
          f"{'CPU s CLI':>9} {'ceiling':>7} {'ratio':>5}  {'peak MiB (+export) CLI':>22} "
          f"{'UI':>9} {'ceiling':>9} {'same':>4}")  # fmt: skip
    for size in SIZES:
        name, _ = made[size]
        runs = [
            _in_child(role, url, name, folder / f"{role}.csv")
            for _ in range(REPEAT)
            for role in CHILDREN
        ]
        best = {
            role: min((found for found in runs if found["role"] == role), key=itemgetter("seconds"))
            for role in CHILDREN
        }
        cli, ui, ceiling = best["cli"], best["download"], best["ceiling"]
        same = len({found["sha256"] for found in runs}) == 1
        print(
            f"{size:>10,} {cli['bytes'] / 1e6:>5.0f} {cli['seconds']:>6.1f} {ui['seconds']:>6.1f} "
            f"{ceiling['seconds']:>9.1f} {cli['seconds'] / ceiling['seconds']:>5.2f}  "
            f"{cli['cpu']:>9.1f} {ceiling['cpu']:>7.1f} {cli['cpu'] / ceiling['cpu']:>5.2f}  "
            f"{_mib(cli):>22} {_mib(ui):>9} {_mib(ceiling):>9} {'yes' if same else 'NO':>4}",
            flush=True,
        )


def main() -> None:
    kept = os.environ.get("BENCH_EXPORT_FOLDER")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(kept or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        run("SQLite", f"sqlite:///{folder / 'export-bench.db'}", folder)
        if url := postgresql_url("export_bench", "BENCH_EXPORT_DATABASE_URL"):
            print()
            run("PostgreSQL", url, folder)
        else:
            print("export on PostgreSQL: set TEST_DATABASE_URL to run it")


if __name__ == "__main__":
    if len(sys.argv) == 5:
        role, url, campaign, out = sys.argv[1:]
        export = CHILDREN[role](url, campaign, Path(out))
        start_mib, cpu = peak_mib(), time.process_time()
        started = time.perf_counter()
        export()
        seconds = time.perf_counter() - started
        print(json.dumps({
            "seconds": seconds,
            "cpu": time.process_time() - cpu,
            "start_mib": start_mib,
            "peak_mib": peak_mib(),
        }))  # fmt: skip
    else:
        main()
