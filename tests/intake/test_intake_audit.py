"""What an intake load leaves in the trail: one record and one event per task it adds or
updates, written with each batch (one statement each), none for a rejected row or a dry run,
and `intake.load_finished` with the counts when it ends. The actor is who started the load,
through it."""

from __future__ import annotations

import pytest
from sqlalchemy import event, select

from app.extensions import db
from app.models import AuditRecord, Event
from app.services.intake import load as load_module
from app.services.intake.runs import run_load
from tests.conftest import SETUP
from tests.intake.conftest import start


def task_trail() -> list[AuditRecord]:
    db.session.expire_all()
    query = select(AuditRecord).where(AuditRecord.entity_kind == "task").order_by(AuditRecord.id)
    return list(db.session.scalars(query))


def events(prefix: str = "task.") -> list[Event]:
    query = select(Event).where(Event.type.startswith(prefix)).order_by(Event.id)
    return list(db.session.scalars(query))


def data(event_: Event) -> dict:
    return {key: value for key, value in event_.payload["data"].items() if key != "actor"}


def run(campaign, path, **options):
    return run_load(start(campaign, path, **options).id)


def through(load) -> tuple[str, str, str]:
    """The actor a load's records name: who started it (an operator here), via the load."""
    return (SETUP.kind.value, SETUP.id, f"intake load {load.id}")


def test_each_task_a_load_writes_has_its_record_and_event_as_its_starter(renewals, write):
    load = run(renewals, write("Id,Name\nA,Ann\nB,Bob\nA,Ann 2\nC,Cy,extra\n"))
    assert (load.added, load.rejected, load.superseded) == (2, 1, 1)
    records = task_trail()
    assert sorted((r.action, r.after["clientId"]) for r in records) == [
        ("task.added", "A"),
        ("task.added", "B"),
    ]  # A once (its last row wins), C (rejected) never
    assert {(r.actor_kind, r.actor_id, r.actor_via, r.tenant_id) for r in records} == {
        (*through(load), renewals.tenant_id)
    }
    by_client = {r.after["clientId"]: r for r in records}
    assert by_client["A"].after["previewRecordData"][1] == {"key": "Name", "value": "Ann 2"}
    assert {(e.type, e.subject) for e in events()} == {("task.added", r.entity_id) for r in records}


def test_an_update_records_the_task_before_and_after(renewals, write, api):
    run(renewals, write("Id,Name,Plan\nA,Ann,Gold\n"))
    api.status("changeCampaignRecordStatus", clientId="A", previewRecordStateEnum="COMPLETED")
    load = run(renewals, write("Id,Name,Plan,preferredAgent\nA,Ann,Silver,agent7\n", name="2.csv"))
    [record] = [r for r in task_trail() if r.actor_via == f"intake load {load.id}"]
    assert record.action == "task.updated"
    plans = [
        [i["value"] for i in task["previewRecordData"] if i["key"] == "Plan"]
        for task in (record.before, record.after)
    ]
    assert plans == [["Gold"], ["Silver"]]
    assert (record.before["preferredAgent"], record.after["preferredAgent"]) == (None, "agent7")
    # What the load did not touch stays as the API left it, before and after.
    assert record.before["workedState"] == record.after["workedState"] == "COMPLETED"


def test_the_events_carry_the_task_as_search_returns_it(renewals, write, api):
    run(renewals, write("Id,Name,Plan,preferredAgent\nA,Ann,Gold,bob\n"))
    added = events()[-1]
    assert data(added) == {**api.find("A"), "campaignName": "Renewals"}
    api.status("changeCampaignRecordStatus", clientId="A", previewRecordStateEnum="COMPLETED")
    path = write(
        "Id,Name,skillQueue,nextEarliestWorkTime\nA,Ann,Support,2030-01-02 03:04:05.678\n",
        name="2.csv",
    )
    run(renewals, path)
    updated = events()[-1]
    assert updated.type == "task.updated"
    assert data(updated) == {**api.find("A"), "campaignName": "Renewals"}


def test_records_and_events_are_written_with_each_batch_in_one_statement_each(
    renewals, write, monkeypatch
):
    monkeypatch.setattr(load_module, "BATCH", 2)
    inserts = []

    def spy(conn, cursor, statement, parameters, context, executemany):
        for table in ("audit_records", "events"):
            if statement.startswith(f"INSERT INTO {table}"):
                # An executemany's parameter sets, or the rows of one INSERT's VALUES.
                rows = (
                    len(parameters)
                    if executemany
                    else statement.count("(?") + statement.count("(%s") or 1
                )
                inserts.append((table, rows))

    engine = db.engine
    event.listen(engine, "before_cursor_execute", spy)
    try:
        load = run(renewals, write("Id,Name\nA,1\nB,2\nC,3\nD,4\nE,5\n"))
    finally:
        event.remove(engine, "before_cursor_execute", spy)
    assert load.added == 5
    # Three batches (2, 2, 1 tasks), then the load's own record and event as it ends.
    assert inserts == [
        ("audit_records", 2), ("events", 2),
        ("audit_records", 2), ("events", 2),
        ("audit_records", 1), ("events", 1),
        ("audit_records", 1), ("events", 1),
    ]  # fmt: skip


def test_a_row_refused_on_writing_leaves_no_record(renewals, write, api):
    api.add("A", {"Name": "Ann"}, clientIdFieldName="AccountNo")
    api.add("B", {"Name": "Bob"})
    before = len(task_trail())
    # A's clientId is kept under AccountNo: a data column of that name cannot update it.
    load = run(renewals, write("Id,Name,AccountNo\nA,Ann,X\nB,Bob,Y\n"))
    assert (load.updated, load.rejected) == (1, 1)
    [record] = task_trail()[before:]
    assert (record.action, record.after["clientId"]) == ("task.updated", "B")
    assert [e.payload["data"]["clientId"] for e in events()[before:]] == ["B"]


@pytest.mark.parametrize(
    ("options", "status"),
    [({"dry_run": True}, "done"), ({"all_or_nothing": True}, "refused")],
    ids=["dry-run", "all-or-nothing-refused"],
)
def test_a_load_that_writes_nothing_records_no_task(renewals, write, options, status):
    load = run(renewals, write("Id,Name,Home Phone\nA,Ann,\nB,Bob,123\n"), **options)
    assert load.status == status
    assert (task_trail(), events()) == ([], [])
    [finished] = events("intake.")
    assert finished.payload["data"]["status"] == status


def test_a_finished_load_tells_its_counts(renewals, write):
    load = run(renewals, write("Id,Name\nA,Ann\nB,Bob\nA,Ann 2\nC,Cy,extra\n"))
    [finished] = events("intake.")
    assert (finished.type, finished.subject) == ("intake.load_finished", load.id)
    assert {k: v for k, v in data(finished).items() if k != "message"} == {
        "loadId": load.id,
        "campaignName": "Renewals",
        "fileName": "tasks.csv",
        "source": "cli",
        "status": "done",
        "dryRun": False,
        "allOrNothing": False,
        "rowsTotal": 4,
        "rowsDone": 4,
        "added": 2,
        "updated": 0,
        "rejected": 1,
        "superseded": 1,
        "normalised": 0,
    }
    [record] = db.session.scalars(select(AuditRecord).filter_by(entity_kind="intake_load"))
    assert (record.actor_kind, record.actor_id, record.actor_via, record.action) == (
        *through(load),
        "intake.load_finished",
    )


def test_a_file_refused_as_a_whole_records_no_task(renewals, write):
    load = run(renewals, write("Name\nAnn\n"))  # no clientId column
    assert load.status == "refused"
    assert task_trail() == []
    assert [e.type for e in events("intake.")] == ["intake.load_finished"]


# --- The command line ----------------------------------------------------------------------


def intake(runner, *args):
    return runner.invoke(args=["intake", *map(str, args)])


def test_the_cli_load_records_each_task_as_the_operator_through_its_load(runner, renewals, write):
    result = intake(runner, "load", "Acme", "prod", "Renewals", write("Id,Name\nA,Ann\nB,Bob\n"))
    assert result.exit_code == 0, result.output
    [finished] = events("intake.")
    assert {(r.actor_kind, r.actor_id, r.actor_via) for r in task_trail()} == {
        ("operator", SETUP.id, f"intake load {finished.subject}")
    }
    assert len(task_trail()) == len(events()) == 2


@pytest.mark.parametrize("option", ["--dry-run", "--all-or-nothing"])
def test_a_cli_load_that_writes_nothing_records_no_task(runner, renewals, write, option):
    path = write("Id,Name,Home Phone\nA,Ann,\nB,Bob,123\n")
    intake(runner, "load", "Acme", "prod", "Renewals", path, option)
    assert (task_trail(), events()) == ([], [])
