"""Export: the clientId column first, every data key, the system fields; filtered by a
search; streamed; and loaded back as the same tasks."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.models import Task, WorkCode
from app.services.intake.export import SYSTEM_COLUMNS, export_csv
from app.services.search.criteria import Condition, Criterion
from tests.intake.conftest import tasks_of

NEXT_MS = 1893573000000  # 2030-01-02 08:30:00 UTC
SYSTEM = [
    "previewRecordID",
    "workedState",
    "workAttempts",
    "lastAttemptAgent",
    "lastAttemptTime",
    "nextEarliestWorkTime",
    "skillQueue",
    "preferredAgent",
    "workCodes",
]
NOTES = 'said "call back", then\nhung up; 50% sure'


def exported(campaign, criteria=()) -> list[dict]:
    text = "".join(export_csv(campaign, list(criteria)))
    return list(csv.DictReader(io.StringIO(text, newline="")))


def header_of(campaign, criteria=()) -> list[str]:
    first = next(iter(export_csv(campaign, list(criteria))))
    return next(csv.reader(io.StringIO(first, newline="")))


@pytest.fixture
def seeded(api, renewals):
    """Tasks in Renewals through the API; D has been worked."""
    api.add(
        "A",
        {
            "Name": "Ann",
            "Plan": "Gold",
            "Mobile Phone": "+14155550123",
            "Notes": NOTES,
            "SkillQueue": "Support",
            "ItemTimeZone": "Asia/Tokyo",
        },
        preferredAgent="ann.agent",
        nextEarliestWorkTimeUTC=NEXT_MS,
    )
    api.add("B", {"Name": "Bob", "Plan": "Silver", "Balance": "12.50"})
    api.add("C", {"Name": "Zoë 東京", "Plan": "Gold", "Highlight": "Plan|Name"})
    api.add("D", {"Name": "Di", "Plan": "Bronze"})
    task = db.session.scalar(db.select(Task).filter_by(client_id="D"))
    task.worked_state = "WORKED"
    task.work_attempts = 2
    task.last_attempt_agent = "agent.smith"
    task.last_attempt_at = datetime(2029, 12, 31, 23, 59, 58, 123000, tzinfo=UTC)
    task.work_codes = [
        WorkCode(key="Outcome", value="Renewed", position=0),
        WorkCode(key="Reason", value="Price", position=1),
    ]
    db.session.commit()
    return renewals


def test_the_columns_client_id_first_data_keys_then_system_fields(seeded):
    assert list(SYSTEM_COLUMNS) == SYSTEM
    data = ["Name", "Plan", "Balance", "Highlight", "Mobile Phone", "Notes", "SkillQueue"]
    assert header_of(seeded) == ["Id", *data, "ItemTimeZone", *SYSTEM]


def test_the_values_of_each_column(seeded):
    rows = {row["Id"]: row for row in exported(seeded)}
    tasks = tasks_of(seeded)
    assert list(rows) == ["A", "B", "C", "D"]
    assert rows["A"] == {
        "Id": "A",
        "Name": "Ann",
        "Plan": "Gold",
        "Balance": "",
        "Highlight": "",
        "Mobile Phone": "+14155550123",  # E.164 as it is: it runs nothing
        "Notes": NOTES,
        "SkillQueue": "Support",
        "ItemTimeZone": "Asia/Tokyo",
        "previewRecordID": tasks["A"].record_id,
        "workedState": "NOTWORKED",
        "workAttempts": "0",
        "lastAttemptAgent": "",
        "lastAttemptTime": "",
        "nextEarliestWorkTime": "2030-01-02 08:30:00.000",
        "skillQueue": "Support",
        "preferredAgent": "ann.agent",
        "workCodes": "",
    }
    assert rows["C"]["Name"] == "Zoë 東京"
    assert rows["B"]["skillQueue"] == "Sales"  # the campaign's default
    worked = rows["D"]
    assert (worked["workedState"], worked["workAttempts"]) == ("WORKED", "2")
    assert worked["lastAttemptAgent"] == "agent.smith"
    assert worked["lastAttemptTime"] == "2029-12-31 23:59:58.123"
    assert worked["workCodes"] == "Outcome=Renewed|Reason=Price"


def test_the_client_id_column_is_named_as_in_intake(api, accounts):
    api.campaign = "Accounts"
    api.add("A-1", {"Name": "Ann"})
    assert header_of(accounts) == ["AccountNo", "Name", *SYSTEM]
    [row] = exported(accounts)
    assert (row["AccountNo"], row["Name"]) == ("A-1", "Ann")


def test_an_empty_campaign_exports_the_header_alone(renewals):
    text = "".join(export_csv(renewals, []))
    assert text == ",".join(["Id", *SYSTEM]) + "\r\n"


@pytest.mark.parametrize(
    ("criteria", "ids", "keys"),
    [
        ([("Plan", "EQUALS", "Gold")], ["A", "C"], ["Name", "Plan", "Highlight", "Mobile Phone"]),
        ([("Balance", "GREATERTHAN", "10")], ["B"], ["Name", "Plan", "Balance"]),
        ([("sys_worked_state", "EQUALS", "WORKED")], ["D"], ["Name", "Plan"]),
        ([("Plan", "EQUALS", "Gold"), ("Name", "BEGINSWITH", "Zo")], ["C"], ["Name", "Plan"]),
        ([("Plan", "EQUALS", "Platinum")], [], []),
    ],
)
def test_a_search_filters_the_export(seeded, criteria, ids, keys):
    chosen = [Criterion(k, Condition(c), v) for k, c, v in criteria]
    rows = exported(seeded, chosen)
    assert [row["Id"] for row in rows] == ids
    assert header_of(seeded, chosen)[: len(keys) + 1] == ["Id", *keys]
    # The data keys are those of the matching tasks only.
    tasks = tasks_of(seeded)
    matching_keys = {key for client_id in ids for key in tasks[client_id].keys}
    assert set(header_of(seeded, chosen)) - set(SYSTEM) == {"Id"} | matching_keys


def test_another_campaigns_tasks_stay_out(api, seeded):
    api.campaign = "Winback"
    api.add("W", {"Name": "Wendy", "Region": "North"})
    assert [row["Id"] for row in exported(seeded)] == ["A", "B", "C", "D"]
    assert "Region" not in header_of(seeded)


def without_ids(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "previewRecordID"} for row in rows]


def test_export_intake_export_gives_back_the_same_tasks(api, renewals, winback, write, load):
    api.add("A", {"Name": "Ann", "Plan": "Gold", "Notes": NOTES, "SkillQueue": "Support"},
            preferredAgent="ann.agent", nextEarliestWorkTimeUTC=NEXT_MS)  # fmt: skip
    api.add("B", {"Name": "Bob", "Plan": "Silver", "Home Phone": "+442071234567"})
    api.add("C", {"Name": "  spaced  ", "ItemTimeZone": "America/Chicago", "Score": "-1.5e3"},
            nextEarliestWorkTimeUTC=NEXT_MS + 1)  # fmt: skip
    first = "".join(export_csv(renewals, []))

    counts, report = load(winback, write(first, name="renewals.csv"))
    assert (counts.added, counts.rejected) == (3, 0), report
    assert counts.ignored_columns == [
        "previewRecordID", "workedState", "workAttempts", "lastAttemptAgent", "lastAttemptTime",
        "workCodes",
    ]  # fmt: skip

    again = list(csv.DictReader(io.StringIO("".join(export_csv(winback, [])), newline="")))
    assert without_ids(again) == without_ids(list(csv.DictReader(io.StringIO(first, newline=""))))
    original, copy = tasks_of(renewals), tasks_of(winback)
    for client_id in "ABC":
        for name in ("items", "preferred_agent", "next_work", "queue"):
            assert getattr(copy[client_id], name) == getattr(original[client_id], name), name
    assert copy["B"].queue == "Sales"  # Renewals' default, named in the skillQueue column
    assert copy["C"].time_zone == "America/Chicago"


def test_a_worked_task_loads_back_as_a_fresh_task_with_the_same_data(seeded, winback, write, load):
    text = "".join(export_csv(seeded, [Criterion("sys_worked_state", Condition.EQUALS, "WORKED")]))
    counts, _ = load(winback, write(text))
    assert counts.added == 1
    copy = tasks_of(winback)["D"]
    assert copy.worked_state == "NOTWORKED"
    assert copy.items == tasks_of(seeded)["D"].items
    assert copy.record_id != tasks_of(seeded)["D"].record_id


def test_the_export_is_streamed_a_thousand_tasks_at_a_time(renewals, write, load):
    rows = "".join(f"T{n:05d},Customer {n},{n % 7}\n" for n in range(2500))
    counts, _ = load(renewals, write("Id,Name,Group\n" + rows))
    assert counts.added == 2500
    stream = export_csv(renewals, [])
    first = next(stream)
    assert first.count("\n") <= 1001  # the header and one chunk, not the whole campaign
    chunks = [first, *stream]
    filled = [chunk for chunk in chunks if chunk]
    assert len(filled) >= 3
    assert all(chunk.count("\n") <= 1001 for chunk in chunks)
    parsed = list(csv.DictReader(io.StringIO("".join(chunks), newline="")))
    assert [row["Id"] for row in parsed] == [f"T{n:05d}" for n in range(2500)]
    assert parsed[-1]["Name"] == "Customer 2499"
