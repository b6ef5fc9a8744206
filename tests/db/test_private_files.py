"""Files that hold tenant data are readable by the service's own account only (mode 0600),
like the secrets: the SQLite database and its -wal/-shm, intake files and their reports."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from sqlalchemy import text

from app import create_app
from app.config import test_settings as settings_for
from app.extensions import db
from app.services.intake.folder_drop import FolderDrop
from app.services.intake.runs import copy_of, report_file, run_load, start_load, stored_file
from app.services.intake.watch import watch_once
from tests.conftest import SETUP

TASKS = "Id,Name\nA,Ann\nB,Bob\n"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def _usual_umask():
    """The common umask, under which a file made without care is readable by everyone."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def test_a_new_sqlite_database_and_its_wal_and_shm_are_0600(tmp_path):
    database = tmp_path / "service.db"
    app = create_app(settings_for(f"sqlite:///{database}"))
    with app.app_context():
        db.session.execute(text("CREATE TABLE notes (body TEXT)"))
        db.session.execute(text("INSERT INTO notes VALUES ('kept')"))
        db.session.commit()
        files = [database, Path(f"{database}-wal"), Path(f"{database}-shm")]
        assert {file.name: mode(file) for file in files} == {file.name: 0o600 for file in files}
        for engine in db.engines.values():
            engine.dispose()


@pytest.fixture
def instance(app, tmp_path) -> Path:
    app.instance_path = str(tmp_path / "instance")
    return tmp_path / "instance"


def test_an_intake_file_and_its_report_are_0600_in_a_private_folder(instance, renewals, tmp_path):
    source = tmp_path / "tasks.csv"
    source.write_text(TASKS)
    load = run_load(start_load(renewals, "tasks.csv", "upload", copy_of(source), actor=SETUP).id)
    assert load.status == "done"
    assert mode(instance / "intake") == 0o700
    assert mode(stored_file(load)) == 0o600
    assert mode(report_file(load)) == 0o600


def test_a_refused_intake_file_still_gets_its_report(instance, renewals, tmp_path):
    source = tmp_path / "tasks.csv"
    source.write_text("Name\nAnn\n")
    load = run_load(start_load(renewals, "tasks.csv", "upload", copy_of(source), actor=SETUP).id)
    assert load.status == "refused"
    assert "refused" in report_file(load).read_text()
    assert mode(report_file(load)) == 0o600


def test_a_watched_file_s_report_set_aside_is_0600(instance, renewals, tmp_path):
    folder = tmp_path / "drop" / "Acme" / "prod" / "Renewals"
    folder.mkdir(parents=True)
    (folder / "tasks.csv").write_text(TASKS)
    [outcome] = watch_once(FolderDrop(tmp_path / "drop"))
    assert outcome.status == "done"
    [report] = (folder / "done").glob("*.report.csv")
    assert mode(report) == 0o600
