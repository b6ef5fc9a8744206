"""The export benchmark's data: campaigns of generated tasks, loaded once and then reused.

Each campaign has 8 data keys (one of them on half of the tasks), phone numbers the
spreadsheet guard rewrites, notes with quotes and commas, work codes on the completed tasks
and times on the worked ones. The rows go in by the driver alone (COPY on PostgreSQL) with
the indexes and the search's trigram triggers dropped, the indexes made again after; a
database that already holds the campaigns is used as it is.
"""

from __future__ import annotations

import os
import random
import time
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from app.config import test_settings

SIZES = [int(n) for n in os.environ.get("BENCH_EXPORT_TASKS", "100000,1000000").split(",")]
CHUNK = 20_000
PLANS = ("Basic", "Plus", "Premium", "Gold")
CITIES = ("Paris", "Lima", "Oslo", "Pune", "Kyiv", "Zürich", "東京")
NOTES = ('said "call back", then hung up', "=ask for Ann", "prefers mornings, weekdays")
STATES = ("NOTWORKED", "WORKED", "COMPLETED")
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SUPERVISOR = "bench@example.com"


def make_app(url: str):
    """The app on the benchmark's database, with the test settings."""
    from app import create_app

    return create_app(test_settings(url))


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
    from app.db.bulk_inserts import driver_value
    from app.models import Task

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
    from app.services.actors import Actor
    from app.services.campaigns import catalogue as campaigns
    from app.services.people import supervisors
    from app.services.tenants import setup as tenants

    app = make_app(url)
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
