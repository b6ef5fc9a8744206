"""Rows: each obeys the rules of an add or update through the API. A bad row is rejected
with a reason naming its column; the good rows around it load."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.services.intake.columns import IGNORED
from tests.intake.conftest import csv_text, tasks_of

LONG = "a" * 256
GOOD = {"Id": "G", "Name": "Gina"}


def case(header, row, column, api=None):
    """A bad row; `api`: the same fault as the addOrUpdateCampaignRecord fields, if any."""
    return header, row, column, api


BAD_ROWS = {
    "bad phone": case(
        ["Id", "Name", "Mobile Phone"], ["X", "Xena", "555-1234"], "Mobile Phone",
        {"previewRecordData": [{"key": "Mobile Phone", "value": "555-1234"}]},
    ),
    "phone without plus": case(
        ["Id", "Name", "Home phone"], ["X", "Xena", "14155550123"], "Home phone",
        {"previewRecordData": [{"key": "Home phone", "value": "14155550123"}]},
    ),
    "phone key in capitals": case(
        ["Id", "Name", "WORKPHONE"], ["X", "Xena", "call me"], "WORKPHONE",
        {"previewRecordData": [{"key": "WORKPHONE", "value": "call me"}]},
    ),
    "SkillQueue unknown": case(
        ["Id", "Name", "SkillQueue"], ["X", "Xena", "Nope"], "SkillQueue",
        {"previewRecordData": [{"key": "SkillQueue", "value": "Nope"}]},
    ),
    "SkillQueue of another case": case(
        ["Id", "Name", "SkillQueue"], ["X", "Xena", "sales"], "SkillQueue",
        {"previewRecordData": [{"key": "SkillQueue", "value": "sales"}]},
    ),
    "ItemTimeZone bad": case(
        ["Id", "Name", "ItemTimeZone"], ["X", "Xena", "Mars/Olympus"], "ItemTimeZone",
        {"previewRecordData": [{"key": "ItemTimeZone", "value": "Mars/Olympus"}]},
    ),
    "ItemTimeZone as words": case(
        ["Id", "ItemTimeZone", "Name"], ["X", "Pacific Time", "Xena"], "ItemTimeZone",
        {"previewRecordData": [{"key": "ItemTimeZone", "value": "Pacific Time"}]},
    ),
    "value too long": case(
        ["Id", "Name", "Notes"], ["X", "Xena", "é" * 1001], "Notes",
        {"previewRecordData": [{"key": "Notes", "value": "é" * 1001}]},
    ),
    "clientId empty": case(
        ["Id", "Name"], ["", "Xena"], "clientId",
        {"clientId": "", "previewRecordData": [{"key": "Name", "value": "Xena"}]},
    ),
    "clientId blank": case(
        ["Id", "Name"], ["   ", "Xena"], "clientId",
        {"clientId": "   ", "previewRecordData": [{"key": "Name", "value": "Xena"}]},
    ),
    "clientId too long": case(
        ["Id", "Name"], ["X" * 256, "Xena"], "clientId",
        {"clientId": "X" * 256, "previewRecordData": [{"key": "Name", "value": "Xena"}]},
    ),
    "preferredAgent too long": case(
        ["Id", "Name", "preferredAgent"], ["X", "Xena", LONG], "preferredAgent",
        {"preferredAgent": LONG},
    ),
    "nextEarliestWorkTime beyond year 9999": case(
        ["Id", "Name", "nextEarliestWorkTime"], ["X", "Xena", "253402300800000"],
        "nextEarliestWorkTime", {"nextEarliestWorkTimeUTC": 253402300800000},
    ),
    "nextEarliestWorkTime in words": case(
        ["Id", "Name", "nextEarliestWorkTime"], ["X", "Xena", "tomorrow"], "nextEarliestWorkTime"
    ),
    "nextEarliestWorkTime not a real date": case(
        ["Id", "Name", "nextEarliestWorkTime"], ["X", "Xena", "2027-02-30 10:00:00.000"],
        "nextEarliestWorkTime",
    ),
    "nextEarliestWorkTime ISO 8601": case(
        ["Id", "Name", "nextEarliestWorkTime"], ["X", "Xena", "2027-01-04T15:00:00Z"],
        "nextEarliestWorkTime",
    ),
    "nextEarliestWorkTime negative": case(
        ["Id", "Name", "nextEarliestWorkTime"], ["X", "Xena", "-5"], "nextEarliestWorkTime"
    ),
    "nextEarliestWorkTime superscript digit": case(
        ["Id", "Name", "nextEarliestWorkTime"], ["X", "Xena", "\u00b2"], "nextEarliestWorkTime"
    ),
    "skillQueue unknown": case(
        ["Id", "Name", "skillQueue"], ["X", "Xena", "Nope"], "skillQueue"
    ),
    "ragged: too few fields": case(["Id", "Name", "Plan"], ["X", "Xena"], "fields"),
    "ragged: too many fields": case(["Id", "Name"], ["X", "Xena", "Gold"], "fields"),
}  # fmt: skip


def file_with(header: list[str], bad: list[str]) -> str:
    good = [GOOD.get(name, "") for name in header]
    return csv_text([header, good, bad, [f"{good[0]}2", *good[1:]]])


@pytest.mark.parametrize(
    ("header", "row", "column", "api_fields"), BAD_ROWS.values(), ids=BAD_ROWS.keys()
)
def test_a_bad_row_is_rejected_naming_its_column(
    renewals, write, load, header, row, column, api_fields
):
    counts, report = load(renewals, write(file_with(header, row)))
    assert (counts.rows, counts.added, counts.rejected) == (3, 2, 1)
    [rejected] = report
    assert rejected["line"] == "3"
    shown = row[0] if len(row[0]) <= 64 else f"{row[0][:64]}… ({len(row[0])} characters)"
    assert rejected["clientId"] == shown
    assert rejected["outcome"] == "rejected"
    assert column in rejected["reason"]
    assert "previewRecordData" not in rejected["reason"]
    assert set(tasks_of(renewals)) == {"G", "G2"}


@pytest.mark.parametrize(
    ("header", "row", "api_fields"),
    [(h, r, a) for h, r, _, a in BAD_ROWS.values() if a],
    ids=[name for name, (*_, a) in BAD_ROWS.items() if a],
)
def test_the_api_refuses_what_a_file_row_is_rejected_for(api, header, row, api_fields):
    fields = {"clientId": row[0], "previewRecordData": [{"key": "Name", "value": "Xena"}]}
    for name, value in api_fields.items():
        fields[name] = [*fields[name], *value] if name == "previewRecordData" else value
    answer = api.call("addOrUpdateCampaignRecord", **fields)
    assert answer["previewResult"]["previewResultStatus"] != "SUCCESS"
    assert api.find("X") is None


def test_a_row_rejected_on_update_leaves_the_task_as_it_was(renewals, write, load):
    load(renewals, write("Id,Name,Mobile Phone\nA,Ann,+14155550123\n", name="first.csv"))
    before = tasks_of(renewals)
    counts, report = load(renewals, write("Id,Name,Mobile Phone\nA,Ann B,0800 FLOWERS\n"))
    assert (counts.updated, counts.rejected) == (0, 1)
    assert "Mobile Phone" in report[0]["reason"]
    assert tasks_of(renewals) == before


SPECIAL_HEADER = [
    "Id", "Name", "Mobile Phone", "Home Phone", "Plan", "Balance", "Account_link",
    "Renewal script_button", "Highlight", "Hidden", "Internal Score", "SkillQueue",
    "ItemTimeZone", "preferredAgent", "nextEarliestWorkTime",
]  # fmt: skip
SPECIAL_ROW = [
    "C-1", "Ada Lovelace", "+14155550123", "", "Gold", "1250.50", "https://crm.example.com/a/1",
    "https://wiki.example.com/s", "Balance|Plan", "Internal Score", "87", "Support",
    "America/Chicago", "jane@example.com", "2027-01-04 15:00:00.250",
]  # fmt: skip
NEXT_MS = 1799074800250  # 2027-01-04 15:00:00.250 UTC


def test_special_keys_work_as_through_the_api(renewals, winback, api, write, load):
    counts, report = load(renewals, write(csv_text([SPECIAL_HEADER, SPECIAL_ROW])))
    assert (counts.added, counts.rejected) == (1, 0), report
    loaded = tasks_of(renewals)["C-1"]
    # Items in column order, no display order, the empty Home Phone absent.
    assert loaded.items == (
        ("Id", "C-1", None),
        ("Name", "Ada Lovelace", None),
        ("Mobile Phone", "+14155550123", None),
        ("Plan", "Gold", None),
        ("Balance", "1250.50", None),
        ("Account_link", "https://crm.example.com/a/1", None),
        ("Renewal script_button", "https://wiki.example.com/s", None),
        ("Highlight", "Balance|Plan", None),
        ("Hidden", "Internal Score", None),
        ("Internal Score", "87", None),
        ("SkillQueue", "Support", None),
        ("ItemTimeZone", "America/Chicago", None),
    )
    assert (loaded.queue, loaded.time_zone) == ("Support", "America/Chicago")
    assert loaded.preferred_agent == "jane@example.com"
    assert loaded.next_work == datetime(2027, 1, 4, 15, 0, 0, 250000, tzinfo=UTC)

    # The same task through the API, into another campaign, is stored the same way.
    api.campaign = "Winback"
    data = [
        {"key": k, "value": v}
        for k, v in zip(SPECIAL_HEADER[1:13], SPECIAL_ROW[1:13], strict=True)
        if v
    ]
    api.add("C-1", data, preferredAgent="jane@example.com", nextEarliestWorkTimeUTC=NEXT_MS)
    through_api = tasks_of(winback)["C-1"]
    for name in ("items", "queue", "time_zone", "preferred_agent", "next_work"):
        assert getattr(loaded, name) == getattr(through_api, name), name


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2027-01-04 15:00:00.250", datetime(2027, 1, 4, 15, 0, 0, 250000, tzinfo=UTC)),
        ("2027-01-04 15:00:00.000", datetime(2027, 1, 4, 15, tzinfo=UTC)),
        ("2027-01-04 15:00:00", datetime(2027, 1, 4, 15, tzinfo=UTC)),
        (str(NEXT_MS), datetime(2027, 1, 4, 15, 0, 0, 250000, tzinfo=UTC)),
        ("0", datetime(1970, 1, 1, tzinfo=UTC)),
    ],
)
def test_next_earliest_work_time_as_utc_text_or_epoch_ms(renewals, write, load, value, expected):
    counts, report = load(renewals, write(f"Id,nextEarliestWorkTime\nA,{value}\n"))
    assert counts.added == 1, report
    task = tasks_of(renewals)["A"]
    assert task.next_work == expected
    assert task.items == (("Id", "A", None),)


def test_system_columns_set_fields_and_are_not_data_items(renewals, write, load):
    text = (
        "Id,preferredAgent,Name,skillQueue,nextEarliestWorkTime\n"
        "A,ann@example.com,Ann,Support,1799074800000\n"
        "B,,Bob,,\n"
    )
    counts, _ = load(renewals, write(text))
    assert counts.added == 2
    tasks = tasks_of(renewals)
    assert tasks["A"].items == (("Id", "A", None), ("Name", "Ann", None))
    assert (tasks["A"].preferred_agent, tasks["A"].queue) == ("ann@example.com", "Support")
    assert tasks["A"].next_work == datetime(2027, 1, 4, 15, tzinfo=UTC)
    # Empty cells: the campaign's defaults for a new task.
    assert (tasks["B"].preferred_agent, tasks["B"].next_work) == (None, None)
    assert (tasks["B"].queue, tasks["B"].time_zone) == ("Sales", "America/New_York")


def test_exported_system_columns_are_ignored_and_listed(renewals, write, load):
    header = ["Id", "Name", *IGNORED]
    row = ["A", "Ann", "not-a-uuid", "BOGUS", "many", "x" * 300, "yesterday", "a=b|c"]
    counts, report = load(renewals, write(csv_text([header, row])))
    assert (counts.added, counts.rejected) == (1, 0), report
    assert counts.ignored_columns == list(IGNORED)
    task = tasks_of(renewals)["A"]
    assert task.items == (("Id", "A", None), ("Name", "Ann", None))
    assert task.worked_state == "NOTWORKED"
    assert task.record_id != "not-a-uuid"


def test_items_follow_the_column_order_without_display_order(renewals, write, load):
    counts, _ = load(renewals, write("Id,Zeta,Alpha,Mid,Name\nA,z,a,m,Ann\nB,,a2,,Bob\n"))
    assert counts.added == 2
    tasks = tasks_of(renewals)
    assert tasks["A"].keys == ["Id", "Zeta", "Alpha", "Mid", "Name"]
    assert {order for _, _, order in tasks["A"].items} == {None}
    assert tasks["B"].keys == ["Id", "Alpha", "Name"]


def test_an_empty_cell_means_no_such_item(renewals, write, load):
    counts, _ = load(renewals, write("Id,Name,Mobile Phone,SkillQueue,ItemTimeZone\nA,,,,\n"))
    assert counts.added == 1
    task = tasks_of(renewals)["A"]
    assert task.items == (("Id", "A", None),)
    assert (task.queue, task.time_zone) == ("Sales", "America/New_York")


def test_values_keep_their_spaces_quotes_line_breaks_and_unicode(renewals, write, load):
    values = ["  padded  ", 'say "hi", then leave', "two\nlines", "Zoë 東京 🚀"]
    header = ["Id", "A", "B", "C", "D"]
    counts, _ = load(renewals, write(csv_text([header, ["K", *values]])))
    assert counts.added == 1
    assert tasks_of(renewals)["K"].data == dict(zip(header, ["K", *values], strict=True))


def test_another_campaigns_field_name_may_be_a_data_column(accounts, write, load):
    counts, report = load(accounts, write("AccountNo,Id,Name\nA-1,legacy-7,Ann\n"))
    assert (counts.added, counts.rejected) == (1, 0), report
    assert tasks_of(accounts)["A-1"].items == (
        ("AccountNo", "A-1", None),
        ("Id", "legacy-7", None),
        ("Name", "Ann", None),
    )
