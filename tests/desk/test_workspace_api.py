"""The Desk API's workspace fields: setAgentState's `reason`, closeTask's `note` and the
`note` of taskAttempts, each answer checked against the published schema."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.services.delivery import away_reasons
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    add,
    make_agent,
    settings,
)


@pytest.fixture
def desk(desk_api):
    """The Desk API, called as tenant Acme/prod, each answer checked against its schema."""
    return desk_api


@pytest.fixture
def ann(acme):
    agent = make_agent(acme, "ann")
    for name in ("Break", "Lunch"):
        away_reasons.add_reason(acme, name, actor=SETUP)
    db.session.commit()
    return agent


def test_away_with_a_known_reason_answers_it_as_the_tenant_spells_it(desk, ann):
    answer = desk("setAgentState", agent="ann", state="AWAY", reason="lunch")
    assert (answer["result"], answer["state"], answer["reason"]) == ("SUCCESS", "AWAY", "Lunch")
    assert answer["message"] == "agent 'ann' is AWAY (Lunch)"
    db.session.expire_all()
    assert (ann.desk_state, ann.desk_state_reason) == ("AWAY", "Lunch")


def test_an_unknown_reason_is_refused_naming_the_field_and_nothing_is_stored(desk, ann):
    desk("setAgentState", agent="ann", state="AVAILABLE")
    answer = desk("setAgentState", agent="ann", state="AWAY", reason="Nap")
    assert (answer["result"], answer["state"], answer["reason"]) == (
        "INVALID_ARGUMENTS",
        None,
        None,
    )
    assert answer["message"].startswith("reason 'Nap' is not an away reason")
    assert "Break, Lunch" in answer["message"]
    db.session.expire_all()
    assert (ann.desk_state, ann.desk_state_reason) == ("AVAILABLE", None)


def test_a_reason_longer_than_a_reason_can_be_is_refused_naming_the_field(desk, ann):
    answer = desk("setAgentState", agent="ann", state="AWAY", reason="x" * 41)
    assert answer["result"] == "INVALID_ARGUMENTS"
    assert answer["message"].startswith("reason")


def test_a_note_is_kept_with_the_attempt_and_answered_by_task_attempts(desk, ann, renewals):
    add(renewals, "c1")
    desk("setAgentState", agent="ann", state="AVAILABLE")
    record_id = desk("nextTask", agent="ann")["task"]["previewRecordID"]
    too_long = desk(
        "closeTask", agent="ann", previewRecordID=record_id, outcome="COMPLETE", note="x" * 2001
    )
    assert too_long["result"] == "INVALID_ARGUMENTS"
    assert too_long["message"] == "note is longer than 2,000 characters (2,001)"
    assert (
        desk("taskAttempts", agent="ann", previewRecordID=record_id)["attempts"][0]["endedHow"]
        is None
    )  # nothing closed
    closed = desk(
        "closeTask",
        agent="ann",
        previewRecordID=record_id,
        outcome="COMPLETE",
        workCodes=[{"key": "Outcome", "value": "Sale"}],
        note="Wants a call on Friday",
    )
    assert closed["result"] == "SUCCESS", closed
    attempts = desk("taskAttempts", agent="ann", previewRecordID=record_id)["attempts"]
    assert [a["note"] for a in attempts] == ["Wants a call on Friday"]
