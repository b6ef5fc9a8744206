"""Storage set-up: SQLite pragmas on every connection, write locks, foreign keys, collation."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.exc import IntegrityError

from app.db.bulk_inserts import PIPELINED_FROM, ROWS_PER_INSERT, bulk_insert
from app.extensions import db
from app.models import ApiKey, Campaign, RateLimitCounter, SkillQueue, Task, TaskItem, Tenant
from app.services.campaigns import catalogue as campaigns
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.conftest import PREVIEW, SETUP, make_tenant

# Not the defaults, so the tests prove the settings are applied.
BUSY_TIMEOUT_MS = 321
CACHE_KIB = 4321
MMAP_MIB = 123


@pytest.fixture
def settings(settings):
    settings["SQLITE_BUSY_TIMEOUT_MS"] = BUSY_TIMEOUT_MS
    settings["SQLITE_CACHE_KIB"] = CACHE_KIB
    settings["SQLITE_MMAP_MIB"] = MMAP_MIB
    return settings


@pytest.fixture
def sqlite(app):
    """The app, on SQLite only."""
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite connection settings")
    return app


@pytest.fixture
def postgresql(app):
    """The app, on PostgreSQL only."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL collation")
    return app


def _scalar(dbapi_connection, sql: str):
    with closing(dbapi_connection.cursor()) as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("PRAGMA journal_mode", "wal"),
        ("PRAGMA busy_timeout", BUSY_TIMEOUT_MS),
        ("PRAGMA foreign_keys", 1),
        ("PRAGMA cache_size", -CACHE_KIB),
        ("PRAGMA mmap_size", MMAP_MIB * 1024 * 1024),
        ("SELECT 'a' LIKE 'A'", 0),
    ],
    ids=["wal", "busy-timeout", "foreign-keys", "page-cache", "mmap", "case-sensitive-like"],
)
def test_every_sqlite_connection_is_tuned(sqlite, sql, expected):
    engine = db.engine
    for _ in range(2):
        pooled = [engine.raw_connection() for _ in range(3)]
        try:
            assert [_scalar(conn, sql) for conn in pooled] == [expected] * 3
        finally:
            for conn in pooled:
                conn.close()
        engine.dispose()


def _can_take_write_lock(path: str) -> bool:
    with closing(sqlite3.connect(path, timeout=0.05, isolation_level=None)) as other:
        try:
            other.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            assert "database is locked" in str(error)
            return False
        other.execute("ROLLBACK")
        return True


@pytest.mark.parametrize(
    ("method", "path", "takes_write_lock"),
    [
        ("POST", "/service-admin/api/users/add-user", True),
        ("POST", PREVIEW + "addOrUpdateCampaignRecord", False),
        ("POST", PREVIEW + "searchPreviewCampaign", False),
        ("GET", "/", False),
    ],
    ids=["write-request", "reads-first-view", "read-only-view", "get-request"],
)
def test_transactions_take_the_write_lock_unless_the_request_is_read_only(
    sqlite, method, path, takes_write_lock
):
    with sqlite.test_request_context(path, method=method):
        sqlite.preprocess_request()
        db.session.scalar(select(func.count()).select_from(Tenant))
        try:
            assert _can_take_write_lock(db.engine.url.database) is not takes_write_lock
        finally:
            db.session.rollback()


def test_transactions_outside_requests_take_the_write_lock(sqlite):
    db.session.scalar(select(func.count()).select_from(Tenant))
    try:
        assert not _can_take_write_lock(db.engine.url.database)
    finally:
        db.session.rollback()
    assert _can_take_write_lock(db.engine.url.database)


def _count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def test_deleting_a_tenant_cascades_to_everything_it_owns(app):
    tenant, _key = make_tenant()
    add_or_update_task(
        campaigns.get_campaign(tenant, "Renewals"), "C1", [ItemInput("Name", "A")], actor=SETUP
    )
    db.session.commit()
    db.session.execute(text("DELETE FROM tenants WHERE id = :id"), {"id": tenant.id})
    db.session.commit()
    assert [_count(m) for m in (ApiKey, SkillQueue, Campaign, Task, TaskItem)] == [0] * 5


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO skill_queues (tenant_id, name, created_at) VALUES (999, 'Q', '2026-01-01')",
        "DELETE FROM skill_queues",
    ],
    ids=["unknown-parent", "parent-still-referenced"],
)
def test_foreign_keys_are_enforced(app, sql):
    make_tenant()
    with pytest.raises(IntegrityError):  # queue references are checked at commit
        db.session.execute(text(sql))
        db.session.commit()
    db.session.rollback()
    assert _count(SkillQueue) == 2


def test_text_columns_sort_bytewise_on_every_database(app):
    tenant, _key = make_tenant()
    campaign = campaigns.get_campaign(tenant, "Renewals")
    for client_id in ("a", "B", "b", "A"):
        add_or_update_task(campaign, client_id, [ItemInput("Name", client_id)], actor=SETUP)
    db.session.commit()
    ordered = db.session.scalars(select(Task.client_id).order_by(Task.client_id)).all()
    assert ordered == ["A", "B", "a", "b"]
    assert db.session.scalars(select(Task.client_id).where(Task.client_id.like("a%"))).all() == [
        "a"
    ]


def test_postgresql_text_columns_use_the_c_collation(postgresql):
    collations = db.session.execute(
        text(
            "SELECT table_name, column_name, collation_name FROM information_schema.columns"
            " WHERE table_name IN ('tasks', 'task_items')"
            " AND column_name IN ('client_id', 'key', 'value')"
        )
    ).all()
    assert len(collations) == 3
    assert {row.collation_name for row in collations} == {"C"}


@pytest.mark.parametrize("count", [1, 5, 6, 99, 100, 101, 250])
def test_bulk_insert_writes_every_row_in_order_in_inserts_of_many_rows(app, count):
    table = RateLimitCounter.__table__
    statements = []

    def keep(_conn, _cursor, statement, _parameters, _context, many) -> None:
        if statement.startswith("INSERT INTO rate_limits"):
            statements.append(many)

    rows = [(f"key {n:03d}", n, 1.5 * n) for n in range(count)]
    event.listen(db.engine, "before_cursor_execute", keep)
    try:
        bulk_insert(db.session, table, ("key", "count", "expires_at"), rows)
    finally:
        event.remove(db.engine, "before_cursor_execute", keep)
    stored = db.session.execute(
        select(table.c.key, table.c.count, table.c.expires_at).order_by(table.c.key)
    ).all()
    assert [tuple(row) for row in stored] == rows
    if db.engine.dialect.name == "sqlite":  # a statement per ROWS_PER_INSERT rows
        assert statements == [False] * -(-count // ROWS_PER_INSERT)
    else:  # one INSERT of a few rows, one executemany of many
        assert statements == [count >= PIPELINED_FROM]
