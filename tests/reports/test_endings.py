"""Every attempt is in exactly one ending row of the campaign summary, however it ended
(closed with each outcome, released, lapsed, taken back by a supervisor, changed elsewhere,
a task deleted while held, or still in progress): in the service's summary (its whole
15-minute slots from the rollups and its edges from the attempts), the report page's CSV
and the Reports API's campaignSummary, the rows sum to the attempts; and the task counts
as attempted even once deleted."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest

from app.extensions import db
from app.services import reports
from app.services.delivery import closing
from app.services.reports.summary import ENDINGS
from app.wire.times import to_epoch_ms
from tests.admin import conftest as ui
from tests.calls import test_ledger
from tests.conftest import PLATFORM, SETUP, sc_headers
from tests.delivery.delivery_support import settings  # noqa: F401 - short desk timings

# The fixtures of the ledger's tests (task c1 held by ann) and of the supervisors' pages.
held, boss, signed_in = test_ledger.held, ui.boss, ui.signed_in
LEDGER_ENDINGS = test_ledger.ENDINGS

# The ending row each way of ending an attempt lands in.
ROW_OF = {
    "closed by the agent": "completed",
    "released by the agent": "released",
    "lapsed on the clock": "lapsed",
    "taken back by a supervisor": "taken_back",
    "agent deleted": "taken_back",
    "status changed": "changed_elsewhere",
    "transferred": "changed_elsewhere",
    "deleted": "changed_elsewhere",
    "bulk status change": "changed_elsewhere",
}
WIRE = {"taken_back": "takenBack", "changed_elsewhere": "changedElsewhere"}
LABELS = {
    "completed": "Completed",
    "removed": "Removed",
    "rescheduled": "Rescheduled",
    "released": "Released",
    "lapsed": "Lapsed",
    "taken_back": "Taken back by a supervisor",
    "changed_elsewhere": "Changed elsewhere (status, move, deletion)",
    "in_progress": "In progress",
}


def _outcome(outcome: str):
    def act(agent, task, now):
        codes = [("Outcome", "Sale")]
        later = now + timedelta(hours=1) if outcome == "RESCHEDULE" else None
        closing.close_task(
            agent, task.record_id, outcome, next_earliest=later, work_codes=codes, actor=SETUP,
            now=now,
        )  # fmt: skip

    return act


WAYS = {
    **{name: (act, ROW_OF[name]) for name, (act, _how) in LEDGER_ENDINGS.items()},
    "closed removed": (_outcome("REMOVE"), "removed"),
    "closed rescheduled": (_outcome("RESCHEDULE"), "rescheduled"),
    "still in progress": (lambda *_: None, "in_progress"),
}


def test_every_way_an_attempt_ends_has_a_row():
    assert set(ROW_OF.values()) | {"removed", "rescheduled", "in_progress"} == set(ENDINGS)
    assert set(ROW_OF) == set(LEDGER_ENDINGS)


def _day(moment: datetime) -> datetime:
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


@pytest.mark.parametrize(("act", "row"), WAYS.values(), ids=WAYS.keys())
def test_the_ending_rows_sum_to_the_attempts(held, ann, acme, tenant, signed_in, act, row):
    task, delivered = held
    act(ann, task, delivered + timedelta(seconds=30))
    db.session.commit()
    expected = {name: int(name == row) for name in ENDINGS}
    day = _day(delivered)
    whole = reports.report_scope(acme, day, day + timedelta(days=1), zone="UTC")  # rollups
    edge = reports.report_scope(  # inside one slot: the attempts themselves
        acme, delivered - timedelta(seconds=1), delivered + timedelta(seconds=1), zone="UTC"
    )
    for scope in (whole, edge):
        summary = reports.campaign_summary(scope)
        assert summary.endings == expected
        assert sum(summary.endings.values()) == summary.attempts == 1
        assert summary.attempted_tasks == 1  # a task deleted since among them

    _tenant, key = tenant
    body = {
        "tenant": {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"},
        "from": to_epoch_ms(day),
        "to": to_epoch_ms(day + timedelta(days=1)),
    }
    answer = signed_in.post(
        "/reports-api/v1/campaignSummary",
        json=body,
        headers=sc_headers("Acme", "prod", "us-east-1", key),
    ).get_json()["summary"]
    assert {name: answer[WIRE.get(name, name.replace("in_progress", "inProgress"))]
            for name in ENDINGS} == expected  # fmt: skip
    assert answer["attemptedTasks"] == answer["attempts"] == 1

    query = {"from": day.date().isoformat(), "to": day.date().isoformat(), "zone": "UTC"}
    response = signed_in.get(f"/tenants/{acme.id}/reports/summary.csv", query_string=query)
    rows = dict(csv.reader(io.StringIO(response.get_data(as_text=True), newline="")))
    assert {name: int(rows[label]) for name, label in LABELS.items()} == expected
    assert (rows["Attempts"], rows["Tasks attempted"]) == ("1", "1")
