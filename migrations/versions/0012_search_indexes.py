"""search indexes: text values by key, and trigram indexes for CONTAINS and BEGINSWITH

`ix_task_items_campaign_key_text` holds the non-numeric values only, so GREATERTHAN and
LESSTHAN with a number compare the key's text values in one exact index range instead of
skipping every numeric value on the way; it ends with task_id, so the items equal to a
text value come in task order on PostgreSQL too and a search reads only the first ones.

Trigram indexes of every item value (see app/models/search_index.py, kept in step with it):
SQLite: the contentless FTS5 table `task_items_fts` (trigram tokenizer, case-sensitive),
filled from task_items and kept in step by three triggers; the FTS rowid of an item is
`task_id << 16 | position`. PostgreSQL: `CREATE EXTENSION pg_trgm` (a trusted extension
since PostgreSQL 13: the database's owner, or a role with CREATE on it, may create it; before
13 a superuser) and a GIN index of task_items.value. When the FTS5 module or the
extension is missing the trigram index is left out and CONTAINS scans, with the same answers;
running this migration again later does not add it: create it by hand (the statements
below), or downgrade to 0011 and upgrade again.

On a large PostgreSQL table, building the GIN index takes minutes and blocks writes to
task_items meanwhile; `CREATE INDEX CONCURRENTLY` beforehand (same name) avoids that.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-22 20:30:00.000000

"""

import logging

from alembic import op
import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError


# revision identifiers, used by Alembic.
revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

ROWID = "({row}.task_id << 16) | {row}.position"
ADD = f"INSERT INTO task_items_fts (rowid, value) VALUES ({ROWID.format(row='new')}, new.value);"
REMOVE = (
    "INSERT INTO task_items_fts (task_items_fts, rowid, value) "
    f"VALUES ('delete', {ROWID.format(row='old')}, old.value);"
)
SQLITE_CREATE = (
    "CREATE VIRTUAL TABLE task_items_fts USING fts5(value, content='', columnsize=0, "
    "detail=none, tokenize='trigram case_sensitive 1')",
    f"CREATE TRIGGER task_items_fts_insert AFTER INSERT ON task_items BEGIN {ADD} END",
    f"CREATE TRIGGER task_items_fts_delete AFTER DELETE ON task_items BEGIN {REMOVE} END",
    "CREATE TRIGGER task_items_fts_update AFTER UPDATE OF task_id, position, value "
    f"ON task_items BEGIN {REMOVE} {ADD} END",
    "INSERT INTO task_items_fts (rowid, value) "
    f"SELECT {ROWID.format(row='task_items')}, value FROM task_items",
    # the fill leaves many segments, each read by every query: merge them into one
    "INSERT INTO task_items_fts (task_items_fts) VALUES ('optimize')",
)
SQLITE_DROP = (
    "DROP TRIGGER IF EXISTS task_items_fts_update",
    "DROP TRIGGER IF EXISTS task_items_fts_delete",
    "DROP TRIGGER IF EXISTS task_items_fts_insert",
    "DROP TABLE IF EXISTS task_items_fts",
)


def upgrade():
    op.create_index(
        "ix_task_items_campaign_key_text",
        "task_items",
        ["campaign_id", "key", "value", "task_id"],
        unique=False,
        sqlite_where=sa.text("number IS NULL"),
        postgresql_where=sa.text("number IS NULL"),
    )

    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        try:
            with bind.begin_nested():
                bind.exec_driver_sql(SQLITE_CREATE[0])
        except DBAPIError:
            log.warning("SQLite has no FTS5 trigram tokenizer: CONTAINS searches will scan")
            return
        for statement in SQLITE_CREATE[1:]:
            bind.exec_driver_sql(statement)
    elif bind.dialect.name == "postgresql":
        try:
            with bind.begin_nested():
                bind.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        except DBAPIError:
            log.warning("pg_trgm cannot be created (superuser needed): CONTAINS searches will scan")
            return
        bind.exec_driver_sql(
            "CREATE INDEX ix_task_items_value_trgm ON task_items USING gin (value gin_trgm_ops)"
        )


def downgrade():
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for statement in SQLITE_DROP:
            bind.exec_driver_sql(statement)
    elif bind.dialect.name == "postgresql":
        bind.exec_driver_sql("DROP INDEX IF EXISTS ix_task_items_value_trgm")

    op.drop_index("ix_task_items_campaign_key_text", table_name="task_items")
