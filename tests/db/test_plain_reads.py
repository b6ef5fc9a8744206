"""Reads run on the driver (app/db/plain_reads.py) return what the engine returns for the same
statement, on both databases, and fail as the engine fails."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import bindparam, event, select, text
from sqlalchemy.exc import DBAPIError

from app.db.plain_reads import PlainRead, session_connection
from app.extensions import db
from app.models import Campaign, Task, TaskItem, WorkCode
from app.services.campaigns import catalogue as campaigns
from app.services.errors import NotFound
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.lookups import campaign_named, campaign_ref
from app.services.tasks.snapshots import _ITEMS_AND_CODES_OF, _ONE_TASK
from app.services.tasks.validation import ItemInput
from app.wire.times import sent_time
from tests.conftest import SETUP, make_tenant


@pytest.fixture
def tasks(app):
    """Tasks with and without the optional columns set, times included, and items."""
    tenant, _key = make_tenant()
    campaign = campaigns.get_campaign(tenant, "Renewals")
    later = int((datetime.now(UTC) + timedelta(days=2)).timestamp() * 1000)
    add_or_update_task(campaign, "C1", [ItemInput("Name", "Ann")], actor=SETUP)
    add_or_update_task(
        campaign,
        "C2",
        [ItemInput("Name", "Bo", display_order=2), ItemInput("Balance", "12.5")],
        preferred_agent="agent7",
        next_earliest=sent_time(later, "nextEarliestWorkTimeUTC"),
        actor=SETUP,
    )
    task = db.session.scalar(select(Task).filter_by(client_id="C2"))
    task.last_attempt_at = datetime(2026, 3, 29, 1, 30, 15, 123000, tzinfo=UTC)
    task.last_attempt_agent = "agent7"
    db.session.add_all(
        [
            WorkCode(task_id=task.id, key="Topics", value="Price", position=1),
            WorkCode(task_id=task.id, key="Outcome", value="Sale", position=0),
        ]
    )
    db.session.commit()
    return campaign


def _engine_rows(read: PlainRead, **values) -> list[tuple]:
    return [tuple(row) for row in db.session.execute(read.statement, values).all()]


@pytest.mark.parametrize("client_id", ["C1", "C2", "none"])
def test_a_task_s_reads_give_the_engine_s_values_and_types(tasks, client_id):
    where = {"campaign_id": tasks.id, "value": client_id}
    plain = [tuple(row) for row in _ONE_TASK["client_id"].all(db.session, **where)]
    engine = _engine_rows(_ONE_TASK["client_id"], **where)
    assert plain == engine
    assert [list(map(type, row)) for row in plain] == [list(map(type, row)) for row in engine]
    for task_id, *_ in plain:
        read = _ITEMS_AND_CODES_OF
        rows = [tuple(r) for r in read.all(db.session, task_id=task_id)]
        assert rows == _engine_rows(read, task_id=task_id)
        assert [list(map(type, row)) for row in rows] == [
            list(map(type, row)) for row in _engine_rows(read, task_id=task_id)
        ]


def test_rows_are_named_by_their_columns(tasks):
    row = _ONE_TASK["client_id"].first(db.session, campaign_id=tasks.id, value="C2")
    assert (row.client_id, row.preferred_agent, row.queue_name) == ("C2", "agent7", "Sales")
    assert row.next_earliest_work_at > datetime.now(UTC)
    rows = _ITEMS_AND_CODES_OF.all(db.session, task_id=row.id)
    assert [(r.kind, r.key, r.value, r.display_order) for r in rows][-4:] == [
        (0, "Name", "Bo", 2),  # the items first, in stored order
        (0, "Balance", "12.5", None),
        (1, "Outcome", "Sale", None),  # then the work codes, in theirs
        (1, "Topics", "Price", None),
    ]


def test_a_bound_time_is_handed_over_as_the_engine_hands_it(tasks):
    """A time parameter goes through its column type, as the key check's `now` does."""
    read = PlainRead(select(Task.client_id).where(Task.created_at < bindparam("now")))
    future = datetime.now(UTC) + timedelta(hours=1)
    assert sorted(r.client_id for r in read.all(db.session, now=future)) == ["C1", "C2"]
    assert read.all(db.session, now=future - timedelta(days=1)) == []


def test_the_engine_s_listeners_hear_each_statement(tasks):
    heard = []

    def listen(_conn, _cursor, statement, parameters, _context, _many):
        heard.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", listen)
    try:
        _ITEMS_AND_CODES_OF.all(db.session, task_id=1)
    finally:
        event.remove(db.engine, "before_cursor_execute", listen)
    reads = [parameters for statement, parameters in heard if "FROM task_items" in statement]
    assert reads in ([(1, 1)], [{"task_id": 1}])  # SQLite's positional, psycopg's named


def test_a_driver_error_is_raised_as_the_engine_raises_it(app):
    db.session.execute(text("SELECT 1"))  # the session's connection, as a request's
    read = PlainRead(select(TaskItem.key).where(TaskItem.task_id == bindparam("task_id")))
    db.session.execute(text("DROP TABLE task_items"))
    with pytest.raises(DBAPIError):
        read.all(db.session, task_id=1)
    db.session.rollback()


def test_lists_expanded_at_execution_are_refused(app):
    read = PlainRead(select(Task.id).where(Task.id.in_(bindparam("ids", expanding=True))))
    with pytest.raises(ValueError, match="plain bound parameters"):
        read.all(db.session, ids=[1, 2])


def test_a_campaign_ref_is_the_campaign_a_write_finds(tasks):
    ref = campaign_ref(tasks.tenant_id, "Renewals")
    found = campaign_named(tasks.tenant_id, "Renewals")
    assert (ref.id, ref.tenant_id, ref.name) == (found.id, found.tenant_id, found.name)
    other = db.session.scalar(select(Campaign).filter_by(name="Winback"))
    assert campaign_ref(tasks.tenant_id, "Winback").id == other.id


def test_a_missing_campaign_is_refused_alike_by_both_lookups(tasks):
    messages = []
    for lookup in (campaign_ref, campaign_named):
        with pytest.raises(NotFound) as refused:
            lookup(tasks.tenant_id, "Nope")
        messages.append(refused.value.message)
    assert messages[0] == messages[1] == "campaign 'Nope' does not exist in this environment"
    with pytest.raises(NotFound):
        campaign_ref(tasks.tenant_id + 1, "Renewals")  # another tenant's name finds nothing


def test_the_session_s_connection_is_its_transaction_s_through_begin_savepoint_and_end(app):
    """`session_connection` hands out the connection `session.connection()` would, through
    a savepoint and its end, and a later transaction's own once the first has ended, so a
    plain read never runs on a connection given back to the pool."""
    first = session_connection(db.session)
    assert first is db.session.connection()
    with db.session.begin_nested():
        assert session_connection(db.session) is first
    assert session_connection(db.session) is first
    db.session.commit()
    assert first.closed
    second = session_connection(db.session)
    assert not second.closed
    assert second is db.session.connection()
    db.session.rollback()
    assert second.closed
    third = session_connection(db.session)
    assert third is db.session.connection() and not third.closed
    db.session.remove()
    assert third.closed
    assert not session_connection(db.session).closed
