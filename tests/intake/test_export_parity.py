"""The streamed export writes, byte for byte, the file the ORM export it replaced wrote.

`orm_export` below is that export as it was (ORM tasks a thousand at a time, their items
and work codes attached per chunk); the generated tasks cover what a cell can hold: keys in
different orders and with gaps, keys some tasks lack, cells a spreadsheet would run, quotes,
line breaks, unicode, work codes stored out of order, times with microseconds.
"""

from __future__ import annotations

import csv
import io
import os  # noqa: F401 - read by a skipif
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Select, func, literal_column, select, update

from app.extensions import db
from app.models import Campaign, SkillQueue, Task, TaskItem, WorkCode
from app.services.csv_cells import guard
from app.services.intake import export
from app.services.intake.export import SYSTEM_COLUMNS, export_csv
from app.services.search.criteria import Condition, Criterion
from app.services.search.query import filtered
from app.services.tasks.data import with_data
from app.wire.times import format_time

# ---- the export as it was -------------------------------------------------------------


def _old_keys(campaign: Campaign, tasks: Select) -> list[str]:
    matching = tasks.with_only_columns(Task.id)
    rows = db.session.execute(
        select(TaskItem.key, func.min(TaskItem.position))
        .where(TaskItem.campaign_id == campaign.id, TaskItem.task_id.in_(matching))
        .where(TaskItem.key != campaign.client_id_field_name)
        .group_by(TaskItem.key)
        .order_by(func.min(TaskItem.position), TaskItem.key)
    )
    return [key for key, _ in rows]


def _old_guarded(cells: list) -> list:
    return [guard(cell) if isinstance(cell, str) else cell for cell in cells]


def _old_row(data, keys: list[str]) -> list:
    task = data.task
    values = {item.key: item.value for item in data.items}
    return [
        task.client_id,
        *(values.get(key, "") for key in keys),
        task.record_id,
        task.worked_state,
        task.work_attempts,
        task.last_attempt_agent or "",
        format_time(task.last_attempt_at) or "",
        format_time(task.next_earliest_work_at) or "",
        task.skill_queue.name,
        task.preferred_agent or "",
        "|".join(f"{code.key}={code.value}" for code in data.work_codes),
    ]


def orm_export(campaign: Campaign, criteria: list[Criterion]) -> Iterator[str]:
    tasks = filtered(campaign, criteria)
    keys = _old_keys(campaign, tasks)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(_old_guarded([campaign.client_id_field_name, *keys, *SYSTEM_COLUMNS]))
    last_id = 0
    while True:
        chunk = list(
            db.session.scalars(tasks.where(Task.id > last_id).order_by(Task.id).limit(1000))
        )
        if not chunk:
            break
        for data in with_data(chunk):
            writer.writerow(_old_guarded(_old_row(data, keys)))
        last_id = chunk[-1].id
        for task in chunk:
            db.session.expunge(task)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


# ---- generated tasks ------------------------------------------------------------------

KEYS = ["Name", "Plan", "Balance", "Mobile Phone", "Notes", "=Formula", "-Key", "Zoë 東京",
        'say "hi"', "a,b", "SkillQueue", "ItemTimeZone", "Id", "AccountNo"]  # fmt: skip
VALUES = ["Ann", "Gold", "Silver", "12.50", "-5", "3", "+14155550123", "=1+1", "'=x", "''=x",
          "@SUM(A1)", "\tx", "\rx", "'", "'quoted'", "a=b", "", "line\nbreak", 'say "hi"',
          "a,b", "Zoë 東京", "  spaced  ", "9876", "Gold "]  # fmt: skip
AGENTS = [None, "ann.agent", "=agent", "+1agent", "agent,smith", "Zoë"]
STATES = ["NOTWORKED", "WORKED", "COMPLETED", "REMOVED"]
BASE = datetime(2029, 12, 31, 23, 59, 58, 123456, tzinfo=UTC)
BASE_MS = int(BASE.timestamp() * 1000)


def _moment(rng: random.Random) -> datetime | None:
    if rng.random() < 0.4:
        return None
    return BASE + timedelta(
        seconds=rng.randint(-(10**8), 10**8), microseconds=rng.randint(0, 10**6)
    )


def _task(rng: random.Random, campaign: Campaign, queues: list[SkillQueue], n: int) -> Task:
    client_id = rng.choice([f"T{n:04d}", f"={n}", f"Zoë {n}", f"a,{n}", f'"{n}"', f"-{n}"])
    task = Task(
        record_id=f"rec-{campaign.id}-{n:05d}",
        campaign_id=campaign.id,
        client_id=client_id,
        client_id_field=rng.choice(["Id", "Id", "AccountNo"]),
        skill_queue_id=rng.choice(queues).id,
        time_zone="UTC",
        worked_state=rng.choice(STATES),
        work_attempts=rng.randint(0, 12),
        last_attempt_agent=rng.choice(AGENTS),
        last_attempt_at=_moment(rng),
        next_earliest_work_at=_moment(rng),
        preferred_agent=rng.choice(AGENTS),
    )
    keys = rng.sample(KEYS, rng.randint(0, 9))
    if keys and rng.random() < 0.05:
        keys.append(keys[0])  # a repeated key: the later item's value is written
    position = 0
    for key in keys:
        position += rng.randint(1, 3)  # gaps between positions
        value = rng.choice(VALUES)
        task.items.append(
            TaskItem(campaign_id=campaign.id, key=key, value=value, position=position,
                     display_order=rng.choice([None, 1, 5]))
        )  # fmt: skip
    codes = [
        WorkCode(key=rng.choice(["Outcome", "=Reason", "Zoë"]), value=rng.choice(VALUES[:8]),
                 position=place)
        for place in range(rng.randint(0, 3) if rng.random() < 0.4 else 0)
    ]  # fmt: skip
    task.work_codes = list(reversed(codes))  # stored in another order than their positions
    return task


@pytest.fixture
def generated(acme, renewals, winback) -> Campaign:
    """300 varied tasks in Renewals, interleaved with 100 in Winback (which stay out)."""
    rng = random.Random(12)
    campaign_id = renewals.id
    queues = list(db.session.scalars(select(SkillQueue).where(SkillQueue.tenant_id == acme.id)))
    for n in range(400):
        campaign = winback if n % 4 == 3 else renewals
        db.session.add(_task(rng, campaign, queues, n))
        if n % 50 == 49:
            db.session.flush()
    db.session.commit()
    db.session.expunge_all()
    return db.session.get(Campaign, campaign_id)


CRITERIA = {
    "all": [],
    "equals": [("Plan", "EQUALS", "Gold")],
    "not equals": [("Plan", "NOTEQUALS", "Gold")],
    "greater than": [("Balance", "GREATERTHAN", "4")],
    "begins with": [("Name", "BEGINSWITH", "'")],
    "worked state": [("sys_worked_state", "EQUALS", "WORKED")],
    "two criteria": [("sys_worked_state", "EQUALS", "COMPLETED"), ("Notes", "CONTAINS", "a")],
    # A time, a number and an empty text as parameters of the driver's cursors.
    "next work time": [("sys_next_earliest_worktime_long", "GREATERTHAN", str(BASE_MS))],
    "attempts": [("sys_worked_attempts", "LESSTHAN", "4")],
    "no preferred agent": [("sys_preferred_agent", "EQUALS", "")],
    "skill queue": [("sys_skill_queue", "EQUALS", "Support")],
    "none": [("Plan", "EQUALS", "Platinum")],
}


def _criteria(name: str) -> list[Criterion]:
    return [Criterion(key, Condition(condition), value) for key, condition, value in CRITERIA[name]]


@pytest.mark.parametrize("name", list(CRITERIA))
def test_the_export_is_byte_identical_to_the_orm_export(generated, name):
    expected = "".join(orm_export(generated, _criteria(name))).encode()
    db.session.rollback()
    assert "".join(export_csv(generated, _criteria(name))).encode() == expected
    if name == "all":  # the data covers what it means to
        rows = list(csv.reader(io.StringIO(expected.decode(), newline="")))
        assert len(rows) == 301
        cells = {cell for row in rows for cell in row}
        assert {"'=1+1", "''=x", "+14155550123", "line\nbreak", "Zoë 東京"} <= cells
        assert any("|" in row[-1] for row in rows[1:])  # several work codes
        assert "AccountNo" in rows[0] and "Id" not in rows[0][1:]


@pytest.mark.parametrize("chunk", [1, 7, 300])
def test_chunk_boundaries_change_nothing(generated, monkeypatch, chunk):
    expected = "".join(orm_export(generated, []))
    db.session.rollback()
    monkeypatch.setattr(export, "CHUNK", chunk)
    chunks = list(export_csv(generated, []))
    assert "".join(chunks) == expected
    assert len(chunks) >= 300 // chunk


def test_a_task_without_items_or_codes_has_empty_cells(renewals):
    queue = renewals.default_skill_queue_id
    db.session.add(Task(record_id="r1", campaign_id=renewals.id, client_id="A",
                        skill_queue_id=queue, time_zone="UTC"))  # fmt: skip
    db.session.commit()
    expected = "".join(orm_export(renewals, []))
    db.session.rollback()
    assert "".join(export_csv(renewals, [])) == expected
    assert expected.splitlines()[1] == "A,r1,NOTWORKED,0,,,,Sales,,"


@pytest.mark.skipif(
    "os.environ.get('TEST_DATABASE_URL')", reason="SQLite's text of a time, written by hand"
)
@pytest.mark.parametrize(
    "stored", ["2030-01-02 08:30:00", "2030-01-02 08:30:00.5", "2030-01-02 08:30:00.999999"]
)
def test_a_time_written_in_another_form_reads_as_sqlalchemy_reads_it(generated, stored):
    db.session.execute(
        update(Task).where(Task.campaign_id == generated.id).values(
            last_attempt_at=literal_column(f"'{stored}'")
        )
    )  # fmt: skip
    db.session.commit()
    expected = "".join(orm_export(generated, []))
    db.session.rollback()
    assert "".join(export_csv(generated, [])) == expected
