"""The Reports API's taskContactability: the contact rules' explanation of one task (the
engine's), published in /openapi.json; unknown tasks and campaigns NOT_FOUND, bad input
INVALID_ARGUMENTS naming the field, the Reports API's 401 rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.api import reports
from app.extensions import db
from app.services.contact_limits.counts import CALL, mark
from app.services.dnc import numbers as dnc
from app.wire.times import to_epoch_ms
from tests.api.test_openapi import schema_errors
from tests.calls.calls_support import MOBILE, PHONE, add_phones
from tests.conftest import PLATFORM, SETUP, sc_headers
from tests.contact_limits.limits_support import add_limit

PATH = "/reports-api/v1/taskContactability"
IDENTITY = {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"}
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
H = timedelta(hours=1)


@pytest.fixture
def ask(client, tenant, document, monkeypatch):
    """POST taskContactability as Acme/prod at NOW; the answer, checked against its schema."""
    _tenant, key = tenant
    headers = sc_headers("Acme", "prod", "us-east-1", key)
    monkeypatch.setattr(reports, "utcnow", lambda: NOW)

    def call(**fields) -> dict:
        response = client.post(PATH, json={"tenant": IDENTITY, **fields}, headers=headers)
        assert response.status_code == 200, response.data
        answer = response.get_json()
        assert schema_errors(document, "ContactabilityResponse", answer) == [], answer
        return answer

    return call


def test_a_callable_task_says_so(ask, renewals):
    task = add_phones(renewals, "c1", Phone=PHONE)
    answer = ask(campaignName="Renewals", previewRecordID=task.record_id)
    assert answer == {
        "result": "SUCCESS",
        "message": "Can be called now",
        "callableNow": True,
        "nextCallableAt": None,
        "reasons": [],
        "numbers": [{"key": "Phone", "phoneNumber": PHONE, "callable": True, "reasons": []}],
    }


def test_each_number_held_says_its_rule_and_until_when(ask, renewals, acme):
    task = add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    dnc.add_numbers(acme, [PHONE], actor=SETUP)
    add_limit(acme, 1, "24h", "number")
    mark(db.session, acme.id, [f"number:{MOBILE}"], CALL, renewals.id, NOW - H)
    db.session.commit()
    answer = ask(campaignName="Renewals", previewRecordId=task.record_id)
    assert (answer["result"], answer["callableNow"]) == ("SUCCESS", False)
    assert answer["reasons"] == []
    until = to_epoch_ms(NOW + 23 * H)
    assert answer["nextCallableAt"] == until  # the limited number's; the listed one never
    phone, mobile = answer["numbers"]
    assert (phone["callable"], [r["rule"] for r in phone["reasons"]]) == (False, ["DO_NOT_CALL"])
    assert phone["reasons"][0]["until"] is None
    assert (mobile["callable"], mobile["reasons"][0]["rule"]) == (False, "CONTACT_LIMIT")
    assert mobile["reasons"][0]["until"] == until
    assert "DO_NOT_CALL" in answer["message"] and "CONTACT_LIMIT" in answer["message"]


def test_a_task_rule_holds_back_the_whole_task(ask, renewals):
    task = add_phones(renewals, "c1")
    task.worked_state, task.next_earliest_work_at = "WORKED", NOW + H
    db.session.commit()
    answer = ask(campaignName="Renewals", previewRecordID=task.record_id)
    [reason] = answer["reasons"]
    assert reason["rule"] == "NEXT_EARLIEST_TIME" and reason["until"] == to_epoch_ms(NOW + H)
    assert answer["nextCallableAt"] == to_epoch_ms(NOW + H)
    assert answer["numbers"][0]["callable"] is True


@pytest.mark.parametrize(
    ("fields", "result", "words"),
    [
        ({"campaignName": "Nope", "previewRecordID": "x"}, "NOT_FOUND", "campaign 'Nope'"),
        ({"campaignName": "Renewals", "previewRecordID": "x"}, "NOT_FOUND", "previewRecordID 'x'"),
        ({"previewRecordID": "x"}, "INVALID_ARGUMENTS", "campaignName"),
        ({"campaignName": "Renewals"}, "INVALID_ARGUMENTS", "previewRecordID"),
        ({"campaignName": "", "previewRecordID": "x"}, "INVALID_ARGUMENTS", "campaignName"),
        ({"campaignName": 5, "previewRecordID": "x"}, "INVALID_ARGUMENTS", "campaignName"),
    ],
    ids=["unknown campaign", "unknown task", "no campaign", "no task", "blank", "not a string"],
)
def test_refusals_name_what_is_wrong(ask, renewals, fields, result, words):
    answer = ask(**fields)
    assert answer["result"] == result and words in answer["message"]
    assert answer["callableNow"] is None and answer["numbers"] is None


def test_without_the_headers_it_is_401(client, tenant):
    response = client.post(PATH, json={"tenant": IDENTITY, "campaignName": "Renewals"})
    assert response.status_code == 401
    assert response.mimetype == "application/json"


def test_it_is_published(document):
    operation = document["paths"][PATH]["post"]
    assert "Reports API" in operation["tags"]
