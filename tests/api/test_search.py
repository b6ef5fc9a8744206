"""searchPreviewCampaign: lookups by id, criteria searches, system keys, limits, the wire.

Spec part A (searchPreviewCampaign, system search keys, task fields) and issue 2.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import insert, select

from app.extensions import db
from app.models import Task, WorkCode
from app.models.types import utcnow
from app.services.campaigns.catalogue import get_campaign

ACTION = "searchPreviewCampaign"


def result(answer: dict) -> dict:
    return answer["previewResult"]


def client_ids(records: list[dict]) -> list[str]:
    return [record["clientId"] for record in records]


def criteria(*triples: tuple[str, str, str]) -> list[dict]:
    return [{"key": k, "condition": c, "value": v} for k, c, v in triples]


def stored_task(client_id: str) -> Task:
    return db.session.scalar(select(Task).filter_by(client_id=client_id))


# A small fixed data set: D has no City; Amount mixes numbers and text.
PEOPLE = {
    "A": {"Name": "Ada Lovelace", "City": "Paris", "Amount": "9", "Promo": "50%_off"},
    "B": {"Name": "Alan Turing", "City": "London", "Amount": "10", "Promo": "50% off"},
    "C": {"Name": "ada", "City": "paris", "Amount": "100", "Promo": "500_off"},
    "D": {"Name": "Grace Hopper", "Amount": "n/a", "Promo": "5000off"},
}


@pytest.fixture
def people(api):
    for client_id, data in PEOPLE.items():
        api.add(client_id, data)
    return api


# --- lookup by id -------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ["previewRecordId", "previewRecordID"])
def test_lookup_by_record_id_returns_that_one_task(people, spelling):
    record_id = people.find("B")["previewRecordID"]
    answer = people.call(ACTION, **{spelling: record_id})
    assert result(answer) == {"previewResultStatus": "SUCCESS", "error": None}
    assert client_ids(answer["previewRecordClientData"]) == ["B"]


def test_lookup_by_client_id_returns_that_one_task(people):
    answer = people.call(ACTION, clientId="C")
    assert [r["previewRecordID"] for r in answer["previewRecordClientData"]] == [
        people.find("C")["previewRecordID"]
    ]
    assert client_ids(answer["previewRecordClientData"]) == ["C"]


def test_record_id_wins_over_client_id(people):
    record_id = people.find("A")["previewRecordID"]
    answer = people.call(ACTION, previewRecordId=record_id, clientId="B")
    assert client_ids(answer["previewRecordClientData"]) == ["A"]
    assert people.status(ACTION, previewRecordId="no-such-id", clientId="B") == "NORECORDFOUND"


def test_lookup_by_id_ignores_criteria(people):
    answer = people.call(ACTION, clientId="A", previewRecordData=criteria(("City", "EQUALS", "X")))
    assert client_ids(answer["previewRecordClientData"]) == ["A"]


@pytest.mark.parametrize(
    "locator",
    [{"clientId": "nope"}, {"previewRecordId": "nope"}, {"previewRecordID": "nope"}],
)
def test_unknown_id_answers_norecordfound_with_a_reason_and_no_records(people, locator):
    answer = people.call(ACTION, **locator)
    assert result(answer)["previewResultStatus"] == "NORECORDFOUND"
    assert isinstance(result(answer)["error"], str) and result(answer)["error"]
    assert answer["previewRecordClientData"] == []
    assert answer["campaignName"] == "Renewals"


# --- criteria -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "condition", "value", "expected"),
    [
        ("City", "EQUALS", "Paris", ["A"]),
        ("City", "EQUALS", "paris", ["C"]),
        ("Name", "EQUALS", "Ada", []),
        ("City", "NOTEQUALS", "Paris", ["B", "C", "D"]),
        # Both sides numbers: numeric order ("9" < "10" < "100").
        ("Amount", "GREATERTHAN", "9", ["B", "C", "D"]),
        ("Amount", "LESSTHAN", "10", ["A"]),
        ("Amount", "LESSTHAN", "9.5", ["A"]),
        ("Amount", "GREATERTHAN", "99.5", ["C", "D"]),
        # Otherwise text order, case-sensitive ("n/a" > "9"; "ada" > "B").
        ("Amount", "GREATERTHAN", "m", ["D"]),
        ("Name", "LESSTHAN", "B", ["A", "B"]),
        ("Name", "GREATERTHAN", "Grace", ["C", "D"]),
        ("Name", "CONTAINS", "Lovelace", ["A"]),
        ("Name", "CONTAINS", "ada", ["C"]),
        ("Name", "BEGINSWITH", "A", ["A", "B"]),
        ("Name", "BEGINSWITH", "a", ["C"]),
        ("Name", "BEGINSWITH", "Lovelace", []),
        # % and _ are literal characters, not wildcards.
        ("Promo", "CONTAINS", "%_", ["A"]),
        ("Promo", "CONTAINS", "0_", ["C"]),
        ("Promo", "BEGINSWITH", "50%", ["A", "B"]),
        ("Promo", "BEGINSWITH", "5_0", []),
        ("Promo", "CONTAINS", "%", ["A", "B"]),
    ],
)
def test_condition_on_a_data_key(people, key, condition, value, expected):
    assert client_ids(people.search((key, condition, value))) == expected


def test_criteria_are_and_ed(people):
    assert client_ids(
        people.search(("Name", "BEGINSWITH", "A"), ("Amount", "GREATERTHAN", "9"))
    ) == ["B"]
    assert people.search(("City", "EQUALS", "Paris"), ("City", "EQUALS", "London")) == []


def test_no_match_is_success_with_an_empty_list(people):
    answer = people.call(ACTION, previewRecordData=criteria(("City", "EQUALS", "Rome")))
    assert result(answer) == {"previewResultStatus": "SUCCESS", "error": None}
    assert answer["previewRecordClientData"] == []


def test_a_key_no_task_has_matches_nothing(people):
    assert people.search(("Nickname", "EQUALS", "Ada")) == []


@pytest.mark.parametrize("condition", ["LIKE", "equals", "", "BETWEEN"])
def test_unknown_condition_fails_naming_the_field(people, condition):
    answer = people.call(ACTION, previewRecordData=criteria(("City", condition, "Paris")))
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "previewRecordData[0].condition" in result(answer)["error"]
    assert answer["previewRecordClientData"] == []


@pytest.mark.parametrize(
    ("criterion", "named"),
    [
        ({"key": "City", "condition": "EQUALS"}, "previewRecordData[0].value"),
        ({"value": "Paris", "condition": "EQUALS"}, "previewRecordData[0].key"),
        ({"key": "City", "value": "Paris"}, "previewRecordData[0].condition"),
        ({"key": "Amount", "value": 9, "condition": "EQUALS"}, "previewRecordData[0].value"),
    ],
)
def test_incomplete_criterion_fails_naming_the_field(people, criterion, named):
    answer = people.call(ACTION, previewRecordData=[criterion])
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert named in result(answer)["error"]


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"previewRecordData": []},
        {"previewRecordData": None},
        {"clientId": "", "previewRecordId": ""},
    ],
)
def test_no_criteria_and_no_id_fails(people, fields):
    answer = people.call(ACTION, **fields)
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "previewRecordData" in result(answer)["error"]
    assert answer["previewRecordClientData"] == []


def test_unknown_campaign_fails_with_no_records(people):
    people.campaign = "Nope"
    answer = people.call(ACTION, previewRecordData=criteria(("City", "EQUALS", "Paris")))
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert answer["campaignName"] == "Nope"
    assert answer["previewRecordClientData"] == []


# --- system keys --------------------------------------------------------------------------

T1 = 1700000000000
T2 = 1800000000000


@pytest.fixture
def system(api):
    """S1 set on add, S2 all defaults, S3 worked twice and rescheduled."""
    api.add(
        "S1",
        {"Name": "One", "SkillQueue": "Support", "ItemTimeZone": "Europe/Paris"},
        preferredAgent="agent1",
        nextEarliestWorkTimeUTC=T1,
    )
    api.add("S2", {"Name": "Two"})
    api.add("S3", {"Name": "Three"})
    assert (
        api.status(
            "changeCampaignRecordStatus",
            clientId="S3",
            previewRecordStateEnum="WORKED",
            nextEarliestWorkTimeUTC=T2,
        )
        == "SUCCESS"
    )
    stored_task("S3").work_attempts = 2
    db.session.commit()
    return api


@pytest.mark.parametrize(
    ("key", "condition", "value", "expected"),
    [
        ("sys_skill_queue", "EQUALS", "Support", ["S1"]),
        ("sys_skill_queue", "EQUALS", "Sales", ["S2", "S3"]),
        ("sys_skill_queue", "NOTEQUALS", "Sales", ["S1"]),
        ("sys_worked_attempts", "EQUALS", "2", ["S3"]),
        ("sys_worked_attempts", "GREATERTHAN", "0", ["S3"]),
        ("sys_worked_attempts", "LESSTHAN", "1", ["S1", "S2"]),
        ("sys_worked_attempts", "GREATERTHAN", "10", []),
        ("sys_item_time_zone", "EQUALS", "Europe/Paris", ["S1"]),
        ("sys_item_time_zone", "BEGINSWITH", "America/", ["S2", "S3"]),
        ("sys_worked_state", "EQUALS", "WORKED", ["S3"]),
        ("sys_worked_state", "NOTEQUALS", "WORKED", ["S1", "S2"]),
        ("sys_worked_state", "EQUALS", "NOTWORKED", ["S1", "S2"]),
        ("sys_preferred_agent", "EQUALS", "agent1", ["S1"]),
        ("sys_preferred_agent", "EQUALS", "", ["S2", "S3"]),
        ("sys_next_earliest_worktime_long", "EQUALS", str(T1), ["S1"]),
        ("sys_next_earliest_worktime_long", "GREATERTHAN", str(T1), ["S3"]),
        ("sys_next_earliest_worktime_long", "LESSTHAN", str(T2), ["S1"]),
        ("sys_next_earliest_worktime_long", "GREATERTHAN", "0", ["S1", "S3"]),
    ],
)
def test_condition_on_a_system_key(system, key, condition, value, expected):
    assert client_ids(system.search((key, condition, value))) == expected


def test_system_and_data_criteria_combine(system):
    found = system.search(("sys_skill_queue", "EQUALS", "Sales"), ("Name", "EQUALS", "Three"))
    assert client_ids(found) == ["S3"]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("sys_worked_attempts", "two"),
        ("sys_worked_attempts", ""),
        ("sys_next_earliest_worktime_long", "soon"),
        ("sys_next_earliest_worktime_long", "2023-11-14"),
    ],
)
def test_non_number_for_a_numeric_system_key_fails(system, key, value):
    answer = system.call(ACTION, previewRecordData=criteria((key, "EQUALS", value)))
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert key in result(answer)["error"]
    assert answer["previewRecordClientData"] == []


# --- limits and order ---------------------------------------------------------------------


def add_many(tenant, count: int) -> None:
    """`count` NOTWORKED tasks C0000.. in one insert (a thousand API calls take seconds)."""
    campaign = get_campaign(tenant, "Renewals")
    now = utcnow()
    rows = [
        {
            "record_id": str(uuid.uuid4()),
            "campaign_id": campaign.id,
            "client_id": f"C{number:04d}",
            "skill_queue_id": campaign.default_skill_queue_id,
            "time_zone": campaign.default_time_zone,
            "worked_state": "NOTWORKED",
            "work_attempts": 0,
            "created_at": now,
            "updated_at": now,
        }
        for number in range(count)
    ]
    db.session.execute(insert(Task), rows)
    db.session.commit()


NOT_WORKED = ("sys_worked_state", "EQUALS", "NOTWORKED")


def test_max_records_defaults_to_1000(api, tenant):
    add_many(tenant[0], 1005)
    found = api.search(NOT_WORKED)
    assert client_ids(found) == [f"C{number:04d}" for number in range(1000)]


def test_max_records_limits_the_results_to_the_first_tasks(api, tenant):
    add_many(tenant[0], 5)
    assert client_ids(api.search(NOT_WORKED, maxRecords=3)) == [
        "C0000",
        "C0001",
        "C0002",
    ]


def test_max_records_may_reach_the_ceiling(api, tenant, app):
    app.config["SEARCH_MAX_RECORDS"] = 4
    add_many(tenant[0], 5)
    assert len(api.search(NOT_WORKED, maxRecords=4)) == 4


@pytest.mark.parametrize("max_records", [0, -1, "ceiling + 1", "5", 2.5])
def test_max_records_out_of_range_or_not_an_integer_fails(api, app, max_records):
    if max_records == "ceiling + 1":
        max_records = app.config["SEARCH_MAX_RECORDS"] + 1
    answer = api.call(ACTION, previewRecordData=criteria(NOT_WORKED), maxRecords=max_records)
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "maxRecords" in result(answer)["error"]
    assert answer["previewRecordClientData"] == []


def test_results_come_in_insertion_order_also_after_updates(api):
    for client_id in ("C3", "C1", "C2"):
        api.add(client_id, {"Name": "N"})
    api.add("C3", {"Name": "N", "City": "Paris"})
    first = client_ids(api.search(NOT_WORKED))
    assert first == ["C3", "C1", "C2"]
    assert client_ids(api.search(NOT_WORKED)) == first


# --- the task on the wire -----------------------------------------------------------------


def test_task_fields_have_the_spec_spelling_and_values(api):
    api.add(
        "C1",
        [
            {"key": "Name", "value": "Ada", "displayOrder": 1},
            {"key": "SkillQueue", "value": "Support"},
        ],
        preferredAgent="agent.smith",
        nextEarliestWorkTimeUTC=1700000000123,
    )
    task = stored_task("C1")
    record_id = task.record_id
    task.work_attempts = 1
    task.last_attempt_agent = "agent.jones"
    task.last_attempt_at = datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)
    db.session.add(WorkCode(task_id=task.id, key="Outcome", value="Sale", position=0))
    db.session.commit()

    record = api.find("C1")
    assert set(record) == {
        "previewRecordID",
        "clientId",
        "preferredAgent",
        "skillQueue",
        "createdTime",
        "lastUpdatedTime",
        "nextEarliestWorkTime",
        "workedState",
        "workAttempts",
        "lastAttemptAgent",
        "lastAttemptTime",
        "workCodes",
        "previewRecordData",
    }
    assert record["previewRecordID"] == record_id
    assert record["clientId"] == "C1"
    assert record["preferredAgent"] == "agent.smith"
    assert record["skillQueue"] == "Support"
    assert record["nextEarliestWorkTime"] == "2023-11-14 22:13:20.123"
    assert record["workedState"] == "NOTWORKED"
    assert record["workAttempts"] == 1
    assert record["lastAttemptAgent"] == "agent.jones"
    assert record["lastAttemptTime"] == "2024-01-02 03:04:05.006"
    assert record["workCodes"] == [{"key": "Outcome", "value": "Sale"}]
    assert {"key": "Name", "value": "Ada", "displayOrder": 1} in record["previewRecordData"]
    assert all(
        set(item) <= {"key", "value", "displayOrder"} for item in record["previewRecordData"]
    )


def test_work_codes_are_absent_until_set(api):
    api.add("C1")
    record = api.find("C1")
    assert "workCodes" not in record
    assert record["lastAttemptAgent"] in (None, "")
    assert record["lastAttemptTime"] in (None, "")


@pytest.mark.parametrize("value", ["99999999999999999999", str(2**31), str(-(2**31) - 1)])
def test_a_worked_attempts_value_past_a_database_integer_fails(api, value):
    api.add("C1")
    answer = api.call(
        "searchPreviewCampaign",
        previewRecordData=[{"key": "sys_worked_attempts", "condition": "EQUALS", "value": value}],
    )
    assert answer["previewResult"]["previewResultStatus"] == "FAILED"
    assert "sys_worked_attempts" in answer["previewResult"]["error"]
