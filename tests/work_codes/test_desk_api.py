"""Work codes through the Desk API: nextTask offers the groups, closeTask applies the rules
(every answer checked against the published schema of its action)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import DncNumber
from app.models.types import utcnow
from tests.delivery.delivery_support import add, make_agent
from tests.work_codes.cases import LATER, closing_cases, ms
from tests.work_codes.test_closing import PHONE, check_closed, check_refused


@pytest.fixture
def desk(desk_api):
    """The Desk API, called as tenant Acme/prod, each answer checked against its schema."""
    return desk_api


@pytest.fixture
def ann(acme, groups):
    return make_agent(acme, "ann", ("Sales", "Support"))


def next_task(desk, campaign, client_id: str = "c1") -> dict:
    add(campaign, client_id)
    desk("setAgentState", agent="ann", state="AVAILABLE")
    answer = desk("nextTask", agent="ann")
    assert answer["task"]["clientId"] == client_id
    return answer


def test_next_task_lists_the_groups_and_enabled_codes_the_task_offers(desk, renewals, ann):
    groups = next_task(desk, renewals)["workCodeGroups"]
    assert [(g["name"], g["required"], g["multiple"]) for g in groups] == [
        ("Result", True, False),
        ("Topics", False, True),
    ]
    result = groups[0]["codes"]
    # In sort order; "Old" is disabled.
    assert [code["name"] for code in result] == [
        "Sale", "No answer", "Callback", "Left message", "Wrong number", "Do not call",
    ]  # fmt: skip
    assert result[1] == {
        "name": "No answer",
        "description": "Nobody picked up.",
        "outcome": "RESCHEDULE",
        "rescheduleMinutes": 60,
        "addsToDnc": False,
        "revokesConsent": False,
        "suggestedFor": None,
    }
    assert result[5]["addsToDnc"] is True
    assert result[3]["outcome"] is None


def test_a_queue_without_groups_offers_none(desk, winback, ann):
    assert next_task(desk, winback)["workCodeGroups"] == []


def test_nothing_to_do_answers_no_groups(desk, ann):
    desk("setAgentState", agent="ann", state="AVAILABLE")
    answer = desk("nextTask", agent="ann")
    assert (answer["task"], answer["workCodeGroups"]) == (None, None)


@closing_cases()
def test_closing_rules_through_the_desk_api(case, desk, renewals, ann):
    record_id = next_task(desk, renewals)["task"]["previewRecordID"]
    fields = {"workCodes": [{"key": key, "value": value} for key, value in case.codes]}
    if case.outcome:
        fields["outcome"] = case.outcome
    if case.later:
        fields["nextEarliestWorkTimeUTC"] = ms(LATER)
    earliest = utcnow()
    answer = desk("closeTask", agent="ann", previewRecordID=record_id, **fields)
    latest = utcnow()
    if case.state is None:
        assert answer["result"] == "INVALID_ARGUMENTS", answer
        assert (answer["task"], answer["outcome"], answer["closeReason"]) == (None, None, None)
        check_refused(case, answer["message"], "c1", ann)
        return
    assert answer["result"] == "SUCCESS", answer
    task = check_closed(case, "c1", earliest, latest)
    applied = {"COMPLETED": "COMPLETE", "WORKED": "RESCHEDULE", "REMOVED": "REMOVE"}[case.state]
    assert (answer["outcome"], answer["closeReason"]) == (applied, None)
    assert answer["message"] == f"task '{record_id}' closed: {applied}"
    assert answer["task"]["workedState"] == task.worked_state
    assert answer["task"].get("workCodes", []) == fields["workCodes"]


def test_close_task_without_outcome_or_codes_is_refused(desk, winback, ann):
    record_id = next_task(desk, winback)["task"]["previewRecordID"]
    answer = desk("closeTask", agent="ann", previewRecordID=record_id)
    assert answer["result"] == "INVALID_ARGUMENTS"
    assert "outcome is required" in answer["message"]


def test_the_answer_says_the_attempt_limit_completed_the_task(desk, renewals, ann):
    renewals.max_attempts = 1
    db.session.commit()
    record_id = next_task(desk, renewals)["task"]["previewRecordID"]
    codes = [{"key": "Result", "value": "No answer"}]
    answer = desk("closeTask", agent="ann", previewRecordID=record_id, workCodes=codes)
    assert answer["result"] == "SUCCESS", answer
    reason = "attempt limit reached (1 attempt)"
    assert (answer["outcome"], answer["closeReason"]) == ("COMPLETE", reason)
    assert answer["message"] == f"task '{record_id}' closed: COMPLETE ({reason})"
    assert answer["task"]["workedState"] == "COMPLETED"


def test_a_dnc_code_through_the_api_lists_the_number(desk, renewals, ann, acme):
    record_id = next_task(desk, renewals)["task"]["previewRecordID"]
    answer = desk(
        "closeTask",
        agent="ann",
        previewRecordID=record_id,
        workCodes=[{"key": "Result", "value": "Do not call"}],
    )
    assert (answer["result"], answer["outcome"]) == ("SUCCESS", "REMOVE")
    numbers = db.session.scalars(select(DncNumber.number).filter_by(tenant_id=acme.id)).all()
    assert numbers == [PHONE]


def test_release_answers_no_outcome(desk, renewals, ann):
    record_id = next_task(desk, renewals)["task"]["previewRecordID"]
    answer = desk("releaseTask", agent="ann", previewRecordID=record_id)
    assert (answer["result"], answer["outcome"], answer["closeReason"]) == ("SUCCESS", None, None)


def test_the_published_close_task_request_makes_outcome_optional(client):
    document = client.get("/openapi.json").get_json()
    close = document["components"]["schemas"]["CloseTaskRequest"]
    assert "outcome" not in close.get("required", [])
    assert close["properties"]["outcome"]["enum"] == ["COMPLETE", "RESCHEDULE", "REMOVE"]
