"""One pass through the five actions, as an integration would run them."""


def test_add_search_change_transfer_delete(api):
    assert api.add("C1", {"Name": "Ada"})["previewResult"] == {
        "previewResultStatus": "SUCCESS",
        "error": None,
    }
    task = api.find("C1")
    assert task["workedState"] == "NOTWORKED"
    assert (
        api.status("changeCampaignRecordStatus", clientId="C1", previewRecordStateEnum="COMPLETED")
        == "SUCCESS"
    )
    assert api.status("transferCampaignRecord", clientId="C1", transferToCampaign="Winback") == (
        "SUCCESS"
    )
    api.campaign = "Winback"
    moved = api.find("C1")
    assert moved["previewRecordID"] == task["previewRecordID"]
    assert moved["workedState"] == "COMPLETED"
    assert api.status("deleteRecordFromCampaign", clientId="C1") == "SUCCESS"
    assert api.status("searchPreviewCampaign", clientId="C1") == "NORECORDFOUND"
