"""The search benchmark's data: a 10,000-task and a 1,000,000-task campaign in one database.

Every task has 8 data items. The values are built so that each benchmarked condition finds
either the same number of tasks in both campaigns (10 matches, 1 match) or the same share
of them (20 %, 10 %…), so a latency that grows with the campaign is the plan's doing, not
the answer's.
"""

from __future__ import annotations

import random
import time
import uuid

from sqlalchemy import func, select, text

from app.extensions import db
from app.models import Campaign, Task, TaskItem, search_index
from app.services.actors import Actor
from app.services.campaigns import catalogue as campaigns
from app.services.tenants import setup as tenants
from app.services.values import parse_number

PLANS = ("Basic", "Plus", "Premium", "Gold")
CITIES = ("Paris", "Lima", "Oslo", "Pune", "Kyiv")
STATES = ("NOTWORKED", "WORKED", "COMPLETED")
KEYS = ("Id", "Name", "Phone", "Plan", "Balance", "City", "Notes", "Score")
CHUNK = 20_000
NOW = "2026-01-01 00:00:00"


def item_values(n: int, size: int, rng: random.Random) -> tuple[str, ...]:
    """The 8 values of task `n` of a campaign of `size` tasks."""
    tenth = size // 10
    if n % tenth == 77:
        balance = "9876"  # 10 tasks above 9500
    elif n % tenth == 99:
        balance = "7"  # 10 tasks below 10
    elif n % 100 == 50:
        balance = "8k approx"  # text between the two, found by neither
    else:
        balance = str(rng.randint(100, 9000))
    return (
        f"C{n:08d}",
        f"Customer {n}",
        f"+1415{n:07d}",
        PLANS[n % 4],
        balance,
        rng.choice(CITIES),
        f"account {n} note_{n % 100}",
        str(n % 1000),
    )


def find_campaigns() -> dict[int, Campaign] | None:
    """The campaigns of an earlier load, by size, or None."""
    if not db.inspect(db.engine).has_table("campaigns"):
        return None
    found = db.session.scalars(select(Campaign).where(Campaign.name.like("Size %"))).all()
    return {int(campaign.name.split()[1]): campaign for campaign in found} or None


def complete(made: dict[int, Campaign]) -> bool:
    """Whether every campaign holds its number of tasks (an earlier load ran to its end)."""
    return all(
        db.session.scalar(select(func.count()).where(Task.campaign_id == campaign.id)) == size
        for size, campaign in made.items()
    )


def load(sizes: tuple[int, ...]) -> dict[int, Campaign]:
    """Create a tenant and one campaign per size, filled with generated tasks.

    The indexes (and the trigram index) are built once after the rows are in, which is
    minutes faster than row by row; PostgreSQL's statistics are then gathered, as its
    autovacuum would. SQLite's are not: the service never runs ANALYZE.
    """
    tenant = tenants.create_tenant(
        "AWS Connect", "Bench", "prod", "us-east-1", "saml", actor=Actor.operator()
    )
    tenants.create_skill_queue(tenant, "Sales", actor=Actor.operator())
    db.session.flush()
    made = {}
    for size in sizes:
        made[size] = campaigns.create_campaign(
            tenant, f"Size {size}", "Sales", "UTC", actor=Actor.operator()
        )
    db.session.commit()
    connection = db.session.connection()
    indexes = [*Task.__table__.indexes, *TaskItem.__table__.indexes]
    for index in indexes:
        index.drop(connection)
    search_index.drop(connection)
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"DROP INDEX IF EXISTS {search_index.TRIGRAM_INDEX}")
    db.session.commit()
    for size, campaign in made.items():
        started = time.perf_counter()
        _fill(campaign, size)
        print(f"  {size:,} tasks loaded in {time.perf_counter() - started:.0f} s", flush=True)
    started = time.perf_counter()
    connection = db.session.connection()
    for index in indexes:
        index.create(connection)
    search_index.create(connection)
    db.session.commit()
    print(f"  indexed in {time.perf_counter() - started:.0f} s", flush=True)
    if db.engine.dialect.name == "postgresql":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as autocommit:
            autocommit.exec_driver_sql("VACUUM ANALYZE")
    return made


def _fill(campaign, size: int) -> None:
    rng = random.Random(size)
    first = (db.session.scalar(select(func.max(Task.id))) or 0) + 1
    queue = campaign.default_skill_queue_id
    for start in range(0, size, CHUNK):
        tasks, items = [], []
        for n in range(start, min(start + CHUNK, size)):
            task_id = first + n
            tasks.append(
                (task_id, str(uuid.UUID(int=rng.getrandbits(128))), campaign.id, f"C{n:08d}",
                 "Id", queue, "UTC", rng.choices(STATES, (3, 5, 2))[0], rng.randint(0, 3),
                 NOW, NOW, 1)
            )  # fmt: skip
            for position, (key, value) in enumerate(
                zip(KEYS, item_values(n, size, rng), strict=True)
            ):
                items.append(
                    (task_id, campaign.id, key, value, parse_number(value), None, position)
                )
        _insert(tasks, items)
    if db.engine.dialect.name == "postgresql":
        db.session.execute(
            text("SELECT setval(pg_get_serial_sequence('tasks', 'id'), max(id)) FROM tasks")
        )
    db.session.commit()


TASK_COLUMNS = (
    "id, record_id, campaign_id, client_id, client_id_field, skill_queue_id, time_zone, "
    "worked_state, work_attempts, created_at, updated_at, version"
)
ITEM_COLUMNS = "task_id, campaign_id, key, value, number, display_order, position"


def _insert(tasks: list[tuple], items: list[tuple]) -> None:
    connection = db.session.connection().connection.driver_connection
    if db.engine.dialect.name == "postgresql":
        with connection.cursor() as cursor:
            with cursor.copy(f"COPY tasks ({TASK_COLUMNS}) FROM STDIN") as copy:
                for row in tasks:
                    copy.write_row(row)
            with cursor.copy(f"COPY task_items ({ITEM_COLUMNS}) FROM STDIN") as copy:
                for row in items:
                    copy.write_row(row)
    else:
        connection.executemany(
            f"INSERT INTO tasks ({TASK_COLUMNS}) VALUES ({', '.join('?' * 12)})", tasks
        )
        connection.executemany(
            f"INSERT INTO task_items ({ITEM_COLUMNS}) VALUES (?,?,?,?,?,?,?)", items
        )
    db.session.commit()
