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
download (the UI, a signed-in supervisor's GET), and the ceiling, `plain_export` below: the
same three ordered cursors as plain driver cursors merged in a loop, on a new connection of
the app's engine (its pragmas on SQLite, its options on PostgreSQL). Printed for each: wall
seconds, the ratio service (CLI) / ceiling, the same in CPU seconds (steadier when other
work shares the machine), and the peak RSS (Linux's VmHWM, the child's own) with, in
brackets, what the export added to the app's imports. Every file must be byte-identical
(`same`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from pathlib import Path

from sqlalchemy import create_engine, func, make_url, select, text

from app.config import database_url, test_settings

SIZES = [int(n) for n in os.environ.get("BENCH_EXPORT_TASKS", "100000,1000000").split(",")]
REPEAT = int(os.environ.get("BENCH_EXPORT_REPEAT", 1))  # the best of this many runs of each
CHUNK = 20_000
PLANS = ("Basic", "Plus", "Premium", "Gold")
CITIES = ("Paris", "Lima", "Oslo", "Pune", "Kyiv", "Zürich", "東京")
NOTES = ('said "call back", then hung up', "=ask for Ann", "prefers mornings, weekdays")
STATES = ("NOTWORKED", "WORKED", "COMPLETED")
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SUPERVISOR = "bench@example.com"


def _app(url: str):
    from app import create_app

    return create_app(test_settings(url))


# ---- the data -------------------------------------------------------------------------


def _task(n: int, rng: random.Random, campaign, queues: list[int], stored) -> tuple:
    state = rng.choices(STATES, (5, 3, 2))[0]
    worked = state != "NOTWORKED"
    last_at = START + timedelta(seconds=rng.randint(0, 10**7), microseconds=rng.randint(0, 10**6))
    next_at = last_at + timedelta(days=1) if state == "WORKED" else None
    preferred = rng.choice(("ann.agent", "=bob", "cy@example.com")) if n % 10 == 0 else None
    return (
        n, str(uuid.UUID(int=rng.getrandbits(128))), campaign.id, f"C{n:08d}", "Id",
        queues[n % len(queues)], "UTC", state, rng.randint(1, 4) if worked else 0,
        f"agent{n % 50}@example.com" if worked else None, stored(last_at if worked else None),
        stored(next_at), preferred, stored(START), stored(START), 1,
    )  # fmt: skip


def _items(n: int, rng: random.Random, campaign_id: int) -> list[tuple]:
    values = [f"C{n:08d}", f"Customer {n}", f"+1415{n:07d}", PLANS[n % 4],
              f"{rng.randint(0, 10**6) / 100:.2f}", rng.choice(CITIES),
              rng.choice(NOTES) if n % 2 else None, str(rng.randint(-50, 1000))]  # fmt: skip
    keys = ("Id", "Name", "Phone", "Plan", "Balance", "City", "Notes", "Score")
    return [
        (n, campaign_id, key, value, None, None, position)
        for position, (key, value) in enumerate(zip(keys, values, strict=True))
        if value is not None
    ]


TASK_COLUMNS = (
    "id, record_id, campaign_id, client_id, client_id_field, skill_queue_id, time_zone, "
    "worked_state, work_attempts, last_attempt_agent, last_attempt_at, next_earliest_work_at, "
    "preferred_agent, created_at, updated_at, version"
)
ITEM_COLUMNS = "task_id, campaign_id, key, value, number, display_order, position"
CODE_COLUMNS = "task_id, key, value, position"


def _write(connection, tasks: list[tuple], items: list[tuple], codes: list[tuple]) -> None:
    driver = connection.connection.driver_connection
    if connection.dialect.name == "postgresql":
        with driver.cursor() as cursor:
            for table, columns, rows in (("tasks", TASK_COLUMNS, tasks),
                                         ("task_items", ITEM_COLUMNS, items),
                                         ("work_codes", CODE_COLUMNS, codes)):  # fmt: skip
                with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
        return
    for table, columns, rows in (("tasks", TASK_COLUMNS, tasks),
                                 ("task_items", ITEM_COLUMNS, items),
                                 ("work_codes", CODE_COLUMNS, codes)):  # fmt: skip
        marks = ", ".join("?" * len(columns.split(",")))
        driver.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)  # noqa: S608


def _fill(db, campaign, size: int, first: int, queues: list[int]) -> None:
    from app.models import Task
    from app.storage import driver_value

    stored = driver_value(db.session, Task.__table__.c.last_attempt_at)
    rng = random.Random(size)
    for start in range(first, first + size, CHUNK):
        tasks, items, codes = [], [], []
        for n in range(start, min(start + CHUNK, first + size)):
            task = _task(n, rng, campaign, queues, stored)
            tasks.append(task)
            items += _items(n, rng, campaign.id)
            if task[7] == "COMPLETED":
                codes.append((n, "Outcome", rng.choice(("Sale", "No sale", "-callback")), 0))
                if n % 3 == 0:
                    codes.append((n, "Reason", "Price", 1))
        _write(db.session.connection(), tasks, items, codes)
        db.session.commit()


def _bare_tables(db) -> list:
    """Drop what a bulk load would maintain row by row (kept only for the campaign's
    reads): the indexes of the three tables and the search's trigram triggers; the
    indexes come back once the rows are in."""
    from app.models import Task, TaskItem, WorkCode

    connection = db.session.connection()
    indexes = [*Task.__table__.indexes, *TaskItem.__table__.indexes, *WorkCode.__table__.indexes]
    for index in indexes:
        index.drop(connection, checkfirst=True)
    if connection.dialect.name == "sqlite":
        triggers = connection.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'task_items'"
        ).scalars()
        for name in list(triggers):  # this database is read by exports alone
            connection.exec_driver_sql(f'DROP TRIGGER "{name}"')
    else:
        for name in connection.exec_driver_sql(
            "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
            " JOIN pg_class t ON t.oid = x.indrelid"
            " WHERE t.relname = 'task_items' AND NOT x.indisprimary AND NOT x.indisunique"
        ).scalars():
            connection.exec_driver_sql(f'DROP INDEX "{name}"')
    db.session.commit()
    return indexes


def prepare(url: str) -> dict[int, tuple[str, int]]:
    """The campaigns to export, by size: (name, id). Loaded unless an earlier run did."""
    from app.extensions import db
    from app.models import Campaign, Task
    from app.services import campaigns, supervisors, tenants
    from app.services.actors import Actor

    app = _app(url)
    with app.app_context():
        if db.inspect(db.engine).has_table("campaigns"):
            found = {c.name: c for c in db.session.scalars(select(Campaign))}
            counts = {
                size: db.session.scalar(
                    select(func.count()).where(Task.campaign_id == found[f"Export {size}"].id)
                )
                if f"Export {size}" in found
                else 0
                for size in SIZES
            }
            if all(counts[size] == size for size in SIZES):
                return {size: (f"Export {size}", found[f"Export {size}"].id) for size in SIZES}
            db.session.rollback()  # else drop_all waits on this transaction's locks
        db.drop_all()
        db.create_all()
        actor = Actor.operator()
        tenant = tenants.create_tenant("AWS Connect", "Bench", "prod", "us-east-1", "saml",
                                       actor=actor)  # fmt: skip
        queues = [
            tenants.create_skill_queue(tenant, name, actor=actor) for name in ("Sales", "=Ops")
        ]
        db.session.flush()
        made = {
            size: campaigns.create_campaign(tenant, f"Export {size}", "Sales", "UTC", actor=actor)
            for size in SIZES
        }
        # The download's supervisor (made here: hashing a password costs the child memory).
        supervisors.create_supervisor(SUPERVISOR, "correct horse battery", None, actor=actor)
        db.session.commit()
        indexes = _bare_tables(db)
        first = 1
        for size, campaign in made.items():
            started = time.perf_counter()
            _fill(db, campaign, size, first, [queue.id for queue in queues])
            first += size
            print(f"  {size:,} tasks loaded in {time.perf_counter() - started:.0f} s", flush=True)
        connection = db.session.connection()
        for index in indexes:
            index.create(connection)
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(
                "SELECT setval(pg_get_serial_sequence('tasks', 'id'), max(id)) FROM tasks"
            )
        db.session.commit()
        if db.engine.dialect.name == "postgresql":
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as autocommit:
                autocommit.exec_driver_sql("VACUUM ANALYZE")
        return {size: (campaign.name, campaign.id) for size, campaign in made.items()}


# ---- the three exports, each run in a child ----------------------------------------------


def child_cli(url: str, campaign: str, out: Path):
    """`flask intake export Bench prod CAMPAIGN -o FILE`, in this process."""
    app = _app(url)

    def export() -> None:
        with app.app_context():  # as the `flask` command runs its commands
            result = app.test_cli_runner().invoke(
                args=["intake", "export", "Bench", "prod", campaign, "-o", str(out)]
            )
        if result.exit_code:
            raise SystemExit(f"{result.output}{result.exception!r}")

    return export


def child_download(url: str, campaign: str, out: Path):
    """The campaign page's "Download these tasks (CSV)", as a signed-in supervisor."""
    from app.admin.sessions import TOKEN_KEY
    from app.extensions import db
    from app.models import Campaign, Supervisor
    from app.services.sessions import SessionLimits, start_session

    app = _app(url)
    client = app.test_client()
    with app.app_context():
        target = db.session.scalar(select(Campaign).where(Campaign.name == campaign))
        link = f"/tenants/{target.tenant_id}/campaigns/{target.id}/export.csv"
        boss = db.session.scalar(select(Supervisor).where(Supervisor.email == SUPERVISOR))
        token = start_session(boss, SessionLimits(timedelta(hours=1), timedelta(hours=1)))
        db.session.commit()
    with client.session_transaction() as session:
        session[TOKEN_KEY] = token
        session["_fresh"] = True

    def export() -> None:
        response = client.get(link, buffered=False)
        if response.status_code != 200:
            raise SystemExit(f"download: {response.status_code}")
        with out.open("wb") as handle:
            for part in response.response:
                handle.write(part)
        response.close()

    return export


def child_ceiling(url: str, campaign: str, out: Path):
    """plain_export on a new driver connection with the app's settings (its pragmas on
    SQLite, its options on PostgreSQL), as the service's export gets."""
    from app.extensions import db
    from app.models import Campaign

    app = _app(url)
    with app.app_context():
        target = db.session.scalar(select(Campaign).where(Campaign.name == campaign))
        campaign_id, field = target.id, target.client_id_field_name
        db.session.remove()
        db.engine.dispose()  # a new connection, with SQLite's page cache as cold as the CLI's

    def export() -> None:
        with app.app_context():
            connection = db.engine.raw_connection()
            with out.open("w", newline="", encoding="utf-8") as handle:
                plain_export(connection.driver_connection, campaign_id, field, handle)
            connection.close()

    return export


RISKY = frozenset("'=@+-\t\r")
FORMULA = frozenset("=@+-\t\r")


def _guard(cell: str) -> str:
    """A `'` before any number of `'` then a formula's first character."""
    if cell[:1] in RISKY and cell.lstrip("'")[:1] in FORMULA:
        return "'" + cell
    return cell


def plain_export(connection, campaign_id: int, field: str, handle) -> None:
    """The export as a short script would write it: a grouping query for the columns, then
    tasks, items and work codes, each by one cursor in task id order, merged in step."""
    sqlite = not hasattr(connection, "pgconn")
    mark = "?" if sqlite else "%s"
    if sqlite:
        connection.execute("BEGIN")

        def cursor(name, sql, *args):
            return iter(connection.execute(sql, args))

        def moment(value):  # stored as 'YYYY-MM-DD HH:MM:SS.ffffff'
            return value[:23] if value else ""
    else:

        def cursor(name, sql, *args):
            named = connection.cursor(name=name)
            named.itersize = 1000
            named.execute(sql, args)
            return iter(named)

        def moment(value):
            return f"{value:%Y-%m-%d %H:%M:%S}.{value.microsecond // 1000:03d}" if value else ""

    keys = [key for key, _ in cursor("keys",
        f"SELECT key, min(position) FROM task_items WHERE campaign_id = {mark} AND key <> {mark}"
        " GROUP BY key ORDER BY min(position), key", campaign_id, field)]  # fmt: skip
    tasks = cursor("tasks",
        "SELECT t.id, t.client_id, t.record_id, t.worked_state, t.work_attempts,"
        " t.last_attempt_agent, t.last_attempt_at, t.next_earliest_work_at, q.name,"
        " t.preferred_agent FROM tasks t JOIN skill_queues q ON q.id = t.skill_queue_id"
        f" WHERE t.campaign_id = {mark} ORDER BY t.id", campaign_id)  # fmt: skip
    items = cursor("items",
        "SELECT i.task_id, i.key, i.value FROM tasks t JOIN task_items i ON i.task_id = t.id"
        f" WHERE t.campaign_id = {mark} ORDER BY t.id, i.position", campaign_id)  # fmt: skip
    codes = cursor("codes",
        "SELECT c.task_id, c.key, c.value FROM tasks t JOIN work_codes c ON c.task_id = t.id"
        f" WHERE t.campaign_id = {mark} ORDER BY t.id, c.position", campaign_id)  # fmt: skip
    writer = csv.writer(handle)
    writer.writerow([_guard(cell) for cell in (field, *keys, "previewRecordID", "workedState",
        "workAttempts", "lastAttemptAgent", "lastAttemptTime", "nextEarliestWorkTime",
        "skillQueue", "preferredAgent", "workCodes")])  # fmt: skip
    item = next(items, None)
    code = next(codes, None)
    for task_id, client_id, record, state, attempts, agent, last, after, queue, preferred in tasks:
        values = {}
        while item is not None and item[0] == task_id:
            values[item[1]] = item[2]
            item = next(items, None)
        work_codes = []
        while code is not None and code[0] == task_id:
            work_codes.append(f"{code[1]}={code[2]}")
            code = next(codes, None)
        cells = [client_id, *[values.get(key, "") for key in keys], record, state]
        tail = [
            agent or "",
            moment(last),
            moment(after),
            queue,
            preferred or "",
            "|".join(work_codes),
        ]
        writer.writerow([*map(_guard, cells), attempts, *map(_guard, tail)])
    connection.rollback() if not sqlite else connection.execute("COMMIT")


# ---- the run ----------------------------------------------------------------------------


def _peak_mib() -> float:
    """This process's peak memory (max RSS). Linux's VmHWM is the process's own; getrusage's
    ru_maxrss also counts the parent's memory at the fork, which the benchmark's has grown."""
    with suppress(OSError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


CHILDREN = {"cli": child_cli, "download": child_download, "ceiling": child_ceiling}


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


def _postgresql_url() -> str | None:
    if url := os.environ.get("BENCH_EXPORT_DATABASE_URL"):
        return database_url(url)
    if not (url := os.environ.get("TEST_DATABASE_URL")):
        return None
    server = make_url(database_url(url))
    name = f"{server.database}_export_bench"
    engine = create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        if not connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}):
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return server.set(database=name).render_as_string(hide_password=False)


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
        if url := _postgresql_url():
            print()
            run("PostgreSQL", url, folder)
        else:
            print("export on PostgreSQL: set TEST_DATABASE_URL to run it")


if __name__ == "__main__":
    if len(sys.argv) == 5:
        role, url, campaign, out = sys.argv[1:]
        export = CHILDREN[role](url, campaign, Path(out))
        start_mib, cpu = _peak_mib(), time.process_time()
        started = time.perf_counter()
        export()
        seconds = time.perf_counter() - started
        print(json.dumps({
            "seconds": seconds,
            "cpu": time.process_time() - cpu,
            "start_mib": start_mib,
            "peak_mib": _peak_mib(),
        }))  # fmt: skip
    else:
        main()
