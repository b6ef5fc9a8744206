"""`flask --app wsgi storage check` (app/db/health.py): every check holds on a healthy,
migrated database, SQLite's false NULL reports on WITHOUT ROWID tables included, and each
fails, with a non-zero exit, on the fault it is there for."""

from __future__ import annotations

import sqlite3

import flask_migrate
import pytest
from sqlalchemy import text

from app.extensions import db
from app.services.campaigns.catalogue import find_campaign
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.conftest import SETUP, make_tenant


@pytest.fixture
def migrated(fresh_app):
    """A database built by the migrations, holding a task with items."""
    flask_migrate.upgrade()
    tenant, _ = make_tenant()
    items = [ItemInput("Name", "Ada"), ItemInput("Phone", "+14155550101")]
    add_or_update_task(find_campaign(tenant, "Renewals"), "C-1", items, actor=SETUP)
    db.session.commit()
    return fresh_app


def _check(app):
    return app.test_cli_runner().invoke(args=["storage", "check"])


def test_a_healthy_database_passes_every_check(migrated):
    result = _check(migrated)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines and all(line.startswith("ok ") for line in lines)
    assert any("schema: at the newest migration" in line for line in lines)


def _without_rowid_table() -> None:
    """A WITHOUT ROWID table of the shape SQLite before 3.41 misreports: a NOT NULL column
    stored ahead of its primary key (as the report rollups are)."""
    raw = sqlite3.connect(db.engine.url.database)
    with raw:
        raw.execute(
            "CREATE TABLE shaped (label TEXT NOT NULL, slot INTEGER NOT NULL,"
            " CONSTRAINT pk_shaped PRIMARY KEY (slot)) WITHOUT ROWID"
        )
        raw.execute("INSERT INTO shaped (label, slot) VALUES ('a', 1)")
    raw.close()


def test_sqlite_s_false_null_reports_are_counted_instead(migrated):
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's integrity_check")
    _without_rowid_table()
    with db.engine.connect() as connection:
        raw = [row[0] for row in connection.execute(text("PRAGMA integrity_check"))]
    if sqlite3.sqlite_version_info < (3, 41):
        # The pragma reports NULLs that are not there: the check must not pass that on.
        assert "NULL value in shaped.label" in raw
    result = _check(migrated)
    assert result.exit_code == 0, result.output
    assert "ok     integrity:" in result.output


def test_a_row_naming_a_missing_row_fails_the_check(migrated):
    if db.engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL enforces its foreign keys always")
    # Written past the engine (which turns foreign keys on), as a tool or a bug might.
    raw = sqlite3.connect(db.engine.url.database)
    with raw:
        raw.execute(
            "INSERT INTO task_items (task_id, campaign_id, key, value, position)"
            " VALUES (999999, 999999, 'Name', 'x', 0)"
        )
    raw.close()
    result = _check(migrated)
    assert result.exit_code == 1
    assert "FAILED foreign keys: 2 references to a missing row, from task_items" in result.output


def test_an_invalid_index_fails_the_check(migrated):
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's invalid indexes")
    with db.engine.begin() as connection:
        connection.execute(
            text(
                "UPDATE pg_index SET indisvalid = false"
                " WHERE indexrelid = 'ix_task_items_campaign_key_value'::regclass"
            )
        )
    result = _check(migrated)
    assert result.exit_code == 1
    assert "FAILED indexes: invalid (rebuild with REINDEX): ix_task_items_campaign_key_value" in (
        result.output
    )


def test_a_schema_behind_the_newest_migration_fails_the_check(migrated):
    with db.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0022'"))
    result = _check(migrated)
    assert result.exit_code == 1
    assert "FAILED schema: at 0022, the newest is" in result.output
