"""Trigram indexes of data item values, so CONTAINS and BEGINSWITH need not read every item.

SQLite: `task_items_fts`, a contentless FTS5 table with the trigram tokenizer (case-sensitive,
detail=none: it only says which items hold a trigram), kept in step with `task_items` by
triggers. An item's FTS rowid is `task_id << 16 | position` (a task has at most 500 items),
so a match leads straight to the item by its primary key, in task order.

PostgreSQL: a GIN index of `value` with pg_trgm's operator class, which `LIKE '%…%'` uses by
itself. `CREATE EXTENSION pg_trgm` needs CREATE on the database (pg_trgm is a trusted
extension since PostgreSQL 13; a superuser before); when it cannot be created the index is
left out and searches scan, with the same answers.

Neither is part of the ORM metadata (they are not plain tables and indexes); migration 0012
creates them on a running database, `create_all` through the listeners below. Both are
named with the `task_items_fts` / `ix_task_items_value_trgm` names that `is_search_index`
recognises, so schema comparisons can leave them out.
"""

from __future__ import annotations

from sqlalchemy import Connection, Index, event, text
from sqlalchemy.exc import DBAPIError

from app.models.tasks import TaskItem

FTS_TABLE = "task_items_fts"
TRIGRAM_INDEX = "ix_task_items_value_trgm"
# An FTS rowid is the item's task id shifted by this many bits, plus its position.
POSITION_BITS = 16

# Text values only (numbers have their own index): GREATERTHAN / LESSTHAN compare the
# non-numeric values of a key as text, a range of this index with nothing to skip. Ending
# with the task id, it yields the items equal to a text value in task order on PostgreSQL
# too (SQLite ends every index of this table with it anyway), so a search reads the first
# ones only.
TEXT_INDEX = Index(
    "ix_task_items_campaign_key_text",
    TaskItem.campaign_id,
    TaskItem.key,
    TaskItem.value,
    TaskItem.task_id,
    sqlite_where=text("number IS NULL"),
    postgresql_where=text("number IS NULL"),
)

_ROWID = f"({{row}}.task_id << {POSITION_BITS}) | {{row}}.position"
# Every name in these statements is ours: nothing of a request is ever put in them.
_ADD = f"INSERT INTO {FTS_TABLE} (rowid, value) VALUES ({_ROWID.format(row='new')}, new.value);"  # noqa: S608
_REMOVE = (
    f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}, rowid, value) "  # noqa: S608
    f"VALUES ('delete', {_ROWID.format(row='old')}, old.value);"
)

SQLITE_CREATE = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(value, content='', columnsize=0, "
    "detail=none, tokenize='trigram case_sensitive 1')",
    f"CREATE TRIGGER {FTS_TABLE}_insert AFTER INSERT ON task_items BEGIN {_ADD} END",
    f"CREATE TRIGGER {FTS_TABLE}_delete AFTER DELETE ON task_items BEGIN {_REMOVE} END",
    f"CREATE TRIGGER {FTS_TABLE}_update AFTER UPDATE OF task_id, position, value "
    f"ON task_items BEGIN {_REMOVE} {_ADD} END",
)
SQLITE_FILL = (
    f"INSERT INTO {FTS_TABLE} (rowid, value) "  # noqa: S608
    f"SELECT {_ROWID.format(row='task_items')}, value FROM task_items",
    # A bulk fill leaves dozens of segments, each read by every query; one is read once.
    f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}) VALUES ('optimize')",  # noqa: S608
)
SQLITE_DROP = (
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_update",
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_delete",
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_insert",
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
)
POSTGRESQL_CREATE = f"CREATE INDEX {TRIGRAM_INDEX} ON task_items USING gin (value gin_trgm_ops)"


def is_search_index(name: str | None) -> bool:
    """Whether a table or index name is one of these (they live outside the metadata)."""
    return bool(name) and (name.startswith(FTS_TABLE) or name == TRIGRAM_INDEX)


def create(connection: Connection) -> bool:
    """Create the trigram index on this database and fill it; False when it cannot be."""
    if connection.dialect.name == "sqlite":
        for statement in SQLITE_CREATE:
            connection.exec_driver_sql(statement)
        for statement in SQLITE_FILL:
            connection.exec_driver_sql(statement)
        return True
    if connection.dialect.name == "postgresql":
        try:
            with connection.begin_nested():
                connection.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        except DBAPIError:  # no privilege, or no contrib package: searches scan instead
            return False
        connection.exec_driver_sql(POSTGRESQL_CREATE)
        return True
    return False


def drop(connection: Connection) -> None:
    """Drop the SQLite FTS table and its triggers (PostgreSQL's index goes with the table)."""
    if connection.dialect.name == "sqlite":
        for statement in SQLITE_DROP:
            connection.exec_driver_sql(statement)


@event.listens_for(TaskItem.__table__, "after_create")
def _created(_table, connection: Connection, **_kw) -> None:
    create(connection)


@event.listens_for(TaskItem.__table__, "before_drop")
def _dropping(_table, connection: Connection, **_kw) -> None:
    drop(connection)
