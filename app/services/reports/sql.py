"""Portable SQL pieces of the reports: a UTC instant as whole epoch seconds, a group's ids
as one text."""

from __future__ import annotations

from sqlalchemy import BigInteger, String
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from app.models.report_rollups import SLOT_SECONDS

# The reports count in 15-minute UTC buckets: every zone's offset (and every DST shift
# but Lord Howe's half hour, which stays on the grid) is a multiple of 15 minutes, so a
# bucket falls wholly within one local interval of 15, 30 or 60 minutes.
BUCKET_SECONDS = SLOT_SECONDS


class epoch(FunctionElement):  # noqa: N801 - reads as an SQL function
    """Whole seconds since 1970-01-01 UTC of a stored (naive UTC) instant."""

    type = BigInteger()
    inherit_cache = True
    name = "epoch"


@compiles(epoch, "sqlite")
def _epoch_sqlite(element, compiler, **kw):
    instant = compiler.process(element.clauses, **kw)
    return f"CAST(strftime('%s', {instant}) AS INTEGER)"


@compiles(epoch, "postgresql")
def _epoch_postgresql(element, compiler, **kw):
    instant = compiler.process(element.clauses, **kw)
    return f"CAST(FLOOR(EXTRACT(EPOCH FROM {instant})) AS BIGINT)"


def bucket(column):
    """The 15-minute UTC bucket (epoch seconds // 900) of an instant."""
    return epoch(column) // BUCKET_SECONDS


class id_list(FunctionElement):  # noqa: N801 - reads as an SQL function
    """An aggregate: the group's non-NULL integers as one comma-separated text."""

    type = String()
    inherit_cache = True
    name = "id_list"


@compiles(id_list, "sqlite")
def _id_list_sqlite(element, compiler, **kw):
    return f"group_concat({compiler.process(element.clauses, **kw)}, ',')"


@compiles(id_list, "postgresql")
def _id_list_postgresql(element, compiler, **kw):
    return f"string_agg(CAST({compiler.process(element.clauses, **kw)} AS VARCHAR), ',')"
