"""The Reports API: headers and tenant, the three reports' shapes and figures (the service's,
as the reports pages show them), and refusals naming the field."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.services import reports
from app.wire.times import to_epoch_ms
from tests.api.test_openapi import schema_errors
from tests.conftest import PLATFORM, sc_headers
from tests.delivery.delivery_support import make_agent
from tests.reports.generated import DAYS, START, generate

REPORTS = "/reports-api/v1/"
RESPONSES = {
    "campaignSummary": "CampaignSummaryResponse",
    "attemptsByInterval": "IntervalsResponse",
    "agentSummary": "AgentsResponse",
}
FROM, TO = to_epoch_ms(START), to_epoch_ms(START + timedelta(days=DAYS))
IDENTITY = {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"}


@pytest.fixture
def report(client, tenant, document):
    """POST a report as tenant Acme/prod; the JSON answer, checked against the published
    schema of the report's answer."""
    _tenant, key = tenant
    headers = sc_headers("Acme", "prod", "us-east-1", key)

    def call(name: str, **fields) -> dict:
        body = {"tenant": IDENTITY, "from": FROM, "to": TO, **fields}
        response = client.post(REPORTS + name, json=body, headers=headers)
        assert response.status_code == 200, response.data
        assert response.headers["Cache-Control"] == "no-store"
        answer = response.get_json()
        assert schema_errors(document, RESPONSES[name], answer) == [], answer
        return answer

    return call


@pytest.fixture
def data(acme):
    for login in ("ann", "bob", "cy"):
        make_agent(acme, login)
    return generate(acme)


def _scope(acme, **filters):
    return reports.report_scope(acme, START, START + timedelta(days=DAYS), **filters)


@pytest.mark.parametrize(
    "filters",
    [{}, {"campaignName": "Renewals"}, {"skillQueue": "Sales", "agent": "bob"}],
)
def test_the_campaign_summary_answers_the_services_figures(report, acme, data, filters):
    answer = report("campaignSummary", **filters)
    assert answer["result"] == "SUCCESS", answer
    assert answer["message"]
    expected = reports.campaign_summary(
        _scope(
            acme,
            campaign_name=filters.get("campaignName"),
            queue_name=filters.get("skillQueue"),
            agent=filters.get("agent"),
        )
    )
    summary = answer["summary"]
    assert summary["attempts"] == expected.attempts > 0
    assert summary["attemptedTasks"] == expected.attempted_tasks
    for name in ("tasks", "contacts", "successes", "completed", "removed", "rescheduled",
                 "released", "lapsed"):  # fmt: skip
        assert summary[name] == getattr(expected, name), name
    wire = {"taken_back": "takenBack", "changed_elsewhere": "changedElsewhere"}
    for name in ("taken_back", "changed_elsewhere", "in_progress"):
        assert summary[wire.get(name, "inProgress")] == getattr(expected, name), name
    endings = ("completed", "removed", "rescheduled", "released", "lapsed", "takenBack",
               "changedElsewhere", "inProgress")  # fmt: skip
    assert sum(summary[name] for name in endings) == summary["attempts"]
    assert summary["outcomes"] == [{"outcome": o, "count": n} for o, n in expected.outcomes]
    assert summary["workCodes"] == [
        {"key": k, "value": v, "count": n} for k, v, n in expected.work_codes
    ]


def test_intervals_are_epoch_ms_with_empty_ones_as_zeros(report, acme, data):
    answer = report("attemptsByInterval", intervalMinutes=30, timeZone="Europe/Paris")
    assert answer["result"] == "SUCCESS", answer
    expected = reports.attempts_by_interval(_scope(acme, zone="Europe/Paris"), 30)
    assert answer["intervals"] == [
        {
            "start": to_epoch_ms(i.start),
            "attempts": i.attempts,
            "contacts": i.contacts,
            "successes": i.successes,
        }
        for i in expected
    ]
    assert len(answer["intervals"]) == DAYS * 48  # 96 real hours, whatever the wall clock
    assert any(i["attempts"] == 0 for i in answer["intervals"])


def test_intervals_default_to_an_hour(report, acme):
    answer = report("attemptsByInterval", to=FROM + 3 * 3_600_000)
    assert [i["start"] for i in answer["intervals"]] == [FROM + n * 3_600_000 for n in range(3)]
    assert {i["attempts"] for i in answer["intervals"]} == {0}


def test_agents_answer_the_published_shape(report, acme, data):
    answer = report("agentSummary")
    assert answer["result"] == "SUCCESS", answer
    rows = reports.agent_summary(_scope(acme))
    assert [a["agent"] for a in answer["agents"]] == [row.agent for row in rows]
    for got, row in zip(answer["agents"], rows, strict=True):
        assert got == {
            "agent": row.agent,
            "attempts": row.attempts,
            "contacts": row.contacts,
            "successes": row.successes,
            "closed": row.closed,
            "avgTalkSeconds": row.avg_talk_seconds,
            "avgWrapUpSeconds": row.avg_wrap_up_seconds,
            "availableSeconds": row.available_seconds,
            "awaySeconds": row.away_seconds,
            "awayByReason": [{"reason": r, "seconds": n} for r, n in row.away_by_reason],
        }


REFUSED = [
    ({"to": FROM}, "to"),
    ({"to": FROM - 1}, "to"),
    ({"to": FROM + 366 * 86_400_000 + 1}, "to"),
    ({"from": -1}, "from"),
    ({"from": "yesterday"}, "from"),
    ({"campaignName": "Nope"}, "campaignName"),
    ({"skillQueue": "Nope"}, "skillQueue"),
    ({"agent": "nobody"}, "agent"),
    ({"timeZone": "Mars/Olympus"}, "timeZone"),
    ({"intervalMinutes": 20}, "intervalMinutes"),
    ({"intervalMinutes": "15"}, "intervalMinutes"),
]


@pytest.mark.parametrize("name", RESPONSES)
@pytest.mark.parametrize(("fields", "field"), REFUSED)
def test_bad_arguments_are_refused_naming_the_field(report, name, fields, field):
    if field == "intervalMinutes" and name != "attemptsByInterval":
        return
    answer = report(name, **fields)
    assert answer["result"] == "INVALID_ARGUMENTS", answer
    assert field in answer["message"]
    empty = {"campaignSummary": "summary", "attemptsByInterval": "intervals"}.get(name, "agents")
    assert answer[empty] is None


@pytest.mark.parametrize(
    ("tenant_body", "result"),
    [
        (None, "INVALID_TENANT"),
        ({"platform": PLATFORM, "companyCode": "Acme"}, "INVALID_TENANT"),
        ({**IDENTITY, "environment": "test"}, "UNAUTHORIZED"),
    ],
)
def test_the_body_must_name_the_callers_tenant(report, tenant_body, result):
    answer = report("campaignSummary", tenant=tenant_body)
    assert answer["result"] == result
    assert answer["summary"] is None


def test_the_reports_api_needs_the_five_headers(client, tenant):
    response = client.post(REPORTS + "campaignSummary", json={"from": FROM, "to": TO})
    assert response.status_code == 401
    assert response.mimetype == "application/json"
    wrong = {**sc_headers("Acme", "prod", "us-east-1", "not-the-key")}
    response = client.post(REPORTS + "campaignSummary", json={}, headers=wrong)
    assert response.status_code == 401


def test_an_unknown_report_is_a_json_404(client, tenant):
    _tenant, key = tenant
    response = client.post(
        REPORTS + "bestMonths", json={}, headers=sc_headers("Acme", "prod", "us-east-1", key)
    )
    assert response.status_code == 404
    assert response.mimetype == "application/json"
