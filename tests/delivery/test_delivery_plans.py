"""Every SELECT on tasks that a delivery sends is answered by an index range, never by
reading the whole table or walking a whole index: the reason `nextTask` takes as long at a
million tasks as at ten thousand (the figures are in `make bench`).

The campaign is loaded in bulk, its dead rows vacuumed and its statistics gathered
(ANALYZE), as a long-running database has them: with them, SQLite judged a full index of
`reserved_by_id` (NULL on nearly every task) useless and read the whole table for the
agent's own task. On PostgreSQL, a small table is always cheapest to read whole, so the
plans are asked for with sequential scans switched off: what remains must still bound its
index read with an Index Cond.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import event, text

from app.db.bulk_inserts import bulk_insert, driver_value
from app.extensions import db
from app.models import Task
from app.models.types import utcnow
from app.services.dnc import numbers as dnc
from app.services.record_ids import new_record_id
from app.services.schedules import calling_windows
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    available,
    make_agent,
    offer,
    settings,
)

TASKS = 3000
COLUMNS = (
    "record_id", "campaign_id", "client_id", "client_id_field", "skill_queue_id", "time_zone",
    "worked_state", "work_attempts", "next_earliest_work_at", "preferred_agent", "hold_until",
    "reserved_by_id", "reserved_at", "version", "created_at", "updated_at",
)  # fmt: skip


def _load(campaign, holder_id: int, now) -> None:
    """TASKS tasks as a campaign worked for a while has them: the older two thirds worked
    (COMPLETED, and 1 in 10 WORKED due tomorrow), the newer third NOTWORKED; 1 in 20 held for
    someone else, 1 in 100 reserved by another agent; a Phone item each; then ANALYZE."""
    stamp = driver_value(db.session, Task.__table__.c.created_at)
    queue, created = campaign.default_skill_queue_id, stamp(now - timedelta(hours=1))
    rows = []
    for n in range(TASKS):
        worked = n % 10 == 9
        held = n % 20 == 3
        reserved = n % 100 == 7
        state = "NOTWORKED" if n >= TASKS * 2 // 3 else "WORKED" if worked else "COMPLETED"
        rows.append((
            new_record_id(), campaign.id, f"C{n:06d}", "Id", queue, "UTC",
            state, int(state != "NOTWORKED"),
            stamp(now + timedelta(days=1)) if worked else None,
            "someone" if held else None, stamp(now + timedelta(minutes=5)) if held else None,
            holder_id if reserved else None, stamp(now) if reserved else None,
            1, created, created,
        ))  # fmt: skip
    bulk_insert(db.session, Task.__table__, COLUMNS, rows)
    db.session.execute(
        text(
            "INSERT INTO task_items (task_id, campaign_id, key, value, position)"
            " SELECT id, campaign_id, 'Phone', '+1415' || substr(client_id, 2), 0 FROM tasks"
        )
    )
    db.session.commit()
    if db.engine.dialect.name == "postgresql":
        # The table and its indexes as this campaign alone makes them, whatever earlier
        # tests wrote and deleted: their dead rows and index pages made a walk of the whole
        # primary key look as cheap as the campaign's index of new tasks.
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM (FULL, ANALYZE) tasks, task_items")
    db.session.execute(text("ANALYZE"))
    db.session.commit()


def _statements_on_tasks(agent, now) -> list[tuple[str, object]]:
    sent = []

    def keep(_conn, _cursor, statement, parameters, _context, _many):
        flat = " ".join(statement.split())
        if flat.startswith("SELECT") and " FROM tasks" in flat:
            sent.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", keep)
    try:
        found = offer(agent, now)
    finally:
        event.remove(db.engine, "before_cursor_execute", keep)
    assert found.task is not None
    return sent


def _unbounded_sqlite(connection, statement, parameters) -> list[str]:
    rows = connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
    details = [row[3] for row in rows]
    # "SCAN tasks" reads the table, "SCAN tasks USING INDEX" walks a whole index.
    return [line for line in details if line.startswith("SCAN tasks")]


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", ()):
        yield from _nodes(child)


def _unbounded_postgresql(connection, statement, parameters) -> list[str]:
    connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
    rows = connection.exec_driver_sql("EXPLAIN (FORMAT JSON) " + statement, parameters)
    raw = rows.scalar()
    plan = (raw if isinstance(raw, list) else json.loads(raw))[0]["Plan"]
    unbounded = []
    for node in _nodes(plan):
        if node.get("Relation Name") != "tasks" and "Index Cond" not in node:
            continue
        if node.get("Relation Name") == "tasks" and node["Node Type"] == "Bitmap Heap Scan":
            continue  # its Bitmap Index Scan child is checked on its own
        if "Index Cond" not in node and node.get("Relation Name") == "tasks":
            unbounded.append(f"{node['Node Type']} {node.get('Index Name', '')}")
    return unbounded


@pytest.fixture
def loaded(acme, renewals):
    ann = make_agent(acme, "ann")
    other = make_agent(acme, "raj")
    now = utcnow()
    _load(renewals, other.id, now)
    return ann, now + timedelta(seconds=1)


@pytest.mark.parametrize("rules", ["plain", "window and do-not-call"])
def test_every_select_on_tasks_of_a_delivery_reads_an_index_range(loaded, renewals, acme, rules):
    ann, now = loaded
    if rules != "plain":
        minute = now.hour * 60 + now.minute
        opens, closes = (minute - 60) % 1440, (minute + 60) % 1440
        calling_windows.set_calling_window(renewals, opens, closes, actor=SETUP)
        dnc.add_numbers(acme, ["+1415000000", "+1415000001"], actor=SETUP)
        db.session.commit()
    available(ann, now)
    statements = _statements_on_tasks(ann, now)
    assert len(statements) >= 3  # the agent's own task, then the tiers
    unbounded = _unbounded_sqlite if db.engine.dialect.name == "sqlite" else _unbounded_postgresql
    found = {}
    with db.engine.connect() as connection:
        for statement, parameters in statements:
            with connection.begin():
                if lines := unbounded(connection, statement, parameters):
                    flat = " ".join(statement.split())
                    found[flat[flat.index(" WHERE ") :]] = lines
    assert found == {}, "\n".join(f"{k[-300:]}: {v}" for k, v in found.items())


def test_on_sqlite_each_tier_reads_its_own_index(loaded, renewals):
    """Not the campaign's index by state: it holds every WORKED task of the campaign, and
    walking it for a WORKED task without a time (there is none here) reads them all."""
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner")
    ann, now = loaded
    available(ann, now)
    tiers = {
        "tasks.worked_state = 'WORKED' AND tasks.next_earliest_work_at <=": "ix_tasks_delivery_due",
        "tasks.worked_state = 'WORKED' AND tasks.next_earliest_work_at IS NULL": (
            "ix_tasks_delivery_untimed"
        ),
        "tasks.worked_state = 'NOTWORKED'": "ix_tasks_delivery_new",
    }
    used = {}
    with db.engine.connect() as connection:
        for statement, parameters in _statements_on_tasks(ann, now):
            flat = " ".join(statement.split())
            for start, index in tiers.items():
                if f"WHERE {start}" in flat:
                    rows = connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
                    used[index] = " ".join(row[3] for row in rows)
    assert set(used) == set(tiers.values()), used
    for index, plan in used.items():
        assert f"USING INDEX {index} " in plan or f"USING COVERING INDEX {index} " in plan, plan
