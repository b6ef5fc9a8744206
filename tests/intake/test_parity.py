"""One write path: the same tasks added and updated through the API and through an intake
file end up the same, as search returns them (ids and times aside)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Campaign, Task
from app.services.campaigns.catalogue import create_campaign
from app.services.intake.load import load_file
from app.services.intake.writer import Planned, write_batch
from app.services.tasks.changes import Locator, TaskChanges, add_or_update_task, change_status
from app.services.tasks.validation import ItemInput, plan_task
from app.wire.times import sent_time
from tests.conftest import SETUP
from tests.intake.conftest import csv_text, tasks_of

NEXT_MS = 1893573000000  # 2030-01-02 08:30:00 UTC
NEXT_TIME = "nextEarliestWorkTimeUTC"
LATER_MS = 1935817689010  # 2031-05-06 07:08:09.010 UTC
HEADER = ["Id", "Name", "Phone", "Plan", "SkillQueue", "ItemTimeZone",
          "preferredAgent", "nextEarliestWorkTime"]  # fmt: skip
DATA = HEADER[1:6]
# Differ legitimately between two campaigns: ids and the times of writing.
UNCOMPARED = ("previewRecordID", "createdTime", "lastUpdatedTime")


@dataclass(frozen=True)
class Case:
    """One task: how it exists before (added through the API, then worked), and the row."""

    client_id: str
    row: dict[str, str]
    before: dict | None = None  # keyword arguments of Api.add
    before_data: list[dict] = field(default_factory=list)


CASES = [
    # Adds: campaign defaults, special keys and system columns, epoch-millisecond times.
    Case("N1", {"Name": "Ann", "Phone": "+14155550123", "Plan": "Gold"}),
    Case(
        "N2",
        {
            "Name": "Bob",
            "Plan": "Plus",
            "SkillQueue": "Support",
            "ItemTimeZone": "Asia/Tokyo",
            "preferredAgent": "agent.b",
            "nextEarliestWorkTime": "2031-05-06 07:08:09.010",
        },
    ),  # fmt: skip
    Case(
        "N3",
        {
            "Name": "Cy",
            "Phone": "+442071234567",
            "ItemTimeZone": "Europe/Paris",
            "nextEarliestWorkTime": str(NEXT_MS),
        },
    ),  # fmt: skip
    # Updates: everything an update leaves alone stays (state, queue, zone, agent, time).
    Case(
        "U1",
        {"Name": "Ursula", "Plan": "Gold"},
        before={"preferredAgent": "old.agent", "nextEarliestWorkTimeUTC": NEXT_MS},
        before_data=[
            {"key": "Name", "value": "Old name"},
            {"key": "Plan", "value": "Silver", "displayOrder": 2},
            {"key": "Extra", "value": "dropped on update", "displayOrder": 1},
            {"key": "SkillQueue", "value": "Support"},
            {"key": "ItemTimeZone", "value": "Europe/Paris"},
        ],
    ),
    # The clientId stays under the key the task was added with; every field changes.
    Case(
        "U2",
        {
            "Name": "Vic",
            "SkillQueue": "Support",
            "ItemTimeZone": "Asia/Tokyo",
            "preferredAgent": "new.agent",
            "nextEarliestWorkTime": "2031-05-06 07:08:09.010",
        },
        before={"clientIdFieldName": "AccountNo", "preferredAgent": "old.agent"},
        before_data=[{"key": "Name", "value": "Old"}],
    ),  # fmt: skip
    # The column order of the file is the item order, as the order the API sends them in.
    Case(
        "U3",
        {"Name": "Wu", "Phone": "+14155550199", "Plan": "Basic"},
        before={"preferredAgent": "old.agent"},
        before_data=[{"key": "Plan", "value": "Old", "displayOrder": 1}],
    ),
]


@pytest.fixture
def twins(acme) -> tuple[Campaign, Campaign]:
    """Two campaigns alike: one written through the API, one through a file."""
    by_api = create_campaign(acme, "By API", "Sales", "America/New_York", actor=SETUP)
    by_file = create_campaign(acme, "By file", "Sales", "America/New_York", actor=SETUP)
    db.session.commit()
    return by_api, by_file


def api_fields(row: dict[str, str]) -> tuple[list[dict], dict]:
    """The row as the API sends it: data items in column order, and the optional fields."""
    data = [{"key": key, "value": row[key]} for key in DATA if row.get(key)]
    fields = {}
    if row.get("preferredAgent"):
        fields["preferredAgent"] = row["preferredAgent"]
    if when := row.get("nextEarliestWorkTime"):
        fields["nextEarliestWorkTimeUTC"] = NEXT_MS if when == str(NEXT_MS) else LATER_MS
    return data, fields


def searched(api, campaign: Campaign, client_id: str) -> dict:
    api.campaign = campaign.name
    found = api.find(client_id)
    assert found is not None, client_id
    return {name: value for name, value in found.items() if name not in UNCOMPARED}


def stored(campaign: Campaign, client_id: str) -> tuple:
    """What search does not show: the task's time zone and version."""
    task = db.session.scalar(select(Task).filter_by(campaign_id=campaign.id, client_id=client_id))
    return task.time_zone, task.version


def test_the_api_and_a_file_add_and_update_tasks_alike(api, twins, write, tmp_path):
    by_api, by_file = twins
    for case in CASES:
        if case.before is not None:
            for campaign in twins:
                api.campaign = campaign.name
                api.add(case.client_id, case.before_data, **case.before)
                change_status(campaign, Locator(client_id=case.client_id), "WORKED",
                              TaskChanges(next_earliest=sent_time(NEXT_MS, NEXT_TIME)),
                              actor=SETUP)  # fmt: skip
                db.session.commit()

    api.campaign = by_api.name
    for case in CASES:
        data, fields = api_fields(case.row)
        answer = api.add(case.client_id, data, **fields)
        assert answer["previewResult"]["previewResultStatus"] == "SUCCESS", answer
    rows = [HEADER] + [
        [case.client_id, *(case.row.get(n, "") for n in HEADER[1:])] for case in CASES
    ]
    counts = load_file(by_file, write(csv_text(rows)), tmp_path / "report.csv", actor=SETUP)
    assert (counts.added, counts.updated, counts.rejected) == (3, 3, 0)

    for case in CASES:
        assert searched(api, by_file, case.client_id) == searched(api, by_api, case.client_id)
        assert stored(by_file, case.client_id) == stored(by_api, case.client_id)
    # What the table means to cover, checked once on the file's side.
    assert searched(api, by_file, "U2")["previewRecordData"][0] == {
        "key": "AccountNo",
        "value": "U2",
    }
    assert searched(api, by_file, "U1")["workedState"] == "WORKED"
    assert stored(by_file, "U1") == ("Europe/Paris", 3)


def test_an_intake_update_keeps_the_client_id_key_the_task_was_added_with(
    api, renewals, write, load
):
    api.add("A", {"Name": "Ann"}, clientIdFieldName="AccountNo")
    counts, report = load(renewals, write("Id,Name\nA,Ann Lee\n"))
    assert counts.updated == 1, report
    assert tasks_of(renewals)["A"].items == (("AccountNo", "A", None), ("Name", "Ann Lee", None))


def test_a_row_with_a_column_named_as_the_tasks_client_id_key_is_rejected_as_by_the_api(
    api, renewals, write, load
):
    api.add("A", {"Name": "Ann"}, clientIdFieldName="AccountNo")
    refused = api.add("A", {"Name": "Ann", "AccountNo": "A"})
    assert refused["previewResult"]["previewResultStatus"] == "INVALIDRECORDDATAKEY"
    for dry_run in (True, False):
        counts, report = load(renewals, write("Id,Name,AccountNo\nA,Ann,X\n"), dry_run=dry_run)
        assert (counts.updated, counts.rejected) == (0, 1)
        assert report[0]["line"] == "2"
        assert "column 'AccountNo'" in report[0]["reason"]
    assert tasks_of(renewals)["A"].data == {"AccountNo": "A", "Name": "Ann"}


@pytest.mark.parametrize("agent", ["new.agent", "", None], ids=["set", "cleared", "unchanged"])
def test_the_bulk_writer_applies_a_preferred_agent_as_the_api_does(acme, twins, agent):
    """A file never clears an agent (an empty cell leaves it); the writer's rule still must."""
    for campaign in twins:
        add_or_update_task(
            campaign, "A", [ItemInput("Name", "Ann")], preferred_agent="old", actor=SETUP
        )
    db.session.commit()
    by_api, by_file = twins
    add_or_update_task(by_api, "A", [ItemInput("Name", "Ann")], preferred_agent=agent, actor=SETUP)
    plan = plan_task(acme, "A", [ItemInput("Name", "Ann")], "Id", preferred_agent=agent)
    write_batch(by_file, [Planned(plan, None)], actor=SETUP)
    db.session.commit()
    assert tasks_of(by_file)["A"].preferred_agent == tasks_of(by_api)["A"].preferred_agent
    assert stored(by_file, "A") == stored(by_api, "A") == ("America/New_York", 2)
