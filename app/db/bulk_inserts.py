"""Rows by the thousand straight to the driver: intake batches, a request's audit records and
events, a task's items."""

from __future__ import annotations

from app.db.plain_reads import on_driver, session_connection


def driver_value(session, column):
    """How this database's driver is handed a value of `column` (e.g. a UTC time is a string
    on SQLite), for rows that go straight to `bulk_insert`."""
    dialect = session_connection(session).dialect
    processor = column.type.dialect_impl(dialect).bind_processor(dialect)
    return processor or (lambda value: value)


# SQLite: rows per INSERT of bulk_insert, within the 999 parameters any SQLite build takes.
ROWS_PER_INSERT = 100


_SQLITE_PARAMETERS = 999


# PostgreSQL: from this many rows on, psycopg's executemany (a pipeline of one prepared
# statement) costs less per row than INSERTs of many rows; below, one INSERT of them all
# costs less than the pipeline. Measured with audit-sized rows: 3 rows, 22 against 34 µs
# of CPU a row; 10 rows, 18 against 16; 500 rows, 15 against 9.
PIPELINED_FROM = 6


def bulk_insert(session, table, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Rows straight to the driver: plain tuples skip the per-row work of SQLAlchemy's
    parameter handling, which matters when rows come by the thousand.

    On SQLite, INSERTs of up to ROWS_PER_INSERT rows each: a statement per row costs its
    own start and end, which the full-text triggers of the task items make several times
    dearer than the row itself. On PostgreSQL, one INSERT of a few rows (a task's items,
    a request's audit record and event), or one executemany of many (an intake batch).
    """
    if not rows:
        return
    connection = session_connection(session)
    names = ", ".join(columns)
    sqlite = connection.dialect.paramstyle == "qmark"
    row_marks = f"({', '.join(['?' if sqlite else '%s'] * len(columns))})"
    if not sqlite and len(rows) >= PIPELINED_FROM:
        sql = f"INSERT INTO {table.name} ({names}) VALUES {row_marks}"  # noqa: S608 - our names
        on_driver(connection, sql, rows, many=True)
        return
    per_insert = max(1, min(ROWS_PER_INSERT, _SQLITE_PARAMETERS // len(columns)))
    for start in range(0, len(rows), per_insert):
        chunk = rows[start : start + per_insert]
        values = ", ".join([row_marks] * len(chunk))
        sql = f"INSERT INTO {table.name} ({names}) VALUES {values}"  # noqa: S608 - our names
        on_driver(connection, sql, tuple(value for row in chunk for value in row))
