"""A load keeps the planner's statistics fresh on PostgreSQL: it runs ANALYZE after the
batch that first grows a near-empty campaign, and again each time the tasks have doubled,
so a server with autovacuum off still plans the clientId lookups on real counts."""

from __future__ import annotations

import pytest
from sqlalchemy import event, text

from app.extensions import db
from app.services.intake import load as load_module
from app.services.intake.writer import FreshStatistics
from tests.intake.conftest import csv_text


@pytest.fixture
def analyzed(app):
    """The ANALYZE statements sent while the test runs, from tables the planner has
    counted empty (earlier tests emptied them by DELETE, which leaves the old count)."""
    if db.engine.dialect.name == "postgresql":
        db.session.execute(text("ANALYZE tasks, task_items"))
        db.session.commit()
    sent: list[str] = []

    def note(_conn, _cursor, statement, *_args) -> None:
        if statement.lstrip().upper().startswith("ANALYZE"):
            sent.append(statement)

    event.listen(db.engine, "before_cursor_execute", note)
    yield sent
    event.remove(db.engine, "before_cursor_execute", note)


def rows(count: int, start: int = 0) -> list[list[str]]:
    return [["AccountNo", "Name"]] + [[f"A{n:05d}", f"Name {n}"] for n in range(start, count)]


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (3, 0),  # fewer tasks than the minimum growth: the planner's guess does
        (4, 1),  # the first batch reaches it
        (8, 2),  # 4, then 8 tasks: doubled
        (12, 2),  # 12 is not yet twice 8
        (32, 4),  # 4, 8, 16, 32
    ],
)
def test_load_analyzes_as_the_tasks_grow(
    accounts, write, load, analyzed, monkeypatch, count, expected
):
    monkeypatch.setattr(load_module, "BATCH", 4)
    monkeypatch.setattr(FreshStatistics, "MIN_GROWTH", 4)
    counts, _ = load(accounts, write(csv_text(rows(count))))
    assert counts.added == count
    postgresql = db.engine.dialect.name == "postgresql"
    assert len(analyzed) == (expected if postgresql else 0)


def test_updates_alone_do_not_analyze(accounts, write, load, analyzed, monkeypatch):
    monkeypatch.setattr(load_module, "BATCH", 4)
    monkeypatch.setattr(FreshStatistics, "MIN_GROWTH", 4)
    path = write(csv_text(rows(8)))
    load(accounts, path)
    analyzed.clear()
    counts, _ = load(accounts, path)
    assert counts.updated == 8
    assert analyzed == []


def test_analyze_reaches_the_planner(accounts, write, load, analyzed, monkeypatch):
    """On PostgreSQL the planner then counts the tasks the load added."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only")
    monkeypatch.setattr(FreshStatistics, "MIN_GROWTH", 4)
    load(accounts, write(csv_text(rows(10))))
    counted = db.session.scalar(
        text("SELECT reltuples FROM pg_class WHERE oid = CAST('tasks' AS regclass)")
    )
    assert counted == 10
