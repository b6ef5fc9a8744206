"""CONTAINS and BEGINSWITH through SQLite's trigram table (app/models/search_index.py).

A value of three characters or more is a set of trigrams; every item holding it holds them
all, so the items holding all of them are candidates, and the exact test (the LIKE that
CONTAINS and BEGINSWITH always were) keeps the true matches. The trigram table yields items
in rowid order, which is task order, so a search can stop after its first matches.

On PostgreSQL nothing here is needed: the planner uses the pg_trgm index for LIKE itself.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Integer, Select, and_, column, select, table

from app.models import Task
from app.models.search_index import FTS_TABLE, POSITION_BITS
from app.services.search.plan import FOLLOWED, Follow, Scope

POSITION_MASK = (1 << POSITION_BITS) - 1

fts = table(FTS_TABLE, column("rowid", Integer), column(FTS_TABLE))


TRIGRAM = 3  # characters


def usable(scope: Scope, value: str) -> bool:
    """Whether SQLite's trigram table can find this value (it must hold a whole trigram)."""
    return scope.dialect == "sqlite" and scope.trigrams and len(value) >= TRIGRAM


def trigrams(value: str) -> list[str]:
    return sorted({value[start : start + TRIGRAM] for start in range(len(value) - TRIGRAM + 1)})


def _quoted(trigram: str) -> str:
    return '"' + trigram.replace('"', '""') + '"'


def _in_campaign(scope: Scope) -> ColumnElement[bool]:
    """Items of the campaign's task id range only: other campaigns' items are not read."""
    first, last = scope.ids
    return fts.c.rowid.between(first << POSITION_BITS, (last << POSITION_BITS) | POSITION_MASK)


def _match(value: str) -> str:
    """The FTS query for the items holding every trigram of the value."""
    return " AND ".join(_quoted(gram) for gram in trigrams(value))


def finder_parts(scope: Scope, key: str, value: str, exact) -> tuple[Select, Follow]:
    """The task ids whose `key` item passes `exact` (a test of an item value), and the same
    matches followed in task order; `value` must be `usable`."""
    item = FOLLOWED
    match = _match(value)
    on_item = and_(
        item.c.task_id == fts.c.rowid.op(">>")(POSITION_BITS),
        item.c.position == fts.c.rowid.op("&")(POSITION_MASK),
    )
    conditions = (
        fts.c[FTS_TABLE].match(match),
        _in_campaign(scope),
        item.c.campaign_id == scope.campaign.id,
        item.c.key == key,
        exact(item.c.value),
    )
    ids = select(item.c.task_id).select_from(fts).join(item, on_item).where(*conditions)

    def follow(tasks: Select) -> Select:
        joined = tasks.join(item, item.c.task_id == Task.id).join(fts, on_item)
        return joined.where(*conditions).order_by(fts.c.rowid)

    return ids, follow
