"""Bulk jobs run to their end: every task of the confirmed set through the single change's
service function, in batches, each with its audit record and event."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import BulkJob, BulkState, Event, Task, TaskItem
from app.models.types import utcnow
from app.services.audit.reading import export_records
from app.services.bulk.actions import BulkRequest
from app.services.bulk.jobs import run_bulk, start_bulk
from app.services.bulk.report import failure_reasons
from app.services.errors import InvalidInput, NotFound
from app.services.tasks.changes import Locator, add_or_update_task, delete_task
from app.services.tasks.history import task_history
from app.services.tasks.validation import ItemInput
from app.wire.times import sent_time
from tests.bulk.conftest import BOSS, add_tasks, events, plan_is, records, states
from tests.conftest import SETUP


def test_a_status_change_acts_on_every_matching_task_in_batches(renewals):
    gold = {n for n in range(30) if n % 3 == 0}
    add_tasks(renewals, 30, plan=lambda n: "Gold" if n in gold else "Basic")
    completed = BulkRequest("status", state="COMPLETED")
    job = start_bulk(renewals, plan_is("Gold"), completed, actor=BOSS)
    db.session.refresh(job)
    assert job.state == BulkState.DONE
    assert (job.confirmed, job.acted, job.skipped, job.failed) == (10, 10, 0, 0)
    shown = states(renewals)
    assert {c for c, s in shown.items() if s == "COMPLETED"} == {f"C{n:04d}" for n in gold}
    changed = records("task.status_changed")
    assert len(changed) == 10 and len({r.entity_id for r in changed}) == 10
    assert {(r.actor_kind, r.actor_id, r.actor_via) for r in changed} == {
        ("supervisor", "boss@example.com", f"bulk job {job.id}")
    }
    assert events("task.status_changed") == 10
    assert events("bulk.finished") == 1
    versions = {t.version for t in db.session.query(Task).filter(Task.worked_state == "COMPLETED")}
    assert versions == {2}


@pytest.mark.parametrize("settings", ["queued"], indirect=True)
def test_tasks_changed_after_the_confirmation_are_acted_on_only_if_they_still_match(renewals):
    add_tasks(renewals, 20, plan=lambda n: "Gold")
    job = start_bulk(renewals, plan_is("Gold"), BulkRequest("status", state="REMOVED"), actor=BOSS)
    assert job.confirmed == 20
    # After the confirmation: two tasks leave the set, one is deleted, one new one matches.
    for client_id in ("C0003", "C0015"):
        add_or_update_task(renewals, client_id, [ItemInput("Plan", "Basic")], actor=SETUP)
    delete_task(renewals, Locator(client_id="C0009"), actor=SETUP)
    add_tasks(renewals, 1, plan=lambda n: "Gold", start=50)
    run_bulk(job.id)
    db.session.refresh(job)
    assert (job.confirmed, job.acted, job.skipped, job.failed) == (20, 17, 3, 0)
    shown = states(renewals)
    assert shown["C0003"] == shown["C0015"] == "NOTWORKED"
    assert shown["C0050"] == "NOTWORKED"  # added after the confirmation: not in the set
    assert Counter(shown.values()) == {"REMOVED": 17, "NOTWORKED": 3}


def test_a_status_change_ends_reservations_as_a_single_change_does(renewals):
    tasks = add_tasks(renewals, 10, plan=lambda n: "Gold")
    held = tasks[4]
    held.reserved_by_id, held.reserved_at = 77, utcnow()
    db.session.commit()
    job = start_bulk(
        renewals, plan_is("Gold"), BulkRequest("status", state="COMPLETED"), actor=BOSS
    )
    assert job.acted == 10
    db.session.refresh(held)
    assert (held.reserved_by_id, held.reserved_at, held.worked_state) == (None, None, "COMPLETED")


def test_a_worked_status_sets_the_next_time_queue_and_zone_of_each_task(renewals):
    add_tasks(renewals, 9, plan=lambda n: "Gold")
    wanted = BulkRequest(
        "status",
        state="WORKED",
        skill_queue="Support",
        time_zone="Europe/Paris",
        next_earliest=sent_time(1_900_000_000_000, "nextEarliestWorkTimeUTC"),
    )
    job = start_bulk(renewals, plan_is("Gold"), wanted, actor=BOSS)
    assert job.acted == 9
    task = db.session.scalar(select(Task).where(Task.client_id == "C0005"))
    assert (task.worked_state, task.skill_queue.name, task.time_zone) == (
        "WORKED", "Support", "Europe/Paris",
    )  # fmt: skip
    items = {item.key: item.value for item in task.items}
    assert items.get("SkillQueue", "Support") == "Support"
    [record] = [r for r in records("task.status_changed") if r.entity_id == task.record_id]
    assert record.after["skillQueue"] == "Support"
    assert record.after["nextEarliestWorkTime"] == "2030-03-17 17:46:40.000"


def test_a_transfer_moves_the_tasks_and_reports_those_the_destination_refuses(renewals, winback):
    add_tasks(renewals, 12, plan=lambda n: "Gold")
    add_tasks(winback, 2, plan=lambda n: "Other", start=4)  # C0004, C0005 exist there
    wanted = BulkRequest("transfer", destination="Winback")
    job = start_bulk(renewals, plan_is("Gold"), wanted, actor=BOSS)
    assert (job.confirmed, job.acted, job.skipped, job.failed) == (12, 10, 0, 2)
    assert set(states(renewals)) == {"C0004", "C0005"}
    assert len(states(winback)) == 12
    reasons = failure_reasons(job)
    assert reasons == [
        ("clientId 'C0004' already exists in campaign 'Winback'", 1),
        ("clientId 'C0005' already exists in campaign 'Winback'", 1),
    ]
    moved = records("task.transferred")
    assert len(moved) == 10
    assert {r.after["campaignName"] for r in moved} == {"Winback"}
    assert {r.after["skillQueue"] for r in moved} == {"Support"}  # the destination's default


def test_the_preferred_agent_is_set_then_cleared_with_its_hold(renewals):
    add_tasks(renewals, 8, plan=lambda n: "Gold")
    start_bulk(
        renewals, plan_is("Gold"), BulkRequest("preferred_agent", preferred_agent="ann"), actor=BOSS
    )
    tasks = db.session.scalars(select(Task)).all()
    assert {(t.preferred_agent, t.hold_until is not None) for t in tasks} == {("ann", True)}
    start_bulk(renewals, plan_is("Gold"), BulkRequest("preferred_agent"), actor=BOSS)
    db.session.expire_all()
    tasks = db.session.scalars(select(Task)).all()
    assert {(t.preferred_agent, t.hold_until, t.version) for t in tasks} == {(None, None, 3)}
    assert len(records("task.updated")) == 16


def test_a_delete_removes_every_matching_task_with_its_trail(renewals):
    add_tasks(renewals, 15, plan=lambda n: "Gold" if n < 10 else "Basic")
    job = start_bulk(renewals, plan_is("Gold"), BulkRequest("delete"), actor=BOSS)
    assert (job.acted, job.failed) == (10, 0)
    assert sorted(states(renewals)) == [f"C{n:04d}" for n in range(10, 15)]
    deleted = records("task.deleted")
    assert len(deleted) == 10 and all(r.after is None for r in deleted)
    assert events("task.deleted") == 10
    orphans = select(func.count(TaskItem.task_id)).where(TaskItem.task_id.not_in(select(Task.id)))
    assert db.session.scalar(orphans) == 0  # their data went with them


def test_a_request_refused_when_it_runs_fails_the_job_and_changes_nothing(renewals):
    add_tasks(renewals, 5, plan=lambda n: "Gold")
    with pytest.raises(InvalidInput):
        start_bulk(renewals, plan_is("Gold"), BulkRequest("status", state="WORKED"), actor=BOSS)
    assert db.session.scalars(select(BulkJob)).all() == []
    with pytest.raises(NotFound):
        start_bulk(renewals, plan_is("Gold"), BulkRequest("transfer", destination="No"), actor=BOSS)


def test_the_trail_names_the_supervisor_and_the_bulk_job(renewals):
    [task] = add_tasks(renewals, 1, plan=lambda n: "Gold")
    job = start_bulk(renewals, plan_is("Gold"), BulkRequest("status", state="REMOVED"), actor=BOSS)
    [latest, *_] = task_history(renewals.tenant_id, task.record_id, 1).rows
    assert latest.who == f"supervisor boss@example.com via bulk job {job.id}"
    exported = [r for r in export_records(renewals.tenant_id) if r["action"] == "bulk.finished"]
    assert exported[0]["actor"] == {
        "kind": "supervisor", "id": "boss@example.com", "via": f"bulk job {job.id}",
    }  # fmt: skip
    payload = db.session.scalar(select(Event.payload).where(Event.type == "task.status_changed"))
    assert payload["data"]["actor"]["via"] == f"bulk job {job.id}"
    finished = db.session.scalar(select(Event.payload).where(Event.type == "bulk.finished"))
    assert finished["data"]["acted"] == 1 and finished["data"]["description"] == (
        "Set 1 task to REMOVED"
    )
