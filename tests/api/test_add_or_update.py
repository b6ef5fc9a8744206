"""addOrUpdateCampaignRecord: adding a task, replacing its data, and the rules items obey.

Spec part A (addOrUpdateCampaignRecord, special data-item keys, errors) and issue 2.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import PLATFORM, make_tenant

ACTION = "addOrUpdateCampaignRecord"
WIRE_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}")


def result(answer: dict) -> dict:
    return answer["previewResult"]


def data_of(task: dict) -> dict:
    return {item["key"]: item["value"] for item in task["previewRecordData"]}


def items(*pairs: tuple[str, str]) -> list[dict]:
    return [{"key": key, "value": value} for key, value in pairs]


def add_status(api, data: list[dict], client_id: str = "C1", **fields) -> str:
    return result(api.call(ACTION, clientId=client_id, previewRecordData=data, **fields))[
        "previewResultStatus"
    ]


# --- the response -------------------------------------------------------------------------


def test_success_echoes_the_request_and_has_a_null_error(api):
    assert api.add("C1", {"Name": "Ada"}) == {
        "platform": PLATFORM,
        "companyCode": "Acme",
        "environment": "prod",
        "region": "us-east-1",
        "campaignName": "Renewals",
        "previewResult": {"previewResultStatus": "SUCCESS", "error": None},
    }


@pytest.mark.parametrize("campaign", ["Nope", "renewals"])
def test_unknown_campaign_fails_and_echoes_its_name(api, campaign):
    api.campaign = campaign
    answer = api.add("C1", {"Name": "Ada"})
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert campaign in result(answer)["error"]
    assert answer["campaignName"] == campaign
    api.campaign = "Renewals"
    assert api.find("C1") is None


# --- add ----------------------------------------------------------------------------------


def test_add_generates_a_unique_uuid_never_reused_after_delete_and_re_add(api):
    api.add("C1")
    api.add("C2")
    first, second = api.find("C1")["previewRecordID"], api.find("C2")["previewRecordID"]
    assert first != second
    assert str(uuid.UUID(first)) == first
    assert api.status("deleteRecordFromCampaign", clientId="C1") == "SUCCESS"
    api.add("C1")
    again = api.find("C1")["previewRecordID"]
    assert again not in {first, second}
    assert api.status("searchPreviewCampaign", previewRecordId=first) == "NORECORDFOUND"


def test_add_stores_client_id_in_the_data_under_Id_by_default(api):
    api.add("C1", {"Name": "Ada"})
    assert data_of(api.find("C1")) == {"Id": "C1", "Name": "Ada"}


def test_add_stores_client_id_under_the_given_client_id_field_name(api):
    api.add("C1", {"Name": "Ada"}, clientIdFieldName="AccountNo")
    assert data_of(api.find("C1")) == {"AccountNo": "C1", "Name": "Ada"}


def test_absent_skill_queue_and_time_zone_take_the_campaign_defaults(api):
    api.add("C1")
    api.campaign = "Winback"
    api.add("W1")
    assert api.find("W1")["skillQueue"] == "Support"
    zone = api.search(("sys_item_time_zone", "EQUALS", "Europe/London"))
    assert [t["clientId"] for t in zone] == ["W1"]
    api.campaign = "Renewals"
    assert api.find("C1")["skillQueue"] == "Sales"
    zone = api.search(("sys_item_time_zone", "EQUALS", "America/New_York"))
    assert [t["clientId"] for t in zone] == ["C1"]


def test_new_task_starts_not_worked_with_utc_created_and_updated_times(api):
    before = datetime.now(UTC) - timedelta(seconds=5)
    api.add("C1")
    task = api.find("C1")
    assert task["workedState"] == "NOTWORKED"
    assert task["workAttempts"] == 0
    for field in ("createdTime", "lastUpdatedTime"):
        assert WIRE_TIME.fullmatch(task[field]), task[field]
        moment = datetime.strptime(task[field], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)
        assert before <= moment <= datetime.now(UTC) + timedelta(seconds=5)


@pytest.mark.parametrize(
    ("epoch_ms", "shown"),
    [
        (1700000000123, "2023-11-14 22:13:20.123"),
        (1700000000005, "2023-11-14 22:13:20.005"),
        (0, "1970-01-01 00:00:00.000"),
    ],
)
def test_next_earliest_work_time_is_stored_and_shown_in_utc(api, epoch_ms, shown):
    api.add("C1", nextEarliestWorkTimeUTC=epoch_ms)
    assert api.find("C1")["nextEarliestWorkTime"] == shown


def test_preferred_agent_is_stored(api):
    api.add("C1", preferredAgent="agent.smith")
    api.add("C2")
    assert api.find("C1")["preferredAgent"] == "agent.smith"
    assert api.find("C2")["preferredAgent"] in (None, "")
    assert api.find("C2")["nextEarliestWorkTime"] is None


# --- update -------------------------------------------------------------------------------


def test_update_by_client_id_replaces_all_data_and_keeps_id_and_created_time(api):
    api.add("C1", {"Name": "Ada", "City": "Paris"})
    before = api.find("C1")
    assert (
        result(api.add("C1", {"Name": "Ada L.", "Phone": "+14155550123"}))["previewResultStatus"]
        == "SUCCESS"
    )
    after = api.find("C1")
    assert data_of(after) == {"Id": "C1", "Name": "Ada L.", "Phone": "+14155550123"}
    assert after["previewRecordID"] == before["previewRecordID"]
    assert after["createdTime"] == before["createdTime"]
    assert after["lastUpdatedTime"] >= before["lastUpdatedTime"]


@pytest.mark.parametrize("spelling", ["previewRecordId", "previewRecordID"])
def test_update_by_record_id_replaces_all_data(api, spelling):
    api.add("C1", {"Name": "Ada", "City": "Paris"})
    record_id = api.find("C1")["previewRecordID"]
    answer = api.add("C1", {"Name": "Ada L."}, **{spelling: record_id})
    assert result(answer)["previewResultStatus"] == "SUCCESS"
    assert data_of(api.find("C1")) == {"Id": "C1", "Name": "Ada L."}
    assert api.find("C1")["previewRecordID"] == record_id


@pytest.mark.parametrize("spelling", ["previewRecordId", "previewRecordID"])
def test_update_by_record_id_with_a_new_client_id_renames_the_task(api, spelling):
    api.add("C1", {"Name": "Ada"})
    record_id = api.find("C1")["previewRecordID"]
    api.add("C9", {"Name": "Ada"}, **{spelling: record_id})
    assert api.find("C1") is None
    renamed = api.find("C9")
    assert renamed["previewRecordID"] == record_id
    assert data_of(renamed) == {"Id": "C9", "Name": "Ada"}


def test_rename_to_a_client_id_of_another_task_fails_and_changes_nothing(api):
    api.add("C1", {"Name": "Ada"})
    api.add("C2", {"Name": "Alan"})
    before = [api.find("C1"), api.find("C2")]
    answer = api.add("C2", {"Name": "Grace"}, previewRecordId=before[0]["previewRecordID"])
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "C2" in result(answer)["error"]
    assert [api.find("C1"), api.find("C2")] == before


def test_unmatched_record_id_adds_a_task_with_a_generated_id(api):
    sent = str(uuid.uuid4())
    assert result(api.add("C1", previewRecordId=sent))["previewResultStatus"] == "SUCCESS"
    task = api.find("C1")
    assert task["previewRecordID"] != sent
    assert uuid.UUID(task["previewRecordID"])
    assert api.status("searchPreviewCampaign", previewRecordId=sent) == "NORECORDFOUND"


def test_update_with_skill_queue_and_time_zone_moves_the_task(api):
    api.add("C1", {"Name": "Ada"})
    api.add("C1", {"Name": "Ada", "SkillQueue": "Support", "ItemTimeZone": "Asia/Tokyo"})
    assert api.find("C1")["skillQueue"] == "Support"
    zone = api.search(("sys_item_time_zone", "EQUALS", "Asia/Tokyo"))
    assert [t["clientId"] for t in zone] == ["C1"]


# --- clientId and the clientId field ------------------------------------------------------


@pytest.mark.parametrize("client_id", ["", "   ", None, "absent"])
def test_missing_or_blank_client_id_is_invalidclientid(api, client_id):
    fields = {} if client_id == "absent" else {"clientId": client_id}
    answer = api.call(ACTION, previewRecordData=items(("Name", "Ada")), **fields)
    assert result(answer)["previewResultStatus"] == "INVALIDCLIENTID"
    assert result(answer)["error"]
    assert api.search(("sys_worked_state", "NOTEQUALS", "none")) == []


@pytest.mark.parametrize(
    ("field_name", "key"), [(None, "Id"), ("AccountNo", "AccountNo"), ("Id", "Id")]
)
def test_data_key_equal_to_client_id_field_name_is_invalidrecorddatakey(api, field_name, key):
    fields = {"clientIdFieldName": field_name} if field_name else {}
    answer = api.add("C1", items(("Name", "Ada"), (key, "X")), **fields)
    assert result(answer)["previewResultStatus"] == "INVALIDRECORDDATAKEY"
    assert key in result(answer)["error"]
    assert api.find("C1") is None


def test_key_Id_is_ordinary_data_under_a_custom_client_id_field_name(api):
    api.add("C1", {"Name": "Ada", "Id": "X"}, clientIdFieldName="AccountNo")
    assert data_of(api.find("C1")) == {"AccountNo": "C1", "Name": "Ada", "Id": "X"}


# --- data items ---------------------------------------------------------------------------


def test_display_order_is_stored_and_returned(api):
    api.add(
        "C1", [{"key": "Name", "value": "Ada", "displayOrder": 1}, {"key": "City", "value": "P"}]
    )
    items = {i["key"]: i for i in api.find("C1")["previewRecordData"]}
    assert items["Name"]["displayOrder"] == 1
    # The spec types displayOrder an integer: an item without one omits the key, never null.
    assert "displayOrder" not in items["City"]


@pytest.mark.parametrize("order", [0, -1])
def test_display_order_below_one_fails(api, order):
    answer = api.add("C1", [{"key": "Name", "value": "Ada", "displayOrder": order}])
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "displayOrder" in result(answer)["error"]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("Phone", "+14155550123"),
        ("MobilePhone", "+447911123456"),
        ("home PHONE", "+33123456789"),
        ("Phone", "+123456789012345"),
        ("Phone", ""),
    ],
)
def test_phone_keys_accept_e164_or_empty(api, key, value):
    assert add_status(api, items((key, value))) == "SUCCESS"
    assert data_of(api.find("C1"))[key] == value


@pytest.mark.parametrize(
    "value",
    [
        "14155550123",
        "+1 415 555 0123",
        "+1-415-555-0123",
        "(415) 555-0123",
        "+0123456789",
        "+1234567890123456",
        "+",
        "+1415555012a",
        " +14155550123",
        "+14155550123\n",
        "tel:+14155550123",
    ],
)
def test_phone_value_not_in_e164_fails(api, value):
    answer = api.add("C1", items(("Name", "Ada"), ("Phone", value)))
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "previewRecordData[1]" in result(answer)["error"]


@pytest.mark.parametrize("key", ["Phone", "phone", "MobilePhone", "home PHONE", "Telephone2"])
def test_every_key_containing_phone_in_any_case_is_checked(api, key):
    assert add_status(api, items((key, "4155550123"))) == "FAILED"


def test_keys_without_phone_take_any_value(api):
    assert add_status(api, items(("Fax", "4155550123"), ("Mobile", "555 0123"))) == "SUCCESS"


@pytest.mark.parametrize("queue", ["Nope", "sales", ""])
def test_unknown_skill_queue_fails(api, queue):
    answer = api.add("C1", items(("Name", "Ada"), ("SkillQueue", queue)))
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "SkillQueue" in result(answer)["error"]
    assert api.find("C1") is None


def test_skill_queue_of_another_tenant_fails(api):
    make_tenant("Globex", queues=("Billing",), campaigns_=(("Renewals", "Billing", "UTC"),))
    assert add_status(api, items(("SkillQueue", "Billing"))) == "FAILED"


@pytest.mark.parametrize("zone", ["Mars/Olympus", "europe/paris", "+01:00", "Paris", ""])
def test_item_time_zone_not_iana_fails(api, zone):
    answer = api.add("C1", items(("Name", "Ada"), ("ItemTimeZone", zone)))
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "ItemTimeZone" in result(answer)["error"]


def test_duplicate_key_in_one_request_fails(api):
    answer = api.add("C1", items(("Name", "Ada"), ("Name", "Grace")))
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "Name" in result(answer)["error"]


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"previewRecordData": [{"key": "Name", "value": 5}]}, "previewRecordData[0].value"),
        (
            {"previewRecordData": [{"key": "N", "value": "A", "displayOrder": "1"}]},
            "previewRecordData[0].displayOrder",
        ),
        (
            {"previewRecordData": [{"key": "N", "value": "A", "displayOrder": True}]},
            "previewRecordData[0].displayOrder",
        ),
        ({"previewRecordData": [{"value": "Ada"}]}, "previewRecordData[0].key"),
        ({"previewRecordData": {"Name": "Ada"}}, "previewRecordData"),
        ({"previewRecordData": None}, "previewRecordData"),
        ({"clientId": 42}, "clientId"),
        ({"preferredAgent": 7}, "preferredAgent"),
        ({"nextEarliestWorkTimeUTC": "1700000000000"}, "nextEarliestWorkTimeUTC"),
        ({"nextEarliestWorkTimeUTC": -1}, "nextEarliestWorkTimeUTC"),
    ],
)
def test_wrong_type_fails_naming_the_field(api, fields, named):
    body = {"clientId": "C1", "previewRecordData": items(("Name", "Ada")), **fields}
    answer = api.call(ACTION, **body)
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert named in result(answer)["error"]


# --- a failure changes nothing ------------------------------------------------------------

GOOD_CHANGES = [
    {"key": "Name", "value": "Changed"},
    {"key": "SkillQueue", "value": "Support"},
    {"key": "ItemTimeZone", "value": "Asia/Tokyo"},
]


@pytest.mark.parametrize(
    "bad_item",
    [
        {"key": "Phone", "value": "555-0123"},
        {"key": "City", "value": "Paris", "displayOrder": 0},
        {"key": "Id", "value": "X"},
        {"key": "SkillQueue", "value": "Nope"},
        {"key": "ItemTimeZone", "value": "Nowhere/Land"},
        {"key": "Name", "value": "Twice"},
        {"key": "City", "value": 5},
    ],
)
def test_failed_update_or_add_leaves_stored_data_unchanged(api, bad_item):
    api.add("C1", {"Name": "Ada", "City": "Paris"}, preferredAgent="a1")
    before = api.find("C1")
    changes = {
        "previewRecordData": [*GOOD_CHANGES, bad_item],
        "preferredAgent": "a2",
        "nextEarliestWorkTimeUTC": 1800000000000,
    }
    for client_id in ("C1", "C2"):
        answer = api.call(ACTION, clientId=client_id, **changes)
        assert result(answer)["previewResultStatus"] != "SUCCESS"
        assert result(answer)["error"]
    assert api.find("C1") == before
    assert api.find("C2") is None


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({}, "INVALIDCLIENTID"),
        ({"previewRecordData": [{"key": "Id", "value": "x"}], "nextEarliestWorkTimeUTC": -1},
         "INVALIDCLIENTID"),
        ({"clientId": "C1", "previewRecordData": [{"key": "Id", "value": "x"}],
          "nextEarliestWorkTimeUTC": -1, "preferredAgent": "a" * 300}, "INVALIDRECORDDATAKEY"),
        ({"clientId": "C1"}, "FAILED"),
    ],
    ids=["nothing-but-the-tenant", "no-client-id-and-more", "data-key-and-more", "no-data"],
)  # fmt: skip
def test_the_spec_statuses_come_before_other_refusals(api, fields, status):
    answer = api.call(ACTION, **fields)
    assert result(answer)["previewResultStatus"] == status
    assert api.find("C1") is None


@pytest.mark.parametrize("order", [2**31, 2**40])
def test_a_display_order_past_a_database_integer_fails_on_every_database(api, order):
    data = [{"key": "Name", "value": "Ada", "displayOrder": order}]
    answer = api.call(ACTION, clientId="C1", previewRecordData=data)
    assert result(answer)["previewResultStatus"] == "FAILED"
    assert "displayOrder" in result(answer)["error"]
    assert api.find("C1") is None
