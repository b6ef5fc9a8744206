"""Delivery at scale: `nextTask` through the whole Desk API stack on a large campaign.

python -m bench.delivery          # 10,000 and 1,000,000 tasks, SQLite in a temporary folder
TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/bench python -m bench.delivery
BENCH_DELIVERY_TASKS=10000,100000 BENCH_DELIVERY_CALLS=100 python -m bench.delivery

Each campaign is bulk-loaded: 10% WORKED with a future next earliest time, 5% with a
preferred agent (1 in 5 of them one of the pulling agents agent10-agent19, the others
people who are no users; each hold ends when the service would end it), the rest
NOTWORKED, 3 data items each; then ANALYZE. Agent `ann`, for whom nothing is held, asks
`nextTask` through the test client as a client would, then completes the task (every 4th
one she releases), so every call delivers. Her CPU time per call is printed beside the
wall time: on SQLite it is what a machine with nothing else to do would take. The SELECTs
on tasks that one nextTask sends follow: the plan of each and its time alone.
On PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL's with `_delivery_bench`
appended; that database is emptied) the largest campaign stays for bench/delivery_pull.py:
1, then 20 agents pulling at once.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from contextlib import nullcontext
from datetime import timedelta

from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError

from app import create_app
from app.config import test_settings
from app.db.bulk_inserts import bulk_insert, driver_value
from app.extensions import db
from app.models import Task
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns import catalogue as campaigns
from app.services.dnc import numbers as dnc
from app.services.people import agents
from app.services.people.users import NewUser, add_user
from app.services.record_ids import new_record_id
from app.services.schedules import calling_windows, hours
from app.services.schedules.window_clock import clock
from app.services.tasks.writes import hold_end
from app.services.tenants import api_keys as keys
from app.services.tenants import setup as tenants
from bench import delivery_pull, servers
from bench.databases import postgresql_url

SIZES = [int(n) for n in os.environ.get("BENCH_DELIVERY_TASKS", "10000,1000000").split(",")]
CALLS = int(os.environ.get("BENCH_DELIVERY_CALLS", 200))
SETUP = Actor.operator()
AGENT_NAMES = delivery_pull.AGENT_NAMES
HOLDERS = AGENT_NAMES[len(AGENT_NAMES) // 2 :]  # tasks are held for these pulling agents
ALONE = "ann"  # asks for the latency figures; no task is held for her
DAY = timedelta(days=1)
COLUMNS = (
    "record_id", "campaign_id", "client_id", "client_id_field", "skill_queue_id", "time_zone",
    "worked_state", "work_attempts", "next_earliest_work_at", "last_attempt_at",
    "last_attempt_agent", "preferred_agent", "hold_until", "version", "created_at", "updated_at",
)  # fmt: skip
ITEMS = (  # key, SQL of its value from the task's row
    ("Id", "client_id"),
    ("Name", "'Customer ' || client_id"),
    ("Phone", "'+1415' || substr(client_id, 3)"),
)


def _setup() -> tuple[object, str]:
    """Tenant Bench/prod, queue Sales, campaign Big, 21 agents of Sales; the API key."""
    tenant = tenants.create_tenant("AWS Connect", "Bench", "prod", "us-east-1", "saml", actor=SETUP)
    key = keys.issue_key(tenant, actor=SETUP)
    tenants.create_skill_queue(tenant, "Sales", actor=SETUP)
    tenants.create_user_template(tenant, "Agent", actor=SETUP)
    db.session.flush()
    campaign = campaigns.create_campaign(tenant, "Big", "Sales", "UTC", actor=SETUP)
    for login in [ALONE, *AGENT_NAMES]:
        user = add_user(tenant, NewUser(login, login.title(), "Agent", "Agent"), actor=SETUP)
        agents.set_agent_queues(user, ["Sales"], actor=SETUP)
    db.session.commit()
    return campaign, key


def _task_rows(campaign, numbers: range, now) -> list[tuple]:
    """Tasks as driver rows: 1 in 10 WORKED (due in 1 to 30 days), 1 in 20 with a preferred
    agent (one NOTWORKED and one WORKED task in 40; 1 in 5 of them one of HOLDERS)."""
    stamp = driver_value(db.session, Task.__table__.c.created_at)
    queue, created, attempted = campaign.default_skill_queue_id, stamp(now), stamp(now - DAY)
    rows = []
    for n in numbers:
        worked, next_work, preferred = n % 10 == 9, None, None
        if worked:
            next_work = now + DAY * (1 + n % 30) + timedelta(minutes=n % 1440)
        if n % 40 in (3, 19):
            k = n // 40
            preferred = HOLDERS[k // 5 % len(HOLDERS)] if k % 5 == 0 else f"person{k}"
        hold = stamp(hold_end(preferred, next_work, now)) if preferred else None
        rows.append(
            (new_record_id(), campaign.id, f"C{n:08d}", "Id", queue, "UTC", "WORKED",
             1, stamp(next_work), attempted, "agent00", preferred, hold, 1, created, created)
            if worked else
            (new_record_id(), campaign.id, f"C{n:08d}", "Id", queue, "UTC", "NOTWORKED",
             0, None, None, None, preferred, hold, 1, created, created)
        )  # fmt: skip
    return rows


def _skip_key_checks() -> None:
    """PostgreSQL: no foreign-key trigger per bulk row in this transaction (the rows are
    consistent by construction). Needs a superuser; without one the checks run, slower."""
    if db.session.connection().dialect.name != "postgresql":
        return
    try:
        with db.session.begin_nested():
            db.session.execute(text("SET LOCAL session_replication_role = replica"))
    except DBAPIError:
        pass


def _insert_tasks(rows: list[tuple]) -> None:
    """executemany on SQLite; COPY on PostgreSQL, its bulk path."""
    connection = db.session.connection()
    if connection.dialect.name != "postgresql":
        bulk_insert(db.session, Task.__table__, COLUMNS, rows)
        return
    cursor = connection.connection.driver_connection.cursor()
    with cursor.copy(f"COPY tasks ({', '.join(COLUMNS)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _bulk_load(campaign, count: int) -> float:
    """`count` tasks, 3 data items each (INSERT ... SELECT), then ANALYZE; seconds taken."""
    started = time.perf_counter()
    now = utcnow()
    for first in range(0, count, 10_000):
        _skip_key_checks()
        _insert_tasks(_task_rows(campaign, range(first, min(first + 10_000, count)), now))
        db.session.commit()
    _skip_key_checks()
    for position, (key, value) in enumerate(ITEMS):
        db.session.execute(
            text(
                "INSERT INTO task_items (task_id, campaign_id, key, value, position)"
                f" SELECT id, campaign_id, :key, {value}, :position FROM tasks"  # noqa: S608
                " WHERE campaign_id = :campaign"
            ),
            {"key": key, "position": position, "campaign": campaign.id},
        )
    db.session.commit()
    db.session.execute(text("ANALYZE"))
    db.session.commit()
    return time.perf_counter() - started


def _switch_rules_on(campaign, size: int) -> str:
    """Hours, a calling window and the do-not-call list at work on the loaded campaign:
    Sales follows a schedule open every day, the campaign calls from two hours before now
    to two hours after in each task's zone, every third task is in a zone outside that
    window now (Asia/Kolkata, 5:30 ahead), and the phone of every 100th task is listed."""
    tenant = campaign.tenant
    schedule = hours.create_schedule(tenant, "Always", "UTC", ["mon-sun 00:00-24:00"], actor=SETUP)
    hours.set_queue_schedule(campaign.default_skill_queue, schedule, actor=SETUP)
    minute = utcnow().hour * 60 + utcnow().minute
    window = ((minute - 120) % (24 * 60), (minute + 120) % (24 * 60))
    calling_windows.set_calling_window(campaign, *window, actor=SETUP)
    db.session.execute(
        text("UPDATE tasks SET time_zone = 'Asia/Kolkata' WHERE campaign_id = :c AND id % 3 = 0"),
        {"c": campaign.id},
    )
    numbers = (f"+1415{n:07d}" for n in range(0, size, 100))
    dnc.insert_numbers(tenant.id, [(number, "bench") for number in numbers])
    db.session.commit()
    db.session.execute(text("ANALYZE"))
    db.session.commit()
    return f"window {clock(window[0])}-{clock(window[1])} UTC, {size // 100:,} numbers listed"


def _caller(client, key: str):
    """POST a Desk API action as a client sends it (the five X-sc- headers, tenant, agent)."""
    headers = servers.headers(key)

    def call(action: str, agent: str, **fields) -> dict:
        body = {"tenant": delivery_pull.TENANT, "agent": agent, **fields}
        answer = client.post(delivery_pull.DESK + action, json=body, headers=headers).get_json()
        assert answer["result"] == "SUCCESS", answer
        return answer

    return call


def _work_one(call, n: int, listening=None) -> tuple[float, float]:
    """nextTask, timed (seconds, and this thread's CPU seconds, which on SQLite are what a
    machine with nothing else to do would take); then complete the task, or every 4th one
    release it."""
    with listening or nullcontext():
        started, cpu = time.perf_counter(), time.thread_time()
        answer = call("nextTask", ALONE)
        seconds = time.perf_counter() - started, time.thread_time() - cpu
    record_id = answer["task"]["previewRecordID"]
    if n % 4 == 3:
        call("releaseTask", ALONE, previewRecordID=record_id)
    else:
        call("closeTask", ALONE, previewRecordID=record_id, outcome="COMPLETE")
    return seconds


class _Statements:
    """The statements the app sends while this is entered, with their parameters."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, object]] = []

    def _keep(self, _conn, _cursor, statement, parameters, _context, _many) -> None:
        self.sent.append((statement, parameters))

    def __enter__(self) -> _Statements:
        event.listen(db.engine, "before_cursor_execute", self._keep)
        return self

    def __exit__(self, *_exc) -> None:
        event.remove(db.engine, "before_cursor_execute", self._keep)


def _plan(connection, statement: str, parameters) -> list[str]:
    if connection.dialect.name == "sqlite":
        rows = connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
        return [row[3] for row in rows]
    return [row[0] for row in connection.exec_driver_sql("EXPLAIN " + statement, parameters)]


def _full_scan(plan: list[str]) -> bool:
    """The plan reads the whole tasks table, no index bounding it."""
    scans = ("SCAN tasks", "Seq Scan on tasks")
    return any(line.strip().startswith(scans) and "INDEX" not in line for line in plan)


def _alone_ms(connection, statement: str, parameters, runs: int = 5) -> float:
    """The statement's median time on its own, each run rolled back (its row locks too)."""
    times = []
    for _ in range(runs):
        connection.rollback()
        started = time.perf_counter()
        connection.exec_driver_sql(statement, parameters).fetchall()
        times.append(time.perf_counter() - started)
    connection.rollback()
    return statistics.median(times) * 1000


QUERIES = (  # what a SELECT on tasks is, by a piece of its SQL
    ("WHERE tasks.reserved_by_id =", "the agent's own task"),
    ("WHERE tasks.preferred_agent =", "held tier"),
    ("'WORKED' AND tasks.next_earliest_work_at <=", "rescheduled tier"),
    ("'WORKED' AND tasks.next_earliest_work_at IS NULL", "WORKED without a time"),
    ("WHERE tasks.worked_state = 'WORKED'", "rescheduled tier"),  # an unbounded one
    ("WHERE tasks.worked_state = 'NOTWORKED'", "new tier"),
)


def _show_plans(call) -> dict[str, tuple[float, bool]]:
    """One more nextTask; each of its SELECTs on tasks with its time alone and its plan.
    By query: its time alone (ms) and whether it reads the whole table."""
    statements = _Statements()
    _work_one(call, 0, statements)
    found = {}
    with db.engine.connect() as connection:
        for statement, parameters in statements.sent:
            flat = " ".join(statement.split())
            if not flat.startswith("SELECT") or " FROM tasks" not in flat:
                continue
            label = next((name for part, name in QUERIES if part in flat), flat[:40])
            plan = _plan(connection, statement, parameters)
            found[label] = ms, scan = _alone_ms(connection, statement, parameters), _full_scan(plan)
            where = flat[flat.index(" WHERE ") + 7 :]
            print(f"  {label}, {ms:.2f} ms alone: WHERE {where[:90]}…")
            for line in plan:
                print(f"      {line[:150]}{'…' if len(line) > 150 else ''}")
            if scan:
                print("      ^ FULL SCAN of tasks")
    return found


def _ms(seconds: list[float]) -> tuple[float, float]:
    """Median and 95th percentile, in ms."""
    ordered = sorted(seconds)
    return statistics.median(ordered) * 1000, ordered[round(0.95 * (len(ordered) - 1))] * 1000


def _measure(url: str, size: int) -> dict:
    """A campaign of `size` tasks at `url`: its load, nextTask's times, plans of one call."""
    app = create_app(test_settings(url))
    with app.app_context():
        db.drop_all()
        db.create_all()
        campaign, key = _setup()
        loaded = _bulk_load(campaign, size)
        call = _caller(app.test_client(), key)
        call("setAgentState", ALONE, state="AVAILABLE")
        _work_one(call, 0)  # the first call fills the caches
        times = [_work_one(call, n) for n in range(1, CALLS + 1)]
        print(f"-- {size:,} tasks: the SELECTs on tasks of one nextTask, time alone and plan")
        queries = _show_plans(call)
        rules = _switch_rules_on(campaign, size)
        _work_one(call, 0)
        ruled = [_work_one(call, n) for n in range(1, CALLS + 1)]
        print(f"-- {size:,} tasks, hours, calling window and do-not-call on ({rules})")
        _show_plans(call)
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
    return {"load": loaded, "times": times, "ruled": ruled, "queries": queries, "key": key}


def _report(name: str, url: str) -> str:
    """Every size on one database; the API key of the last campaign loaded."""
    print(f"delivery: nextTask through the Desk API (test client), {name}")
    results, lines = {}, []
    for size in SIZES:
        started = time.perf_counter()
        results[size] = found = _measure(url, size)
        median, p95 = _ms([wall for wall, _ in found["times"]])
        cpu = statistics.median(cpu for _, cpu in found["times"]) * 1000
        ruled, ruled_p95 = _ms([wall for wall, _ in found["ruled"]])
        lines.append(
            f"{size:>10,} {found['load']:>7.1f} {median:>8.1f} {p95:>8.1f} {cpu:>8.1f}"
            f" {ruled:>8.1f} {ruled_p95:>8.1f} {time.perf_counter() - started:>7.1f}"
        )
    print(f"nextTask, {CALLS} calls, each followed by closeTask or releaseTask (ms; CPU: this"
          " thread's, what an idle machine would take on SQLite)")  # fmt: skip
    print("rules on: the same with hours of operation, a calling window and do-not-call")
    print(
        f"{'tasks':>10} {'load s':>7} {'median':>8} {'p95':>8} {'CPU':>8}"
        f" {'rules on':>8} {'p95':>8} {'run s':>7}"
    )
    print("\n".join(lines))
    if len(SIZES) > 1:
        small, large = (
            statistics.median(wall for wall, _ in results[size]["times"])
            for size in (SIZES[0], SIZES[-1])
        )
        print(f"median {SIZES[-1]:,} / {SIZES[0]:,} tasks: {large / small:.2f} (flat is near 1)")
        ruled_small, ruled_large = (
            statistics.median(wall for wall, _ in results[size]["ruled"])
            for size in (SIZES[0], SIZES[-1])
        )
        print(
            f"rules on, median {SIZES[-1]:,} / {SIZES[0]:,} tasks: "
            f"{ruled_large / ruled_small:.2f}; rules on / off at {SIZES[-1]:,}: "
            f"{ruled_large / large:.2f}"
        )
    print(f"{'SELECT on tasks (ms alone)':<28}" + "".join(f"{size:>11,}" for size in SIZES))
    for label in dict.fromkeys(label for _, label in QUERIES):
        times = [results[size]["queries"].get(label) for size in SIZES]
        cells = "".join(f"{t[0]:>11.2f}" if t else f"{'-':>11}" for t in times)
        scans = " FULL SCAN" if any(t and t[1] for t in times) else ""
        print(f"{label:<28}{cells}{scans}")
    return results[SIZES[-1]]["key"]


def main() -> None:
    started = time.perf_counter()
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as folder:
        _report("SQLite", f"sqlite:///{folder}/delivery.db")
    print(f"(SQLite part: {time.perf_counter() - started:.0f} s)")
    url = postgresql_url("delivery_bench")
    if not url:
        print("20 agents pulling at once: set TEST_DATABASE_URL to run it on PostgreSQL")
        return
    print()
    key = _report("PostgreSQL", url)
    print()
    delivery_pull.main(url, key, SIZES[-1])


if __name__ == "__main__":
    main()
