"""Fixtures for intake files and exports: a tenant, files under tmp_path, and readers of
what a load left behind (tasks as plain values, report rows)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Campaign, IntakeLoad, Task
from app.services.campaigns.catalogue import create_campaign
from app.services.intake.load import Counts, load_file
from app.services.intake.runs import copy_of, start_load
from tests.admin.conftest import RequestClient, make_supervisor, session_for
from tests.conftest import SETUP


@pytest.fixture
def app(app, tmp_path):
    """The app, keeping loads' files and reports under this test's tmp_path."""
    app.instance_path = str(tmp_path / "instance")
    return app


@pytest.fixture
def signed_in(app, acme):
    """A supervisor's browser, whose requests end their transactions as served ones do."""
    app.test_client_class = RequestClient
    return session_for(app.test_client(), make_supervisor())


@pytest.fixture
def accounts(acme) -> Campaign:
    """A campaign whose clientId field name is `AccountNo`."""
    campaign = create_campaign(
        acme, "Accounts", "Support", "UTC", client_id_field_name="AccountNo", actor=SETUP
    )
    db.session.commit()
    return campaign


@pytest.fixture
def write(tmp_path):
    """write(text, name="tasks.csv", encoding="utf-8") -> the path of a new file."""
    folder = tmp_path / "files"
    folder.mkdir()

    def write_file(content: str | bytes, name: str = "tasks.csv", encoding="utf-8") -> Path:
        path = folder / name
        data = content if isinstance(content, bytes) else content.encode(encoding)
        path.write_bytes(data)
        return path

    return write_file


@pytest.fixture
def load(tmp_path):
    """load(campaign, path, **options) -> (Counts, report rows as dicts)."""
    reports = tmp_path / "reports"

    def run(campaign: Campaign, path: Path, **options) -> tuple[Counts, list[dict]]:
        report = reports / f"{path.stem}-report.csv"
        counts = load_file(campaign, path, report, **{"actor": SETUP, **options})
        return counts, read_report(report)

    return run


def start(campaign: Campaign, path: Path, source: str = "cli", **options) -> IntakeLoad:
    """Record a load of the file (a copy of it kept with the load), not yet run; started by
    an operator unless `actor` says who."""
    return start_load(campaign, str(path), source, copy_of(path), **{"actor": SETUP, **options})


def read_report(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["line", "clientId", "outcome", "reason"]
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def csv_text(rows: list[list[str]], delimiter: str = ",") -> str:
    lines = []
    for row in rows:
        cells = []
        for cell in row:
            if any(c in cell for c in f'"{delimiter}\r\n'):
                cell = '"' + cell.replace('"', '""') + '"'
            cells.append(cell)
        lines.append(delimiter.join(cells))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Stored:
    """A task as plain values: what a load or an export should preserve."""

    client_id: str
    items: tuple[tuple[str, str, int | None], ...]  # key, value, display_order; by position
    preferred_agent: str | None
    next_work: datetime | None
    queue: str
    time_zone: str
    worked_state: str
    record_id: str

    @property
    def data(self) -> dict[str, str]:
        return {key: value for key, value, _ in self.items}

    @property
    def keys(self) -> list[str]:
        return [key for key, _, _ in self.items]


def tasks_of(campaign: Campaign) -> dict[str, Stored]:
    """The campaign's tasks by clientId, read afresh from the database."""
    db.session.expire_all()
    tasks = db.session.scalars(select(Task).where(Task.campaign_id == campaign.id))
    return {
        task.client_id: Stored(
            task.client_id,
            tuple((i.key, i.value, i.display_order) for i in task.items),
            task.preferred_agent,
            task.next_earliest_work_at,
            task.skill_queue.name,
            task.time_zone,
            task.worked_state,
            task.record_id,
        )
        for task in tasks
    }
