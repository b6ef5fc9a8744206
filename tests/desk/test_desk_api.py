"""The Desk API: headers, tenant and agent, the four actions, their answers and spellings."""

from __future__ import annotations

import pytest

from app.models.types import utcnow
from app.wire.times import sent_time
from tests.conftest import PLATFORM, sc_headers
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    add,
    make_agent,
    ms,
    settings,
    stored,
)

DESK = "/desk-api/v1/"


@pytest.fixture
def desk(desk_api):
    """The Desk API, called as tenant Acme/prod, each answer checked against its schema."""
    return desk_api


def test_an_agent_becomes_available_receives_a_task_and_completes_it(desk, renewals, ann, api):
    add(renewals, "c1")
    assert desk("nextTask", agent="ann")["result"] == "NOT_AVAILABLE"
    answer = desk("setAgentState", agent="ann", state="AVAILABLE")
    assert (answer["result"], answer["state"]) == ("SUCCESS", "AVAILABLE")
    answer = desk("nextTask", agent="ann")
    assert answer["result"] == "SUCCESS"
    task = answer["task"]
    searched = api.find("c1")
    assert {k: v for k, v in task.items() if k not in ("campaignName", "agentView")} == searched
    assert task["campaignName"] == "Renewals"
    assert task["agentView"]["banner"] == "C1"
    assert task["agentView"]["details"][0]["kind"] in ("phone", "text")
    assert (answer["reason"], answer["nextDueTime"]) == (None, None)
    again = desk("nextTask", agent="ann")
    assert again["task"]["previewRecordID"] == task["previewRecordID"]
    closed = desk(
        "closeTask",
        agent="ann",
        previewRecordID=task["previewRecordID"],
        outcome="COMPLETE",
        workCodes=[{"key": "Outcome", "value": "Sale"}],
    )
    assert closed["result"] == "SUCCESS", closed
    assert closed["task"]["workedState"] == "COMPLETED"
    shown = api.find("c1")
    assert (shown["workAttempts"], shown["lastAttemptAgent"]) == (1, "ann")
    assert shown["workCodes"] == [{"key": "Outcome", "value": "Sale"}]


def test_nothing_to_do_answers_a_reason_and_the_next_due_time(desk, renewals, ann):
    due = ms(utcnow()) + 3_600_000
    add(renewals, "later", next_earliest=sent_time(due, "nextEarliestWorkTimeUTC"))
    desk("setAgentState", agent="ann", state="AVAILABLE")
    answer = desk("nextTask", agent="ann")
    assert answer["result"] == "SUCCESS"
    assert answer["task"] is None
    assert answer["nextDueTime"] == due
    assert answer["reason"].startswith("the next task is due at")


def test_reschedule_and_release_through_the_api(desk, renewals, ann, api):
    add(renewals, "c1")
    desk("setAgentState", agent="ann", state="AVAILABLE")
    record_id = desk("nextTask", agent="ann")["task"]["previewRecordID"]
    refused = desk("closeTask", agent="ann", previewRecordID=record_id, outcome="RESCHEDULE")
    assert refused["result"] == "INVALID_ARGUMENTS"
    assert "nextEarliestWorkTimeUTC" in refused["message"]
    released = desk("releaseTask", agent="ann", previewRecordId=record_id)
    assert released["result"] == "SUCCESS"
    assert api.find("c1")["workAttempts"] == 0
    record_id = desk("nextTask", agent="ann")["task"]["previewRecordID"]
    later = ms(utcnow()) + 86_400_000
    answer = desk(
        "closeTask",
        agent="ann",
        previewRecordID=record_id,
        outcome="RESCHEDULE",
        nextEarliestWorkTimeUTC=later,
    )
    assert answer["result"] == "SUCCESS"
    assert api.find("c1")["workedState"] == "WORKED"


@pytest.mark.parametrize("action", ["closeTask", "releaseTask"])
def test_a_task_the_agent_does_not_hold_is_not_found(desk, renewals, ann, action):
    task = add(renewals, "c1")
    desk("setAgentState", agent="ann", state="AVAILABLE")
    fields = {"outcome": "COMPLETE"} if action == "closeTask" else {}
    answer = desk(action, agent="ann", previewRecordID=task.record_id, **fields)
    assert (answer["result"], answer["task"]) == ("NOT_FOUND", None)


def test_a_task_deleted_while_held_is_not_found_on_the_next_action(desk, renewals, ann, api):
    add(renewals, "c1")
    desk("setAgentState", agent="ann", state="AVAILABLE")
    record_id = desk("nextTask", agent="ann")["task"]["previewRecordID"]
    assert api.status("deleteRecordFromCampaign", clientId="c1") == "SUCCESS"
    answer = desk("closeTask", agent="ann", previewRecordID=record_id, outcome="COMPLETE")
    assert answer["result"] == "NOT_FOUND"


def test_a_close_after_a_lapse_is_accepted_and_a_taken_task_names_who(desk, renewals, ann, app):
    """The Desk API keeps the desk page's rule: the clock returning the task to its queue
    does not throw the agent's close away; another agent taking it does, and says who."""
    from datetime import timedelta

    from app.extensions import db
    from app.services.delivery import sweeps

    def lapse() -> None:
        timeout = timedelta(seconds=app.config["OFFER_TIMEOUT_SECONDS"] + 1)
        sweeps.expire_reservations(utcnow() + timeout)
        db.session.commit()

    def delivered(agent: str) -> str:
        desk("setAgentState", agent=agent, state="AVAILABLE")
        return desk("nextTask", agent=agent)["task"]["previewRecordID"]

    add(renewals, "c1")
    add(renewals, "c2")
    first = delivered("ann")
    lapse()
    assert stored("c1").reserved_by_id is None
    answer = desk("closeTask", agent="ann", previewRecordID=first, outcome="COMPLETE")
    assert (answer["result"], answer["task"]["workedState"]) == ("SUCCESS", "COMPLETED")

    make_agent(renewals.tenant, "bob")
    second = delivered("ann")
    lapse()
    assert delivered("bob") == second
    refused = desk("closeTask", agent="ann", previewRecordID=second, outcome="COMPLETE")
    assert refused["result"] == "NOT_FOUND"
    assert "taken by agent bob at" in refused["message"]


@pytest.mark.parametrize(
    ("fields", "result"),
    [
        ({"agent": "nobody", "state": "AVAILABLE"}, "INVALID_ARGUMENTS"),
        ({"state": "AVAILABLE"}, "INVALID_ARGUMENTS"),
        ({"agent": "ann", "state": "BUSY"}, "INVALID_ARGUMENTS"),
        ({"agent": "ann", "state": 1}, "INVALID_ARGUMENTS"),
        ({"agent": "ann", "state": "AVAILABLE", "tenant": None}, "INVALID_TENANT"),
        ({"agent": "ann", "state": "AVAILABLE", "tenant": "Acme"}, "INVALID_TENANT"),
        (
            {
                "agent": "ann",
                "state": "AVAILABLE",
                "tenant": {"platform": PLATFORM, "companyCode": "Other", "environment": "prod"},
            },
            "UNAUTHORIZED",
        ),
    ],
)
def test_refusals_name_their_result(desk, ann, fields, result):
    answer = desk("setAgentState", **fields)
    assert answer["result"] == result, answer
    assert answer["message"]
    assert answer["state"] is None


def test_the_desk_api_needs_the_five_headers(client, tenant):
    response = client.post(DESK + "nextTask", json={"agent": "ann"})
    assert response.status_code == 401
    assert response.mimetype == "application/json"


def test_an_unknown_action_is_a_json_404(client, tenant):
    _tenant, key = tenant
    response = client.post(
        DESK + "pickTask", json={}, headers=sc_headers("Acme", "prod", "us-east-1", key)
    )
    assert response.status_code == 404
    assert response.mimetype == "application/json"


def test_a_task_bulk_deleted_while_held_names_who_when_and_the_bulk_job(desk, renewals, ann):
    """A JSON client learns what the desk page says: what became of its task, by whom,
    when, and through which bulk job."""
    import re

    from app.extensions import db
    from app.services.actors import Actor
    from app.services.bulk.actions import BulkRequest
    from app.services.bulk.jobs import start_bulk
    from app.services.search.criteria import Condition, Criterion

    add(renewals, "c1")
    desk("setAgentState", agent="ann", state="AVAILABLE")
    record_id = desk("nextTask", agent="ann")["task"]["previewRecordID"]
    job_id = start_bulk(
        renewals,
        [Criterion("sys_worked_state", Condition.EQUALS, "NOTWORKED")],
        BulkRequest("delete"),
        actor=Actor.supervisor("sup@acme.example"),
    ).id
    db.session.commit()
    answer = desk("closeTask", agent="ann", previewRecordID=record_id, outcome="COMPLETE")
    assert answer["result"] == "NOT_FOUND"
    assert re.fullmatch(
        rf"task '{record_id}' is no longer agent 'ann''s: deleted by supervisor "
        rf"sup@acme\.example via bulk job {job_id} at \d{{4}}-\d\d-\d\d [\d:.]+ UTC",
        answer["message"],
    ), answer["message"]
