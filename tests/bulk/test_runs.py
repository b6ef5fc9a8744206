"""Bulk jobs run to their end: every task of the confirmed set through the single change's
service function, in batches, each with its audit record and event."""

from __future__ import annotations

from app.extensions import db
from app.models import BulkState, Task
from app.services.bulk.actions import BulkRequest
from app.services.bulk.runs import start_bulk
from tests.bulk.conftest import BOSS, add_tasks, events, plan_is, records, states


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
