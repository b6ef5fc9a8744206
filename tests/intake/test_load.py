"""Loading: add or update, the last row wins, dry runs, all-or-nothing, counts and
progress, the load records, and memory that does not grow with the file."""

from __future__ import annotations

import tracemalloc
from dataclasses import astuple
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import event, func, select

from app.db.side_transactions import own_transaction
from app.extensions import db
from app.models import IntakeLoad, LoadStatus, Task
from app.services.campaigns import countries
from app.services.errors import InvalidInput
from app.services.intake import load as load_module
from app.services.intake import runs
from app.services.intake.file_reader import FileRefused, iter_rows
from app.services.intake.load import load_file
from app.services.intake.runs import run_load, stored_file
from app.services.tasks.changes import Locator, TaskChanges, change_status
from app.wire.times import sent_time
from tests.conftest import SETUP
from tests.intake.conftest import csv_text, read_report, start, tasks_of

NEXT_MS = 1893573000000  # 2030-01-02 08:30:00 UTC


def balanced(counts) -> bool:
    """Every row read is added, updated, rejected or superseded, once."""
    return counts.added + counts.updated + counts.rejected + counts.superseded == counts.rows


def twin(api, client_id: str) -> None:
    """The same task in Renewals and Winback, through the API, worked once."""
    data = [
        {"key": "Name", "value": "Old name"},
        {"key": "Plan", "value": "Silver", "displayOrder": 2},
        {"key": "Extra", "value": "dropped on update"},
        {"key": "SkillQueue", "value": "Support"},
        {"key": "ItemTimeZone", "value": "Europe/Paris"},
    ]
    for campaign in ("Renewals", "Winback"):
        api.campaign = campaign
        api.add(client_id, data, preferredAgent="old.agent", nextEarliestWorkTimeUTC=NEXT_MS)


def worked(campaign, client_id: str) -> None:
    change_status(
        campaign,
        Locator(client_id=client_id),
        "WORKED",
        TaskChanges(next_earliest=sent_time(NEXT_MS, "nextEarliestWorkTimeUTC")),
        actor=SETUP,
    )
    db.session.commit()


def test_an_update_replaces_all_data_as_an_api_update_does(api, renewals, winback, write, load):
    twin(api, "A")
    worked(renewals, "A")
    worked(winback, "A")
    before = tasks_of(renewals)["A"]
    counts, report = load(renewals, write("Id,Name,Plan\nA,New name,Gold\nB,Bob,\n"))
    assert (counts.added, counts.updated, counts.rejected) == (1, 1, 0), report
    api.campaign = "Winback"
    api.add("A", {"Name": "New name", "Plan": "Gold"})

    by_file, by_api = tasks_of(renewals)["A"], tasks_of(winback)["A"]
    assert by_file.items == (("Id", "A", None), ("Name", "New name", None), ("Plan", "Gold", None))
    assert by_file.record_id == before.record_id
    # What an update leaves alone: state, queue, zone, preferred agent, next time.
    assert by_file.worked_state == "WORKED"
    assert (by_file.queue, by_file.time_zone) == ("Support", "Europe/Paris")
    assert by_file.preferred_agent == "old.agent"
    for name in ("items", "queue", "time_zone", "preferred_agent", "next_work", "worked_state"):
        assert getattr(by_file, name) == getattr(by_api, name), name


def test_an_update_with_system_columns_and_special_keys_changes_them(api, renewals, write, load):
    twin(api, "A")
    text = (
        "Id,Name,ItemTimeZone,preferredAgent,nextEarliestWorkTime,skillQueue\n"
        "A,Ann,Asia/Tokyo,new.agent,2031-05-06 07:08:09.010,Sales\n"
    )
    counts, _ = load(renewals, write(text))
    assert counts.updated == 1
    task = tasks_of(renewals)["A"]
    assert task.items == (
        ("Id", "A", None),
        ("Name", "Ann", None),
        ("ItemTimeZone", "Asia/Tokyo", None),
    )
    assert (task.queue, task.time_zone, task.preferred_agent) == (
        "Sales",
        "Asia/Tokyo",
        "new.agent",
    )
    assert task.next_work == datetime(2031, 5, 6, 7, 8, 9, 10000, tzinfo=UTC)


def test_a_data_item_skill_queue_moves_an_updated_task(api, renewals, write, load):
    api.add("A", {"Name": "Ann"})
    assert tasks_of(renewals)["A"].queue == "Sales"
    load(renewals, write("Id,Name,SkillQueue\nA,Ann,Support\n"))
    assert tasks_of(renewals)["A"].queue == "Support"


LAST_ROW_WINS = (
    "Id,Name,Mobile Phone\n"
    "A,first,\n"  # line 2: superseded by line 4
    "B,Bob,\n"  # line 3
    'A,"sec\nond",\n'  # lines 4-5: superseded by line 8
    "\n"  # line 6: blank, no row
    "C,Cy,bad\n"  # line 7: rejected
    "A,third,+14155550123\n"  # line 8: wins
    "A,fourth,bad\n"  # line 9: rejected, so line 8 stays
)


def test_the_last_row_wins_and_the_report_says_so(renewals, write, load):
    counts, report = load(renewals, write(LAST_ROW_WINS))
    assert (counts.rows, counts.added, counts.updated) == (6, 2, 0)
    assert (counts.rejected, counts.superseded) == (2, 2)
    assert balanced(counts)
    by_line = {row["line"]: row for row in report}
    assert sorted(by_line, key=int) == ["2", "4", "7", "9"]
    assert by_line["2"]["clientId"] == by_line["4"]["clientId"] == "A"
    assert by_line["2"]["outcome"] == by_line["4"]["outcome"] == "superseded"
    assert "line 4" in by_line["2"]["reason"]
    assert "line 8" in by_line["4"]["reason"]
    assert (by_line["7"]["clientId"], by_line["7"]["outcome"]) == ("C", "rejected")
    assert (by_line["9"]["clientId"], by_line["9"]["outcome"]) == ("A", "rejected")
    assert "Mobile Phone" in by_line["7"]["reason"]
    tasks = tasks_of(renewals)
    assert set(tasks) == {"A", "B"}
    assert tasks["A"].data == {"Id": "A", "Name": "third", "Mobile Phone": "+14155550123"}


@pytest.mark.parametrize("dry_run", [False, True], ids=["load", "dry-run"])
def test_counts_do_not_depend_on_where_batches_end(renewals, write, load, dry_run):
    """C0 comes again after a whole batch of rows: still one task added, none updated."""
    rows = [["Id", "Name"], *([f"C{n}", f"first {n}"] for n in range(5001)), ["C0", "again"]]
    counts, report = load(renewals, write(csv_text(rows)), dry_run=dry_run)
    assert report == [
        {
            "line": "2",
            "clientId": "C0",
            "outcome": "superseded",
            "reason": "clientId repeated on line 5003; the last row wins",
        }
    ]
    assert (counts.rows, counts.superseded) == (5002, 1)
    assert (counts.added, counts.updated) == (5001, 0)
    assert balanced(counts)


def test_a_dry_run_writes_nothing_and_counts_what_a_load_would_do(api, renewals, write, load):
    api.add("A", {"Name": "Ann"})
    before = tasks_of(renewals)
    path = write("Id,Name,Mobile Phone\nA,Ann 2,\nB,Bob,\nC,Cy,bad\nB,Bob 2,\nD,Di,\n")
    dry, dry_report = load(renewals, path, dry_run=True)
    assert tasks_of(renewals) == before
    assert (dry.rows, dry.added, dry.updated, dry.rejected, dry.superseded) == (5, 2, 1, 1, 1)
    counts, report = load(renewals, path)
    assert astuple(counts) == astuple(dry)
    assert sorted(report, key=lambda r: r["line"]) == sorted(dry_report, key=lambda r: r["line"])
    assert set(tasks_of(renewals)) == {"A", "B", "D"}


def test_all_or_nothing_refuses_the_file_when_any_row_is_bad(api, renewals, write, load):
    api.add("A", {"Name": "Ann"})
    before = tasks_of(renewals)
    path = write("Id,Name,Mobile Phone\nA,Ann 2,\nB,Bob,\nC,Cy,bad\n")
    with pytest.raises(FileRefused) as refused:
        load(renewals, path, all_or_nothing=True)
    assert "1 of 3 rows" in refused.value.message
    assert refused.value.counts.rejected == 1
    assert tasks_of(renewals) == before
    report = read_report(path.parent.parent / "reports" / "tasks-report.csv")
    assert [(r["line"], r["clientId"], r["outcome"]) for r in report] == [("4", "C", "rejected")]


def test_all_or_nothing_loads_a_good_file_with_a_single_report(renewals, write, load):
    counts, report = load(renewals, write("Id,Name\nA,Ann\nB,Bob\nA,Ann 2\n"), all_or_nothing=True)
    assert (counts.added, counts.superseded) == (2, 1)
    assert report == [
        {
            "line": "2",
            "clientId": "A",
            "outcome": "superseded",
            "reason": "clientId repeated on line 4; the last row wins",
        }
    ]
    assert tasks_of(renewals)["A"].data["Name"] == "Ann 2"


def test_progress_is_reported_after_each_batch(renewals, write, monkeypatch, tmp_path):
    monkeypatch.setattr(load_module, "BATCH", 2)
    seen = []
    path = write("Id,Name\nA,1\nB,2\nC,3\nD,4\nE,bad,x\n")
    counts = load_file(
        renewals,
        path,
        tmp_path / "r.csv",
        progress=lambda c: seen.append((c.total, c.rows)),
        actor=SETUP,
    )
    assert seen == [(5, 2), (5, 4), (5, 5)]
    assert (counts.added, counts.rejected) == (4, 1)


def recorded(campaign, path: Path, **options) -> IntakeLoad:
    return run_load(start(campaign, path, **options).id)


def test_a_load_record_keeps_its_file_counts_report_and_message(app, renewals, write, tmp_path):
    path = write("Id,Name,workedState,previewRecordID\nA,Ann,WORKED,x\nB,Bob,,\nA,Ann 2,,\nC,\n")
    load = start(renewals, path)
    assert (load.status, load.file_name, load.source) == (LoadStatus.QUEUED, "tasks.csv", "cli")
    stored = stored_file(load)
    assert stored == tmp_path / "instance" / "intake" / f"{load.id}.csv"
    assert stored.read_bytes() == path.read_bytes()

    load = run_load(load.id)
    assert load.status == LoadStatus.DONE and load.finished and load.percent == 100
    assert (load.rows_total, load.rows_done) == (4, 4)
    assert (load.added, load.updated, load.rejected, load.superseded) == (2, 0, 1, 1)
    assert load.message == "ignored columns: workedState, previewRecordID"
    assert load.finished_at is not None
    report = Path(load.report_path)
    assert report == tmp_path / "instance" / "intake" / f"{load.id}-report.csv"
    outcomes = sorted((int(r["line"]), r["outcome"]) for r in read_report(report))
    assert outcomes == [(2, "superseded"), (5, "rejected")]
    assert set(tasks_of(renewals)) == {"A", "B"}


def test_a_dry_run_record_counts_what_would_be_written(renewals, write):
    load = recorded(renewals, write("Id,Name\nA,Ann\nB,Bob\n"), dry_run=True)
    assert (load.status, load.dry_run, load.added, load.rows_done) == ("done", True, 2, 2)
    assert tasks_of(renewals) == {}


def test_an_all_or_nothing_refusal_records_the_counts_but_nothing_written(renewals, write):
    load = recorded(renewals, write("Id,Name,Home Phone\nA,Ann,\nB,Bob,123\n"), all_or_nothing=True)
    assert load.status == LoadStatus.REFUSED
    assert "all-or-nothing" in load.message
    assert (load.rows_done, load.rejected, load.added, load.updated) == (2, 1, 0, 0)
    assert tasks_of(renewals) == {}


def test_progress_commits_with_each_batch_for_other_workers_to_see(renewals, write, monkeypatch):
    """A batch's tasks and the load's counts commit together: a load cut off between
    batches knows exactly what it wrote (the worker resumes from there)."""
    monkeypatch.setattr(load_module, "BATCH", 2)
    seen = []

    def look(_session) -> None:
        # Another connection sees committed rows only; a reader, so it does not queue for
        # the write turn the load's connection holds until it goes back to the pool.
        with own_transaction(write=False) as other:
            load = other.execute(select(IntakeLoad.status, IntakeLoad.rows_done)).one()
            tasks = other.scalar(select(func.count()).select_from(Task))
        seen.append((*load, tasks))

    load = start(renewals, write("Id\nA\nB\nC\n"))
    session = db.session()
    event.listen(session, "after_commit", look)
    try:
        run_load(load.id)
    finally:
        event.remove(session, "after_commit", look)
    assert load.status == LoadStatus.DONE
    assert seen == [("checking", 0, 0), ("loading", 2, 2), ("loading", 3, 3), ("done", 3, 3)]


def test_an_unexpected_error_fails_the_load(renewals, write, monkeypatch):
    def broken(campaign, batch, **_):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(load_module, "write_batch", broken)
    load = recorded(renewals, write("Id\nA\n"))
    assert load.status == LoadStatus.FAILED
    assert "unexpected error" in load.message
    assert tasks_of(renewals) == {}


def test_loads_are_listed_newest_first(renewals, write):
    first = recorded(renewals, write("Id\nA\n", name="one.csv"))
    second = recorded(renewals, write("Id\nB\n", name="two.csv"))
    assert [load.id for load in runs.recent_loads(renewals)] == [second.id, first.id]
    assert len(db.session.scalars(select(IntakeLoad)).all()) == 2


def test_memory_stays_well_below_holding_the_rows(renewals, write, load, monkeypatch):
    """12,000 rows in batches of 200: the load's peak is a fraction of the rows' own size.

    A batch also holds its tasks' audit records and events (each task's fields, as JSON)
    until it writes them: a half of the rows' size, not a quarter, as before they existed.

    (Kept small: on PostgreSQL a test database's stale statistics make each batch's lookup
    of existing clientIds scan the campaign, so time grows with the square of the rows.)
    """
    monkeypatch.setattr(load_module, "BATCH", 200)
    load(renewals, write("Id,Name\nwarm,up\n", name="warm-up.csv"))  # compiled statements
    rows = ["Id,Name"] + [f"C{n:06d},Customer number {n}" for n in range(12000)]
    path = write("\n".join(rows) + "\n")
    del rows
    tracemalloc.start()
    try:
        held = list(iter_rows(path, ","))
        holding = tracemalloc.get_traced_memory()[0]
        del held
        tracemalloc.reset_peak()
        baseline = tracemalloc.get_traced_memory()[0]
        counts, _ = load(renewals, path)
        peak = tracemalloc.get_traced_memory()[1] - baseline
    finally:
        tracemalloc.stop()
    assert counts.added == 12000
    assert peak < holding / 2, (peak, holding)


@pytest.mark.parametrize(
    ("cell", "stored"),
    [
        ("(415) 555-0101", "+14155550101"),
        ("+1 (415) 555-0101", "+14155550101"),
        ("415.555.0101", "+14155550101"),
        ("+14155550101", "+14155550101"),  # E.164 already: not counted
    ],
)
def test_the_campaigns_default_country_reads_national_numbers_as_e164(
    renewals, write, load, cell, stored
):
    countries.set_default_country(renewals, "us", actor=SETUP)
    db.session.commit()
    content = csv_text([["Id", "Mobile Phone", "Name"], ["A", cell, "Ann"]])
    counts, report = load(renewals, write(content))
    assert (counts.added, counts.rejected, report) == (1, 0, [])
    assert counts.normalised == (0 if cell == stored else 1)
    assert tasks_of(renewals)["A"].data["Mobile Phone"] == stored


def test_without_a_default_country_or_when_unreadable_a_number_is_refused_naming_its_row(
    renewals, write, load
):
    content = csv_text([["Id", "Mobile Phone"], ["A", "(415) 555-0101"], ["B", "+14155550102"]])
    counts, report = load(renewals, write(content))
    assert (counts.added, counts.rejected, counts.normalised) == (1, 1, 0)
    [refused] = report
    assert (refused["line"], refused["outcome"]) == ("2", "rejected")
    assert (
        "'(415) 555-0101' of phone key 'Mobile Phone' is not an E.164 number" in (refused["reason"])
    )
    countries.set_default_country(renewals, "US", actor=SETUP)
    db.session.commit()
    content = csv_text([["Id", "Mobile Phone"], ["C", "555-01"], ["D", "(212) 555-0125"]])
    counts, report = load(renewals, write(content, "second.csv"))
    assert (counts.added, counts.rejected, counts.normalised) == (1, 1, 1)
    assert [row["line"] for row in report] == ["2"]


def test_a_default_country_must_be_a_country(renewals):
    with pytest.raises(InvalidInput) as refused:
        countries.set_default_country(renewals, "XX", actor=SETUP)
    assert refused.value.field.said == "default country"
    assert countries.set_default_country(renewals, " gb ", actor=SETUP) == "GB"
    assert countries.set_default_country(renewals, "", actor=SETUP) is None
