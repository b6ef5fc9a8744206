"""A bulk job cut off anywhere (its worker killed) goes on from its last committed batch:
the counts and the audit records per task are those of an uninterrupted run, and the sweep
queues again a job no live worker holds."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from app.extensions import db
from app.jobs import huey, leases
from app.jobs.bulk import sweep_bulk
from app.jobs.leases import QUEUED_PATIENCE
from app.models import BulkState
from app.services.bulk import jobs
from app.services.bulk.actions import BulkRequest
from app.services.bulk.jobs import run_bulk, start_bulk
from tests.bulk.conftest import BATCH, BOSS, add_tasks, events, plan_is, records, states
from tests.jobs.conftest import run_queued_jobs


class Killed(BaseException):
    """The worker process dying: nothing of the job's own error handling runs."""


def _queued_job(renewals, count=40, action=None):
    add_tasks(renewals, count, plan=lambda n: "Gold" if n % 4 else "Basic")
    wanted = action or BulkRequest("status", state="COMPLETED")
    return start_bulk(renewals, plan_is("Gold"), wanted, actor=BOSS)


@pytest.mark.parametrize("settings", ["queued"], indirect=True)
@pytest.mark.parametrize("cut_after", [0, 1, 3])
def test_a_job_killed_mid_batch_resumes_and_acts_once_on_each_task(
    renewals, monkeypatch, cut_after
):
    job = _queued_job(renewals)
    assert job.state == BulkState.QUEUED and job.confirmed == 30
    real, calls = jobs._act, []

    def dying(apply, tasks):
        calls.append(1)
        failures = real(apply, tasks)  # the batch's changes made, not yet committed
        if len(calls) > cut_after:
            raise Killed
        return failures

    monkeypatch.setattr(jobs, "_act", dying)
    with pytest.raises(Killed):
        run_bulk(job.id)
    db.session.rollback()
    db.session.refresh(job)
    assert job.state == BulkState.RUNNING
    assert (job.acted, job.done) == (BATCH * cut_after, BATCH * cut_after)
    assert len(records("task.status_changed")) == BATCH * cut_after

    monkeypatch.setattr(jobs, "_act", real)
    run_bulk(job.id)
    db.session.refresh(job)
    assert job.state == BulkState.DONE
    assert (job.confirmed, job.acted, job.skipped, job.failed) == (30, 30, 0, 0)
    per_task = Counter(record.entity_id for record in records("task.status_changed"))
    assert len(per_task) == 30 and set(per_task.values()) == {1}
    assert events("task.status_changed") == 30 and events("bulk.finished") == 1
    assert Counter(states(renewals).values()) == {"COMPLETED": 30, "NOTWORKED": 10}


@pytest.mark.parametrize("settings", ["queued"], indirect=True)
def test_the_sweep_queues_again_a_job_no_live_worker_holds(renewals, monkeypatch):
    job = _queued_job(renewals)
    assert sweep_bulk()["requeued"] == 0  # just queued: most likely waiting its turn
    huey.flush()  # the queued job was lost with its worker
    job.created_at -= timedelta(seconds=QUEUED_PATIENCE * 60 + 1)
    db.session.commit()
    monkeypatch.setattr(leases, "is_held", lambda name, now=None: name == f"bulk.{job.id}")
    assert sweep_bulk()["requeued"] == 0  # a live worker holds it
    monkeypatch.undo()
    assert sweep_bulk()["requeued"] == 1
    assert run_queued_jobs() == 1
    db.session.refresh(job)
    assert job.state == BulkState.DONE and job.acted == 30


def test_a_finished_job_is_not_run_again(renewals):
    job = _queued_job(renewals, count=8)
    finished = job.finished_at
    assert run_bulk(job.id).finished_at == finished
    assert len(records("task.status_changed")) == 6
    assert run_bulk(10**6) is None
