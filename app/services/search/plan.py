"""How a search reads its tasks: the plan that finds the first matches, oldest first.

A search returns the first `limit` matching tasks in task order. Three ways get there:

- collect: read every match of the most selective criterion from its index, check the
  other criteria on those tasks, sort them. Cheap when that criterion has few matches.
- walk: read the campaign's tasks in order and check every criterion on each, until enough
  match. Cheap when matches are many (a fifth of the tasks: five tasks read per result).
  On SQLite the walk reads one criterion's items rather than the tasks: task_items is
  stored in task order, so its rows of the campaign's id range come in one sequential
  read, where a probe per task would look each task's items up again.
- follow: read one criterion's matches from an index that yields them in task order
  (equal values, whose index entries end with the task id; SQLite's trigram table), check
  the others on each. Never worse than collecting those matches and, like walking, stops
  after the first ones.

Which one is cheap depends on how many tasks match, which neither database can tell from
its statistics (a key's values share one column with every other key's), so the plan
first counts each criterion's matches, up to the number beyond which collecting costs more
than walking (about √(limit × tasks)), and decides from that. On PostgreSQL the count
brings the matches themselves when they are few, and the tasks are then read by those ids:
the planner's own estimate could be wrong by a thousand times.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from types import SimpleNamespace

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    CompoundSelect,
    Connection,
    Select,
    any_,
    bindparam,
    func,
    literal_column,
    select,
    text,
    union_all,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.sql.elements import UnaryExpression
from sqlalchemy.sql.operators import custom_op

from app.db.plain_reads import session_connection
from app.extensions import db
from app.models import Campaign, Task, TaskItem, search_index


@dataclass
class Scope:
    """The campaign searched, with the facts of its database the plan needs."""

    campaign: Campaign
    dialect: str
    trigrams: bool  # whether the trigram index exists (app/models/search_index.py)

    @cached_property
    def ids(self) -> tuple[int, int]:
        """The campaign's first and last task ids (0, -1 when it has none); asked only by
        plans that need them, since a search of one match costs about as much."""
        # Two subqueries: SQLite reads a lone min() or max() from the end of the index, but
        # both at once from every entry.
        ends = [
            select(end(Task.id)).where(Task.campaign_id == self.campaign.id).scalar_subquery()
            for end in (func.min, func.max)
        ]
        first, last = db.session.execute(select(*ends)).one()
        return (0, -1) if first is None else (first, last)

    @property
    def span(self) -> int:
        """At least the campaign's number of tasks (ids of other campaigns may interleave)."""
        first, last = self.ids
        return last - first + 1

    @cached_property
    def share(self) -> float:
        """About what part of the database's tasks are the campaign's, at most 1
        (PostgreSQL, from its statistics; 1 while it has none)."""
        found = "SELECT reltuples FROM pg_class WHERE oid = 'tasks'::regclass"
        total = db.session.scalar(text(found)) or 0
        return min(1.0, self.span / total) if total > 0 else 1.0

    @property
    def small(self) -> bool:
        """Whether the campaign is small beside the database (see SMALL_SHARE)."""
        return self.share < SMALL_SHARE

    def tasks(self, column) -> ColumnElement[bool]:
        """A task id column within the campaign's range: where a scan in task order starts."""
        return column.between(*self.ids)


def scope_of(campaign: Campaign) -> Scope:
    """The campaign and what its database offers."""
    connection = session_connection(db.session)
    return Scope(campaign, connection.dialect.name, has_trigram_index(connection))


def has_trigram_index(connection: Connection) -> bool:
    """Whether migration 0012 (or create_all) made the trigram index; asked once per
    database connection."""
    known = connection.info.get("trigram_index")
    if known is None:
        if connection.dialect.name == "sqlite":
            found = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name"
            name = search_index.FTS_TABLE
        else:
            found = "SELECT 1 FROM pg_indexes WHERE indexname = :name"
            name = search_index.TRIGRAM_INDEX
        known = connection.execute(text(found), {"name": name}).first() is not None
        connection.info["trigram_index"] = known
    return known


# Fewer matches than this are fetched at once rather than counted first.
FEW = 64
# PostgreSQL: below this part of the database's tasks, a campaign's items are read rather
# than pg_trgm's lists, which hold every campaign's; about where the two cost the same on
# the benchmark's data.
SMALL_SHARE = 0.02
# PostgreSQL: before reading pg_trgm's lists, this many tasks per wanted match are walked.
WALK_FIRST = 2
# Joins the matches of a criterion, in task order, to a select of tasks (and orders by them).
Follow = Callable[[Select], Select]
# The items a plan follows, joined under their own name so that the probes of the same
# table stay apart; made once, as building an alias's columns is not free.
FOLLOWED = TaskItem.__table__.alias("followed")


@dataclass(frozen=True)
class Finder:
    """How the tasks matching one criterion are found.

    `test` holds for a matching task: a test of its columns or a probe of its items.
    `ids`: selects of the matching task ids from indexes (their union), in no particular
    order; empty when no index finds them (NOTEQUALS also holds for tasks without the key;
    system keys are columns of the task, which the database's own planner handles).
    `follow` reads the matches in task order, where an index yields them so; `same_reads`
    when it reads what `ids` reads (then it never costs more), not another index.
    `by_planner`: alone, the criterion is better planned by the database than counted.
    `item`: the key and the test of one item (given its `value` and `number` columns) that
    the criterion is, when it is one; a walk can then read the key's items.
    """

    test: ColumnElement[bool]
    ids: tuple[Select, ...] = ()
    follow: Follow | None = None
    same_reads: bool = True
    by_planner: bool = False
    item: tuple[str, Callable[[SimpleNamespace], ColumnElement[bool]]] | None = None

    def matches(self) -> Select | CompoundSelect:
        """The select of the matching task ids."""
        return self.ids[0] if len(self.ids) == 1 else union_all(*self.ids)


def plan(scope: Scope, finders: list[Finder], limit: int, offset: int = 0) -> Select:
    """A select of the first matching tasks in task order (limit and offset applied)."""
    # No parallel workers on PostgreSQL: its sessions are set so (app/config.py).
    query = _plan(scope, finders, limit + offset)
    return query.limit(limit).offset(offset)


def _plan(scope: Scope, finders: list[Finder], wanted: int) -> Select:
    tasks = select(Task).where(Task.campaign_id == scope.campaign.id)
    if len(finders) == 1 and finders[0].by_planner:
        if not scope.small and (ids := _walked(scope, finders[0], wanted)) is not None:
            return tasks.where(_among(scope, ids)).order_by(Task.id)
        return tasks.where(Task.id.in_(finders[0].matches())).order_by(Task.id)
    indexed = [finder for finder in finders if finder.ids]
    followed = [finder for finder in finders if finder.follow is not None]
    driver = None
    # With one criterion that can be followed through its own index there is nothing to
    # count: following never reads more than collecting.
    if indexed and not (len(indexed) == 1 and _follows_own(indexed[0])):
        driver, found = _fewest(scope, indexed, wanted)
        others = [finder.test for finder in finders if finder is not driver]
        if found is not None and not _follows_own(driver):
            return tasks.where(found, *others).order_by(Task.id)
        if driver.follow is not None:
            followed = [driver]
    if followed:
        driver = followed[0]
        others = [finder.test for finder in finders if finder is not driver]
        return driver.follow(tasks.where(*others))
    scanned = [finder for finder in finders if finder.item is not None]
    # PostgreSQL has no unary + for text, and hiding its indexes otherwise hides its
    # estimates too: it then sorts a sequential scan. Its walk probes each task's items.
    if scanned and scope.dialect == "sqlite":
        # Reading the items of the criterion with the fewest matches probes the others least.
        by = driver if any(finder is driver for finder in scanned) else scanned[0]
        others = [finder.test for finder in finders if finder is not by]
        return _scan(scope, by, others)
    # The id range lets a database start reading tasks (and merging items) at the campaign.
    tests = [finder.test for finder in finders]
    return tasks.where(scope.tasks(Task.id), *tests).order_by(Task.id)


def _unindexed(column):
    """The column behind SQLite's unary +, which keeps its indexes out of the plan."""
    return UnaryExpression(column, operator=custom_op("+"), type_=column.type)


def _scan(scope: Scope, finder: Finder, others: list[ColumnElement[bool]]) -> Select:
    """The tasks whose `finder.item` passes, read through task_items' own order (task_id,
    position) over the campaign's id range, each task then found by its id: no index of
    values is read, and the first matches end the read. SQLite's unary + keeps the other
    indexes out, and keeps it from reading the tasks first instead."""
    key, passes = finder.item
    item = FOLLOWED
    columns = SimpleNamespace(value=_unindexed(item.c.value), number=_unindexed(item.c.number))
    return (
        select(Task)
        .join(item, Task.id == _unindexed(item.c.task_id))
        .where(
            _unindexed(Task.campaign_id) == scope.campaign.id,
            scope.tasks(item.c.task_id),
            _unindexed(item.c.campaign_id) == scope.campaign.id,
            _unindexed(item.c.key) == key,
            passes(columns),
            *others,
        )
        .order_by(item.c.task_id)
    )


def _walked(scope: Scope, finder: Finder, wanted: int) -> list[int] | None:
    """The first matches, when a walk of the campaign's first WALK_FIRST × wanted tasks
    finds enough of them (or covers the campaign); None: the index must be read.

    Reading pg_trgm's lists costs about as much for one match as for many; when matches
    are many, the first ones are found sooner in task order. A bounded walk costs less
    than the lists, so trying it first wins much and risks little.
    """
    first, last = scope.ids
    end = first + WALK_FIRST * wanted - 1
    walk = (
        select(Task.id)
        .where(Task.campaign_id == scope.campaign.id, Task.id.between(first, end), finder.test)
        .order_by(Task.id)
        .limit(wanted)
    )
    ids = list(db.session.scalars(walk))
    return ids if len(ids) == wanted or end >= last else None


def _follows_own(finder: Finder) -> bool:
    return finder.follow is not None and finder.same_reads


def _fewest(
    scope: Scope, indexed: list[Finder], wanted: int
) -> tuple[Finder, ColumnElement[bool] | None]:
    """The criterion with the fewest matches and, when collecting them costs less than
    walking, the test that picks them out (None: too many to collect).

    Collecting c matches costs about c; walking about wanted × tasks / c; they meet at
    √(wanted × tasks). A criterion that can be followed in task order through the index
    it is counted in is collected only below a quarter of that: following it costs little
    more per match than collecting. Following the trigram table costs more (it reads every
    trigram's list up to the last match): that one meets collecting where walking does.
    """
    if len(indexed) == 1:  # a few matches: their ids at once, for one read of the index
        ids = list(db.session.scalars(indexed[0].matches().limit(FEW)))
        if len(ids) < FEW:
            return indexed[0], _among(scope, ids)
    ceiling = max(wanted, math.isqrt(wanted * max(scope.span, 0)))
    ceilings = [
        max(wanted, ceiling // 4) if _follows_own(finder) else ceiling for finder in indexed
    ]
    counts = capped_counts([finder.ids for finder in indexed], ceilings)
    fewest, ceiling, driver = min(
        zip(counts, ceilings, indexed, strict=True), key=lambda row: row[0]
    )
    if fewest >= ceiling:
        return driver, None
    if scope.dialect == "postgresql":
        # The ids themselves: planned from the match test, PostgreSQL could expect
        # thousands of times too many and read the whole campaign instead.
        return driver, _among(scope, list(db.session.scalars(driver.matches())))
    return driver, Task.id.in_(driver.matches())


def _among(scope: Scope, ids: list[int]) -> ColumnElement[bool]:
    if scope.dialect == "postgresql":  # one array parameter, however many ids
        return Task.id == any_(bindparam("found", ids, type_=ARRAY(BigInteger)))
    return Task.id.in_(ids)


def capped_counts(queries: list[tuple[Select, ...]], ceilings: list[int]) -> list[int]:
    """How many rows each union of selects yields, counting no further than its ceiling;
    one round trip. Only the index entries are read (no table row for the task id)."""
    counts = []
    for parts, ceiling in zip(queries, ceilings, strict=True):
        entries = [part.with_only_columns(literal_column("1")) for part in parts]
        rows = (entries[0] if len(entries) == 1 else union_all(*entries)).limit(ceiling)
        counts.append(select(func.count()).select_from(rows.subquery()).scalar_subquery())
    return list(db.session.execute(select(*counts)).one())
