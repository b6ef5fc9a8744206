"""transferCampaignRecord: a task moves to another campaign and/or queue, whole or not at all."""

import pytest

TRANSFER = "transferCampaignRecord"
# 2026-01-01 00:00:00.123 UTC in epoch milliseconds.
NEW_YEAR_MS = 1767225600123
DATA = {"Name": "Ada", "City": "Paris", "Mobile_phone": "+14155550123"}


def transfer(api, **fields) -> tuple[str, str | None]:
    answer = api.call(TRANSFER, **fields)
    return answer["previewResult"]["previewResultStatus"], answer["previewResult"]["error"]


def in_campaign(api, campaign: str, client_id: str) -> dict | None:
    return api.find(client_id, campaignName=campaign)


def everything(api) -> dict[str, list[dict]]:
    """Every task of both campaigns as search shows them."""
    return {
        name: api.search(("sys_worked_state", "NOTEQUALS", ""), campaignName=name)
        for name in ("Renewals", "Winback")
    }


@pytest.mark.parametrize("locate_by", ["previewRecordId", "previewRecordID", "clientId"])
def test_transfer_moves_the_task_keeping_id_data_and_state(api, locate_by):
    api.add("C1", DATA)
    api.call("changeCampaignRecordStatus", clientId="C1", previewRecordStateEnum="COMPLETED")
    task = api.find("C1")
    locator = {locate_by: "C1" if locate_by == "clientId" else task["previewRecordID"]}

    assert transfer(api, transferToCampaign="Winback", **locator) == ("SUCCESS", None)

    moved = in_campaign(api, "Winback", "C1")
    assert moved["previewRecordID"] == task["previewRecordID"]
    assert moved["previewRecordData"] == task["previewRecordData"]
    assert moved["workedState"] == "COMPLETED"
    assert moved["createdTime"] == task["createdTime"]
    assert api.status("searchPreviewCampaign", clientId="C1") == "NORECORDFOUND"
    assert api.status("searchPreviewCampaign", previewRecordId=task["previewRecordID"]) == (
        "NORECORDFOUND"
    )


@pytest.mark.parametrize(
    ("given", "expected"),
    [({}, "Support"), ({"skillQueue": "Sales"}, "Sales"), ({"skillQueue": "Support"}, "Support")],
)
def test_the_destination_default_queue_applies_unless_a_skill_queue_is_given(api, given, expected):
    api.add("C1")
    assert api.find("C1")["skillQueue"] == "Sales"
    assert transfer(api, clientId="C1", transferToCampaign="Winback", **given)[0] == "SUCCESS"
    assert in_campaign(api, "Winback", "C1")["skillQueue"] == expected


def test_optional_fields_are_applied(api):
    api.add("C1", preferredAgent="ann")
    status = transfer(
        api,
        clientId="C1",
        transferToCampaign="Winback",
        preferredAgent="bob",
        nextEarliestWorkTimeUTC=NEW_YEAR_MS,
        timeZone="Asia/Tokyo",
    )
    assert status == ("SUCCESS", None)
    moved = in_campaign(api, "Winback", "C1")
    assert moved["preferredAgent"] == "bob"
    assert moved["nextEarliestWorkTime"] == "2026-01-01 00:00:00.123"
    tokyo = api.search(("sys_item_time_zone", "EQUALS", "Asia/Tokyo"), campaignName="Winback")
    assert [t["clientId"] for t in tokyo] == ["C1"]


def test_an_empty_preferred_agent_clears_it(api):
    api.add("C1", preferredAgent="ann")
    assert transfer(api, clientId="C1", transferToCampaign="Winback", preferredAgent="")[0] == (
        "SUCCESS"
    )
    assert in_campaign(api, "Winback", "C1")["preferredAgent"] in (None, "")


def test_unknown_destination_fails_and_moves_nothing(api, subtests):
    api.add("C1", DATA)
    before = everything(api)
    for destination in ("Nowhere", "winback", "Winback "):
        with subtests.test(destination=destination):
            status, error = transfer(api, clientId="C1", transferToCampaign=destination)
            assert status == "FAILED"
            assert "transferToCampaign" in error
            assert everything(api) == before


def test_client_id_already_in_the_destination_fails_and_moves_nothing(api):
    api.add("C1", DATA)
    api.add("C1", {"Name": "Other Ada"}, campaignName="Winback")
    before = everything(api)
    status, error = transfer(api, clientId="C1", transferToCampaign="Winback")
    assert status == "FAILED"
    assert "C1" in error
    assert everything(api) == before


BAD_OPTIONS = {
    "unknown queue": {"skillQueue": "Nowhere"},
    "bad zone": {"timeZone": "Mars/Olympus_Mons"},
    "negative time": {"nextEarliestWorkTimeUTC": -1},
    "long agent": {"preferredAgent": "a" * 256},
}


def test_a_bad_optional_field_fails_and_moves_nothing(api, subtests):
    api.add("C1", DATA)
    before = everything(api)
    for case, bad in BAD_OPTIONS.items():
        with subtests.test(case):
            status = transfer(api, clientId="C1", transferToCampaign="Winback", **bad)
            assert status[0] == "FAILED"
            assert everything(api) == before


def test_unknown_task_answers_norecordfound(api, subtests):
    api.add("C1")
    before = everything(api)
    for locator in ({"clientId": "C404"}, {"previewRecordId": "no-such-id", "clientId": "C1"}):
        with subtests.test(**locator):
            assert transfer(api, transferToCampaign="Winback", **locator)[0] == "NORECORDFOUND"
            assert everything(api) == before


def test_transfer_within_the_same_campaign_changes_the_queue(api):
    api.add("C1", DATA)
    task = api.find("C1")
    status = transfer(api, clientId="C1", transferToCampaign="Renewals", skillQueue="Support")
    assert status == ("SUCCESS", None)
    after = api.find("C1")
    assert after["skillQueue"] == "Support"
    assert after["previewRecordID"] == task["previewRecordID"]
    assert after["previewRecordData"] == task["previewRecordData"]
    assert api.search(("sys_worked_state", "NOTEQUALS", ""), campaignName="Winback") == []


def test_a_transferred_task_is_searchable_by_its_data_in_the_destination(api):
    api.add("C1", DATA)
    api.add("C2", {"Name": "Bob", "City": "Paris"})
    api.add("C3", {"Name": "Cy", "City": "Paris"}, campaignName="Winback")
    assert transfer(api, clientId="C1", transferToCampaign="Winback")[0] == "SUCCESS"

    api.campaign = "Winback"
    paris = api.search(("City", "EQUALS", "Paris"))
    assert sorted(t["clientId"] for t in paris) == ["C1", "C3"]
    assert [t["clientId"] for t in api.search(("Name", "BEGINSWITH", "Ad"))] == ["C1"]
    assert [t["clientId"] for t in api.search(("Id", "EQUALS", "C1"))] == ["C1"]
    api.campaign = "Renewals"
    assert [t["clientId"] for t in api.search(("City", "EQUALS", "Paris"))] == ["C2"]
    assert api.search(("Name", "BEGINSWITH", "Ad")) == []


def test_the_client_id_is_free_again_in_the_source(api):
    api.add("C1", DATA)
    moved_id = api.find("C1")["previewRecordID"]
    assert transfer(api, clientId="C1", transferToCampaign="Winback")[0] == "SUCCESS"
    assert api.add("C1", {"Name": "New Ada"})["previewResult"]["previewResultStatus"] == "SUCCESS"
    assert api.find("C1")["previewRecordID"] != moved_id
    assert in_campaign(api, "Winback", "C1")["previewRecordID"] == moved_id
