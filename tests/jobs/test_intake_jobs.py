"""Intake loads as worker jobs: the view only queues them; a load cut off mid-way goes on
from its last batch to the same end as an uninterrupted one; the sweep takes up loads
no live worker holds."""

from __future__ import annotations

import io
import os
import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.jobs import huey, leases
from app.jobs.intake import sweep_intake
from app.jobs.leases import QUEUED_PATIENCE
from app.models import Event, IntakeLoad, LoadStatus
from app.services.intake import load as load_module
from app.services.intake import writer
from app.services.intake.runs import copy_of, report_file, run_load, start_load
from tests.admin.conftest import RequestClient, make_supervisor, session_for, submit
from tests.conftest import SETUP
from tests.intake.conftest import read_report, tasks_of
from tests.jobs.conftest import intake_file, run_queued_jobs


class Killed(BaseException):
    """The worker process dying: nothing of the load's own error handling runs."""


@pytest.mark.parametrize("settings", ["queued"], indirect=True)
def test_an_upload_is_queued_for_the_worker_and_the_view_starts_no_thread(app, renewals):
    app.test_client_class = RequestClient
    signed_in = session_for(app.test_client(), make_supervisor())
    started: list[threading.Thread] = []
    start = threading.Thread.start
    caller = threading.current_thread()

    def recorded(thread: threading.Thread) -> None:
        if threading.current_thread() is caller:
            started.append(thread)
        start(thread)

    # Counting live threads is fooled by other tests' threads ending meanwhile:
    # record the threads the request itself starts instead.
    threading.Thread.start = recorded  # type: ignore[method-assign]
    try:
        url = f"/tenants/{renewals.tenant_id}/campaigns/{renewals.id}"
        file = (io.BytesIO(b"Id\nA\nB\n"), "t.csv")
        response = submit(signed_in, url, "/intake", {"file": file})
    finally:
        threading.Thread.start = start  # type: ignore[method-assign]
    assert response.status_code == 302
    assert started == []
    [load] = db.session.scalars(select(IntakeLoad))
    assert load.status == LoadStatus.QUEUED
    assert huey.pending_count() == 1
    assert tasks_of(renewals) == {}

    assert run_queued_jobs() == 1  # what the worker does
    db.session.refresh(load)
    assert (load.status, load.added) == (LoadStatus.DONE, 2)
    assert set(tasks_of(renewals)) == {"A", "B"}


@pytest.fixture
def settings(settings, request, tmp_path):
    if getattr(request, "param", None) == "queued":
        return {**settings, "WORKER_IMMEDIATE": False, "WORKER_DB": str(tmp_path / "w.db")}
    return settings


def _state(campaign, load: IntakeLoad):
    db.session.refresh(load)
    counts = (load.status, load.rows_total, load.rows_done, load.added, load.updated)
    counts += (load.rejected, load.superseded)
    tasks = {cid: task.data for cid, task in tasks_of(campaign).items()}
    events = db.session.scalar(
        select(func.count())
        .select_from(Event)
        .where(Event.type.in_(("task.added", "task.updated")))
    )
    return counts, read_report(report_file(load)), tasks, events


@pytest.mark.parametrize("cut_after", [0, 1, 3, 5], ids=["first", "second", "middle", "last"])
def test_a_load_cut_off_between_batches_ends_as_an_uninterrupted_one(
    renewals, winback, tmp_path, monkeypatch, cut_after
):
    monkeypatch.setattr(load_module, "BATCH", 10)
    path = intake_file(tmp_path / "f.csv", 50, bad_every=7, repeat_every=5)  # 60 rows
    whole = run_load(start_load(winback, "f.csv", "upload", copy_of(path), actor=SETUP).id)
    expected = _state(winback, whole)
    db.session.execute(Event.__table__.delete())
    db.session.commit()

    real, calls = writer.write_batch, []

    def dying(*args, **kwargs):
        calls.append(1)
        if len(calls) > cut_after:  # the batch after `cut_after` is cut off mid-way
            real(*args, **kwargs)
            raise Killed
        return real(*args, **kwargs)

    monkeypatch.setattr(load_module, "write_batch", dying)
    load = start_load(renewals, "f.csv", "upload", copy_of(path), actor=SETUP)
    with pytest.raises(Killed):
        run_load(load.id)
    db.session.rollback()
    db.session.refresh(load)
    assert load.status == (LoadStatus.LOADING if cut_after else LoadStatus.CHECKING)
    assert load.rows_done == 10 * cut_after  # the batches committed, with their counts

    monkeypatch.setattr(load_module, "write_batch", real)
    run_load(load.id)
    counts, report, tasks, events = _state(renewals, load)
    assert counts == expected[0]
    assert counts[0] == LoadStatus.DONE
    assert report == expected[1]
    assert tasks == expected[2]
    assert events == expected[3]  # no batch written twice


def test_a_load_cut_off_before_its_first_batch_starts_again(renewals, tmp_path, monkeypatch):
    path = intake_file(tmp_path / "f.csv", 5)
    load = start_load(renewals, "f.csv", "upload", copy_of(path), actor=SETUP)
    monkeypatch.setattr(load_module, "check_file", lambda *a: (_ for _ in ()).throw(Killed))
    with pytest.raises(Killed):
        run_load(load.id)
    db.session.rollback()
    monkeypatch.undo()
    assert run_load(load.id).status == LoadStatus.DONE
    assert (load.added, load.rows_done) == (5, 5)


def test_a_finished_load_is_not_run_again(renewals, tmp_path):
    load = run_load(
        start_load(
            renewals, "f.csv", "upload", copy_of(intake_file(tmp_path / "f", 3)), actor=SETUP
        ).id
    )
    finished = load.finished_at
    assert run_load(load.id).finished_at == finished
    assert run_load("no-such-load") is None


def _left_by(renewals, path, status, age=timedelta(0), source="upload") -> IntakeLoad:
    load = start_load(renewals, "f.csv", source, copy_of(path), actor=SETUP)
    load.status = status
    load.created_at -= age
    db.session.commit()
    return load


def test_the_sweep_takes_up_loads_no_live_worker_holds(app, renewals, tmp_path):
    path = intake_file(tmp_path / "f.csv", 3)
    patience = timedelta(seconds=QUEUED_PATIENCE * app.config["WORKER_LEASE_SECONDS"] + 1)
    dead = _left_by(renewals, path, LoadStatus.LOADING)
    huey.put("lease.intake." + dead.id, {"host": leases.HOST, "pid": 2**22 + 7, "token": "x",
                                          "until": time.time() + 60})  # fmt: skip
    expired = _left_by(renewals, path, LoadStatus.CHECKING)
    huey.put("lease.intake." + expired.id, {"host": "elsewhere", "pid": 1, "token": "y",
                                             "until": time.time() - 1})  # fmt: skip
    live = _left_by(renewals, path, LoadStatus.LOADING)
    huey.put("lease.intake." + live.id, {"host": leases.HOST, "pid": os.getpid(), "token": "z",
                                          "until": time.time() + 60})  # fmt: skip
    waiting = _left_by(renewals, path, LoadStatus.QUEUED)
    lost = _left_by(renewals, path, LoadStatus.QUEUED, age=patience)
    foreground = _left_by(renewals, path, LoadStatus.LOADING, source="cli")

    assert sweep_intake() == {"requeued": 3, "moved_aside": 0}
    statuses = {load.id: load.status for load in db.session.scalars(select(IntakeLoad))}
    assert statuses == {
        dead.id: LoadStatus.DONE,
        expired.id: LoadStatus.DONE,
        lost.id: LoadStatus.DONE,
        live.id: LoadStatus.LOADING,  # its worker is alive: left alone
        waiting.id: LoadStatus.QUEUED,  # still in the queue
        foreground.id: LoadStatus.LOADING,  # the CLI's own
    }
