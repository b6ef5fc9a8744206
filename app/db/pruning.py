"""Deleting what has aged out, a batch at a time: each batch is committed on its own, so
no long transaction holds the table (nor SQLite's write turn) while a large backlog goes."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, delete, select, tuple_
from sqlalchemy.orm import Session

BATCH = 1000


def delete_in_batches(
    session: Session, table, where: ColumnElement[bool], keys: Sequence, batch: int | None = None
) -> int:
    """Delete the rows of `table` that `where` holds for, found by their primary `keys`,
    `batch` (BATCH) rows per committed statement; the number deleted."""
    batch = batch or BATCH
    key = keys[0] if len(keys) == 1 else tuple_(*keys)
    deleted = 0
    while True:
        chosen = select(*keys).where(where).limit(batch)
        count = session.execute(delete(table).where(key.in_(chosen))).rowcount
        session.commit()
        deleted += count
        if count < batch:
            return deleted
