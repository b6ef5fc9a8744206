"""The storage's health check, as the operators run it (`flask --app wsgi storage check`).

Each check is one that holds on a healthy database, so a failure means something:

- SQLite's `PRAGMA integrity_check`, less its false reports: SQLite before 3.41 reports
  "NULL value in T.C" for every NOT NULL column stored ahead of the primary key of a
  `WITHOUT ROWID` table (the report rollups, and `task_items` as built before migration
  0032 added a column to it) on a database that holds no
  such NULL. Those lines are dropped and the same NOT NULL columns are counted instead,
  exactly, with a query; every other line of the pragma counts.
- SQLite's `PRAGMA foreign_key_check`.
- PostgreSQL: no invalid index (one left by a failed `CREATE INDEX CONCURRENTLY` or a
  broken build is skipped by every query, silently), and no data-checksum failure counted
  by the server.
- Both: the schema is at the newest migration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import Connection, inspect, text

_FALSE_NULL = re.compile(r"^NULL value in (\w+)\.(\w+)$")


@dataclass(frozen=True)
class Check:
    """One check's name, whether it held, and what it found."""

    name: str
    held: bool
    detail: str


def run_checks(connection: Connection, newest_revision: str) -> list[Check]:
    """Every check for the connection's database, in order."""
    if connection.dialect.name == "sqlite":
        checks = [_sqlite_integrity(connection), _sqlite_foreign_keys(connection)]
    else:
        checks = [_postgresql_indexes(connection), _postgresql_checksums(connection)]
    return [*checks, _schema_revision(connection, newest_revision)]


def _without_rowid_tables(connection: Connection) -> set[str]:
    rows = connection.execute(text("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
    return {name for name, sql in rows if sql and "WITHOUT ROWID" in sql.upper()}


def _sqlite_integrity(connection: Connection) -> Check:
    without_rowid = _without_rowid_tables(connection)
    problems: list[str] = []
    recount: set[tuple[str, str]] = set()
    for (line,) in connection.execute(text("PRAGMA integrity_check")):
        if line == "ok":
            continue
        false_null = _FALSE_NULL.match(line)
        if false_null and false_null.group(1) in without_rowid:
            recount.add((false_null.group(1), false_null.group(2)))
        else:
            problems.append(line)
    quote = connection.dialect.identifier_preparer.quote
    for table, column in sorted(recount):
        # Names SQLite itself reported (\w+ only), of tables it listed.
        count = f"SELECT count(*) FROM {quote(table)} WHERE {quote(column)} IS NULL"  # noqa: S608
        nulls = connection.scalar(text(count))
        if nulls:
            problems.append(f"{nulls} NULL values in {table}.{column}")
    if problems:
        return Check("integrity", False, "; ".join(problems[:20]))
    counted = (
        f" ({len(recount)} NOT NULL columns of WITHOUT ROWID tables counted)" if recount else ""
    )
    return Check("integrity", True, "PRAGMA integrity_check" + counted)


def _sqlite_foreign_keys(connection: Connection) -> Check:
    rows = connection.execute(text("PRAGMA foreign_key_check")).all()
    if rows:
        tables = ", ".join(sorted({row[0] for row in rows}))
        found = f"{len(rows)} references to a missing row, from {tables}"
        return Check("foreign keys", False, found)
    return Check("foreign keys", True, "PRAGMA foreign_key_check")


def _postgresql_indexes(connection: Connection) -> Check:
    invalid = connection.scalars(
        text(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE NOT i.indisvalid AND n.nspname = current_schema() ORDER BY 1"
        )
    ).all()
    if invalid:
        return Check("indexes", False, f"invalid (rebuild with REINDEX): {', '.join(invalid)}")
    return Check("indexes", True, "every index valid")


def _postgresql_checksums(connection: Connection) -> Check:
    failures = connection.scalar(
        text("SELECT checksum_failures FROM pg_stat_database WHERE datname = current_database()")
    )
    if failures:
        return Check("checksums", False, f"{failures} data-checksum failures counted by the server")
    enabled = connection.scalar(text("SHOW data_checksums")) == "on"
    return Check("checksums", True, "no failure counted" if enabled else "data checksums off")


def _schema_revision(connection: Connection, newest: str) -> Check:
    if not inspect(connection).has_table("alembic_version"):
        return Check("schema", False, "never migrated: run `flask --app wsgi db upgrade`")
    current = connection.scalar(text("SELECT version_num FROM alembic_version"))
    if current != newest:
        return Check(
            "schema",
            False,
            f"at {current}, the newest is {newest}: run `flask --app wsgi db upgrade`",
        )
    return Check("schema", True, f"at the newest migration, {newest}")
