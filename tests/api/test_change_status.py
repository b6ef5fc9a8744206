"""changeCampaignRecordStatus: the new workedState and the optional system fields it applies."""

import time

import pytest

from tests.conftest import make_tenant

CHANGE = "changeCampaignRecordStatus"
STATES = ("NOTWORKED", "WORKED", "COMPLETED", "REMOVED")
# 2026-01-01 00:00:00.123 UTC in epoch milliseconds.
NEW_YEAR_MS = 1767225600123
NEW_YEAR = "2026-01-01 00:00:00.123"


def change(api, state: str, **fields) -> dict:
    return api.call(CHANGE, previewRecordStateEnum=state, **fields)


def result(answer: dict) -> tuple[str, str | None]:
    return answer["previewResult"]["previewResultStatus"], answer["previewResult"]["error"]


def stored(api) -> list[dict]:
    """Every task of the campaign as search shows it."""
    return api.search(("sys_worked_state", "NOTEQUALS", ""))


@pytest.mark.parametrize("state", STATES)
def test_each_state_is_set(api, state):
    api.add("C1")
    earlier = "NOTWORKED" if state == "COMPLETED" else "COMPLETED"
    assert api.status(CHANGE, clientId="C1", previewRecordStateEnum=earlier) == "SUCCESS"
    when = {"nextEarliestWorkTimeUTC": NEW_YEAR_MS} if state == "WORKED" else {}
    assert result(change(api, state, clientId="C1", **when)) == ("SUCCESS", None)
    assert api.find("C1")["workedState"] == state


def test_worked_without_next_earliest_work_time_fails_and_changes_nothing(api, subtests):
    api.add("C1")
    before = stored(api)
    for absent in ({}, {"nextEarliestWorkTimeUTC": None}):
        with subtests.test(**absent):
            status, error = result(
                change(api, "WORKED", clientId="C1", preferredAgent="x", **absent)
            )
            assert status == "FAILED"
            assert "nextEarliestWorkTimeUTC" in error
            assert stored(api) == before


def test_unknown_state_fails(api, subtests):
    api.add("C1")
    before = stored(api)
    for state in ("DONE", "worked", "", "NOTWORKED "):
        with subtests.test(state=state):
            status, error = result(change(api, state, clientId="C1"))
            assert status == "FAILED"
            assert "previewRecordStateEnum" in error
            assert stored(api) == before


@pytest.mark.parametrize("spelling", ["previewRecordId", "previewRecordID"])
def test_task_is_located_by_preview_record_id_in_either_spelling(api, spelling):
    api.add("C1")
    record_id = api.find("C1")["previewRecordID"]
    assert result(change(api, "COMPLETED", **{spelling: record_id})) == ("SUCCESS", None)
    assert api.find("C1")["workedState"] == "COMPLETED"


def test_task_is_located_by_client_id(api):
    api.add("C1")
    api.add("C2")
    assert result(change(api, "REMOVED", clientId="C2")) == ("SUCCESS", None)
    assert api.find("C1")["workedState"] == "NOTWORKED"
    assert api.find("C2")["workedState"] == "REMOVED"


def test_preview_record_id_wins_over_client_id(api):
    api.add("C1")
    api.add("C2")
    first = api.find("C1")["previewRecordID"]
    assert result(change(api, "COMPLETED", previewRecordId=first, clientId="C2"))[0] == "SUCCESS"
    assert api.find("C1")["workedState"] == "COMPLETED"
    assert api.find("C2")["workedState"] == "NOTWORKED"


UNKNOWN = [
    {"previewRecordId": "no-such-id"},
    {"previewRecordID": "no-such-id"},
    {"clientId": "C404"},
    # previewRecordId wins, so a known clientId beside an unknown id finds nothing.
    {"previewRecordId": "no-such-id", "clientId": "C1"},
]


def test_unknown_task_answers_norecordfound(api, subtests):
    api.add("C1")
    before = stored(api)
    for locator in UNKNOWN:
        with subtests.test(**locator):
            assert result(change(api, "COMPLETED", **locator))[0] == "NORECORDFOUND"
            assert stored(api) == before


def test_without_any_id_fails(api, subtests):
    api.add("C1")
    before = stored(api)
    for locator in ({}, {"previewRecordId": "", "clientId": ""}, {"clientId": None}):
        with subtests.test(**locator):
            status, error = result(change(api, "COMPLETED", **locator))
            assert status == "FAILED"
            assert error
            assert stored(api) == before


def test_skill_queue_is_applied(api):
    api.add("C1")
    assert api.find("C1")["skillQueue"] == "Sales"
    assert result(change(api, "NOTWORKED", clientId="C1", skillQueue="Support"))[0] == "SUCCESS"
    assert api.find("C1")["skillQueue"] == "Support"
    assert [t["clientId"] for t in api.search(("sys_skill_queue", "EQUALS", "Support"))] == ["C1"]


def test_skill_queue_not_of_the_tenant_fails(api, subtests):
    make_tenant("Globex", queues=("Billing",), campaigns_=(("Renewals", "Billing", "UTC"),))
    api.add("C1")
    before = stored(api)
    for queue in ("Nowhere", "sales", "Billing"):
        with subtests.test(queue=queue):
            status, error = result(change(api, "COMPLETED", clientId="C1", skillQueue=queue))
            assert status == "FAILED"
            assert "skillQueue" in error
            assert stored(api) == before


def test_preferred_agent_is_set_and_an_empty_string_clears_it(api):
    api.add("C1")
    assert result(change(api, "NOTWORKED", clientId="C1", preferredAgent="ann"))[0] == "SUCCESS"
    assert api.find("C1")["preferredAgent"] == "ann"
    assert result(change(api, "NOTWORKED", clientId="C1", preferredAgent=""))[0] == "SUCCESS"
    assert api.find("C1")["preferredAgent"] in (None, "")


def test_preferred_agent_absent_leaves_it_as_it_is(api):
    api.add("C1", preferredAgent="ann")
    assert result(change(api, "COMPLETED", clientId="C1"))[0] == "SUCCESS"
    assert api.find("C1")["preferredAgent"] == "ann"


def test_next_earliest_work_time_is_applied_and_shown_in_wire_format(api):
    api.add("C1")
    assert api.find("C1")["nextEarliestWorkTime"] is None
    answer = change(api, "WORKED", clientId="C1", nextEarliestWorkTimeUTC=NEW_YEAR_MS)
    assert result(answer)[0] == "SUCCESS"
    assert api.find("C1")["nextEarliestWorkTime"] == NEW_YEAR
    found = api.search(("sys_next_earliest_worktime_long", "EQUALS", str(NEW_YEAR_MS)))
    assert [t["clientId"] for t in found] == ["C1"]


def test_time_zone_is_applied_and_visible_through_search(api):
    api.add("C1")
    api.add("C2")
    assert result(change(api, "NOTWORKED", clientId="C1", timeZone="Asia/Tokyo"))[0] == "SUCCESS"
    tokyo = api.search(("sys_item_time_zone", "EQUALS", "Asia/Tokyo"))
    assert [t["clientId"] for t in tokyo] == ["C1"]
    new_york = api.search(("sys_item_time_zone", "EQUALS", "America/New_York"))
    assert [t["clientId"] for t in new_york] == ["C2"]


def test_bad_time_zone_fails(api, subtests):
    api.add("C1")
    for zone in ("Mars/Olympus_Mons", "America/NewYork", "+02:00"):
        with subtests.test(zone=zone):
            status, error = result(change(api, "COMPLETED", clientId="C1", timeZone=zone))
            assert status == "FAILED"
            assert "timeZone" in error
            assert api.search(("sys_item_time_zone", "EQUALS", "America/New_York"))
            assert api.find("C1")["workedState"] == "NOTWORKED"


FAILURES = {
    "unknown queue": {"skillQueue": "Nowhere"},
    "bad zone": {"timeZone": "Mars/Olympus_Mons"},
    "negative time": {"nextEarliestWorkTimeUTC": -1},
    "long agent": {"preferredAgent": "a" * 256},
    "unknown state": {"previewRecordStateEnum": "DONE"},
}


def test_a_failure_changes_nothing(api, subtests):
    api.add("C1", preferredAgent="ann")
    api.add("C2")
    before = stored(api)
    valid = {
        "clientId": "C1",
        "previewRecordStateEnum": "COMPLETED",
        "skillQueue": "Support",
        "preferredAgent": "",
        "nextEarliestWorkTimeUTC": NEW_YEAR_MS,
        "timeZone": "Asia/Tokyo",
    }
    for case, bad in FAILURES.items():
        with subtests.test(case):
            assert api.status(CHANGE, **{**valid, **bad}) == "FAILED"
            assert stored(api) == before
            assert api.search(("sys_item_time_zone", "EQUALS", "Asia/Tokyo")) == []


def test_all_optional_fields_are_applied_together(api):
    api.add("C1", preferredAgent="ann")
    answer = change(
        api,
        "WORKED",
        clientId="C1",
        skillQueue="Support",
        preferredAgent="bob",
        nextEarliestWorkTimeUTC=NEW_YEAR_MS,
        timeZone="Europe/Paris",
    )
    assert result(answer) == ("SUCCESS", None)
    task = api.find("C1")
    assert (task["workedState"], task["skillQueue"], task["preferredAgent"]) == (
        "WORKED",
        "Support",
        "bob",
    )
    assert task["nextEarliestWorkTime"] == NEW_YEAR
    assert api.search(("sys_item_time_zone", "EQUALS", "Europe/Paris")) == [task]


def test_last_updated_time_advances(api):
    api.add("C1")
    before = api.find("C1")
    time.sleep(0.01)
    assert result(change(api, "COMPLETED", clientId="C1"))[0] == "SUCCESS"
    after = api.find("C1")
    assert after["lastUpdatedTime"] > before["lastUpdatedTime"]
    assert after["createdTime"] == before["createdTime"]
