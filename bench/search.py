"""Search at scale: each condition on a 10,000- and a 1,000,000-task campaign, beside the
best hand-written SQL asking the same question of the same database.

    make bench                            # SQLite, then PostgreSQL when TEST_DATABASE_URL is set
    python -m bench.search                # the same, search only
    BENCH_SEARCH_SIZES=10000,100000 …     # other campaign sizes (the first and last compared)
    BENCH_SEARCH_FOLDER=/var/tmp/bench …  # keep the SQLite file there, and reuse it next time
    BENCH_DATABASE_URL=postgresql+psycopg://…/bench_search   # this PostgreSQL database

On PostgreSQL the database is BENCH_DATABASE_URL, else TEST_DATABASE_URL's with
`_search_bench` appended; a database that already holds the generated campaigns is reused
(loading a million tasks takes minutes). Figures only, nothing asserted but the answers:
every hand-written variant must find exactly the tasks the service finds.

Per condition: `service` is the SQL that search_tasks sends (the campaign's id range, its
counts, its query), `hand` the fastest hand-written variant (bench/search_cases.py), both
sent again through the driver and every row fetched; `ratio` service / hand; `growth` the
service's time on the large campaign over the small one; `objects` the whole search_tasks
call on the large campaign: building the statements and the ORM objects of up to 1,000
tasks included.

Each figure is the fastest of RUNS runs, the runs of both sides interleaved, in CPU time:
this process's (SQLite works inside it) plus, for a PostgreSQL server on this machine, its
backend's. Other programs on a shared machine do not inflate it; a remote server's
figures are wall-clock time.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from pathlib import Path

from sqlalchemy import event, text

from app import create_app
from app.config import test_settings
from app.extensions import db
from app.services.search import query as search
from bench import search_data
from bench.databases import postgresql_url
from bench.search_cases import LIMIT, Case, cases

SIZES = tuple(
    int(size) for size in os.environ.get("BENCH_SEARCH_SIZES", "10000,1000000").split(",")
)
RUNS = 9


def _captured(run) -> list[tuple[str, object]]:
    """The statements `run` sends to the database (transaction control left out)."""
    sent = []

    def record(_conn, _cursor, statement, parameters, _context, _many):
        if not statement.startswith(("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")):
            sent.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        run()
    finally:
        event.remove(db.engine, "before_cursor_execute", record)
    return sent


def _clock():
    """A clock of the work done: CPU time, of this process (SQLite runs in it) and, when
    the server runs on this machine, of the PostgreSQL backend serving this session
    (Linux's schedstat, in nanoseconds); else wall-clock time."""
    if db.engine.dialect.name == "sqlite":
        return time.process_time
    backend = Path(f"/proc/{db.session.scalar(text('SELECT pg_backend_pid()'))}/schedstat")
    if not backend.exists():
        return time.perf_counter

    def both() -> float:
        return time.process_time() + int(backend.read_text().split()[0]) / 1e9

    return both


def _replay_ms(statements: list[tuple[str, object]], clock) -> float:
    """Milliseconds to send the statements again through the driver and fetch every row;
    a quick one is sent repeatedly for 5 ms at least, so that the clock can time it."""
    cursor = db.session.connection().connection.driver_connection.cursor()

    def send(times: int) -> float:
        started = clock()
        for _ in range(times):
            for statement, parameters in statements:
                cursor.execute(statement, parameters)
                if cursor.description is not None:  # a SET returns no rows
                    cursor.fetchall()
        return clock() - started

    once = send(1)
    times = math.ceil(0.005 / once) if once < 0.005 else 0
    elapsed = send(times) / times if times else once
    cursor.close()
    return elapsed * 1000


def measure(case: Case, campaign) -> dict:
    """Both sides run by the driver alone, interleaved, so that a busy moment of the machine
    weighs on both alike: the statements search_tasks sends, and each hand-written variant."""
    criteria = case.service_criteria()
    found = [task.id for task in search.search_tasks(campaign, criteria, LIMIT)]
    service = _captured(lambda: search.search_tasks(campaign, criteria, LIMIT))
    span = db.session.execute(
        text("SELECT min(id), max(id) FROM tasks WHERE campaign_id = :c"), {"c": campaign.id}
    ).one()
    params = {"c": campaign.id, "first": span[0], "last": span[1]}
    timed = []
    for sql in case.hand:
        ids = [row.id for row in db.session.execute(text(sql), params)]
        assert ids == found, (case.label, sql, len(ids), len(found))
        started = time.perf_counter()
        sent = _captured(lambda sql=sql: db.session.execute(text(sql), params).all())
        timed.append((time.perf_counter() - started, sent))
    # Only the variants near the fastest are run again: a walk of a million tasks for one
    # match would take most of the benchmark's time and never be the ceiling.
    fastest = min(seconds for seconds, _ in timed)
    hands = [sent for seconds, sent in timed if seconds <= 3 * fastest]
    times: dict[str, list[float]] = {"service": [], "hand": [], "objects": []}
    for _ in range(RUNS):
        clock = _clock()  # each run's session may hold another of the pool's connections
        times["service"].append(_replay_ms(service, clock))
        times["hand"].append(min(_replay_ms(hand, clock) for hand in hands))
        started = clock()
        search.search_tasks(campaign, criteria, LIMIT)
        times["objects"].append((clock() - started) * 1000)
        db.session.rollback()
    return {"found": len(found), **{name: min(ms) for name, ms in times.items()}}


def report(title: str, app) -> None:
    with app.app_context():
        made = search_data.find_campaigns()
        if made is None or set(made) != set(SIZES) or not search_data.complete(made):
            db.drop_all()
            db.create_all()
            print(f"{title}: loading {', '.join(f'{size:,}' for size in SIZES)} tasks…", flush=True)
            made = search_data.load(SIZES)
        small, large = made[min(SIZES)], made[max(SIZES)]
        sqlite = db.engine.dialect.name == "sqlite"
        print(
            f"search, {title}: maxRecords {LIMIT}, fastest of {RUNS} runs, ms; "
            f"campaigns of {min(SIZES):,} and {max(SIZES):,} tasks"
        )
        head = f"{'condition':34} {'found':>5}"
        for size in (min(SIZES), max(SIZES)):
            head += f" | {_short(size):>4}: {'service':>8} {'hand':>7} {'ratio':>5}"
        print(f"{head} | {'growth':>6} {'objects':>8}")
        for case in cases(sqlite):
            row = [measure(case, small), measure(case, large)]
            line = f"{case.label:34} {row[1]['found']:>5}"
            for figures in row:
                ratio = figures["service"] / figures["hand"]
                line += (
                    f" | {'':>4}  {figures['service']:>8.2f} {figures['hand']:>7.2f} {ratio:>5.2f}"
                )
            growth = row[1]["service"] / row[0]["service"]
            print(f"{line} | {growth:>6.2f} {row[1]['objects']:>8.2f}", flush=True)
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


def _short(size: int) -> str:
    return f"{size // 1_000_000}M" if size >= 1_000_000 else f"{size // 1000}k"


def main() -> None:
    kept = os.environ.get("BENCH_SEARCH_FOLDER")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(kept or folder) / "search-bench.db"
        report("SQLite", create_app(test_settings(f"sqlite:///{path}")))
        if url := postgresql_url("search_bench"):
            print()
            app = create_app(test_settings(url))
            with app.app_context():
                version = db.session.scalar(text("SHOW server_version"))
                settings = ", ".join(
                    f"{name} {db.session.scalar(text(f'SHOW {name}'))}"
                    for name in ("jit", "max_parallel_workers_per_gather", "work_mem")
                )
                db.session.remove()
            report(f"PostgreSQL {version} ({settings})", app)


if __name__ == "__main__":
    main()
