"""deleteRecordFromCampaign: the task is gone for good; its id is never given out again."""

import pytest

DELETE = "deleteRecordFromCampaign"


def delete(api, **locator) -> tuple[str, str | None]:
    answer = api.call(DELETE, **locator)
    return answer["previewResult"]["previewResultStatus"], answer["previewResult"]["error"]


def everything(api) -> dict[str, list[dict]]:
    """Every task of both campaigns as search shows them."""
    return {
        name: api.search(("sys_worked_state", "NOTEQUALS", ""), campaignName=name)
        for name in ("Renewals", "Winback")
    }


@pytest.mark.parametrize("locate_by", ["previewRecordId", "previewRecordID", "clientId"])
def test_delete_removes_the_task(api, locate_by):
    api.add("C1", {"Name": "Ada", "City": "Paris"})
    api.add("C2", {"Name": "Bob", "City": "Paris"})
    record_id = api.find("C1")["previewRecordID"]
    locator = {locate_by: "C1" if locate_by == "clientId" else record_id}

    assert delete(api, **locator) == ("SUCCESS", None)

    assert api.find("C1") is None
    assert [t["clientId"] for t in api.search(("City", "EQUALS", "Paris"))] == ["C2"]


LATER_LOOKUPS = [
    ("searchPreviewCampaign", {}),
    ("changeCampaignRecordStatus", {"previewRecordStateEnum": "COMPLETED"}),
    ("transferCampaignRecord", {"transferToCampaign": "Winback"}),
    (DELETE, {}),
]


@pytest.mark.parametrize(("action", "fields"), LATER_LOOKUPS, ids=[a for a, _ in LATER_LOOKUPS])
def test_later_lookups_answer_norecordfound(api, subtests, action, fields):
    api.add("C1")
    record_id = api.find("C1")["previewRecordID"]
    assert delete(api, clientId="C1")[0] == "SUCCESS"
    for locator in (
        {"previewRecordId": record_id},
        {"previewRecordID": record_id},
        {"clientId": "C1"},
    ):
        with subtests.test(**locator):
            assert api.status(action, **locator, **fields) == "NORECORDFOUND"
    assert everything(api) == {"Renewals": [], "Winback": []}


def test_unknown_task_answers_norecordfound_and_deletes_nothing(api, subtests):
    api.add("C1")
    before = everything(api)
    for locator in (
        {"previewRecordId": "no-such-id"},
        {"clientId": "C404"},
        # previewRecordId wins, so a known clientId beside an unknown id deletes nothing.
        {"previewRecordId": "no-such-id", "clientId": "C1"},
    ):
        with subtests.test(**locator):
            assert delete(api, **locator)[0] == "NORECORDFOUND"
            assert everything(api) == before


def test_preview_record_id_wins_over_client_id(api):
    api.add("C1")
    api.add("C2")
    first = api.find("C1")["previewRecordID"]
    assert delete(api, previewRecordId=first, clientId="C2")[0] == "SUCCESS"
    assert api.find("C1") is None
    assert api.find("C2") is not None


def test_without_any_id_fails_and_deletes_nothing(api):
    api.add("C1")
    before = everything(api)
    status, error = delete(api)
    assert status == "FAILED"
    assert error
    assert everything(api) == before


def test_only_the_named_campaign_loses_the_task(api):
    api.add("C1")
    api.add("C1", campaignName="Winback")
    assert delete(api, clientId="C1")[0] == "SUCCESS"
    assert api.find("C1") is None
    assert api.find("C1", campaignName="Winback") is not None


def test_a_deleted_client_id_can_be_added_again_with_a_new_record_id(api):
    api.add("C1", {"Name": "Ada"})
    old_id = api.find("C1")["previewRecordID"]
    assert delete(api, clientId="C1")[0] == "SUCCESS"

    assert api.add("C1", {"Name": "Ada again"})["previewResult"]["previewResultStatus"] == (
        "SUCCESS"
    )
    task = api.find("C1")
    assert task["previewRecordID"] != old_id
    assert task["workedState"] == "NOTWORKED"
    assert {"key": "Name", "value": "Ada again"} in [
        {"key": i["key"], "value": i["value"]} for i in task["previewRecordData"]
    ]
    assert api.status("searchPreviewCampaign", previewRecordId=old_id) == "NORECORDFOUND"
