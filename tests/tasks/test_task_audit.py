"""Every change of a task leaves one audit record and one event, in its own transaction.

The record keeps the task's fields before and after in the API's names; the event's data is
the task as search returns it (plus its campaignName), ordered per task by previewRecordID.
A refused change leaves neither. Through the services (as the system), then the API door.
"""

from __future__ import annotations

import inspect
import json

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import ApiKey, AuditRecord, Event, WorkCode
from app.services.actors import Actor
from app.services.errors import ServiceError
from app.services.tasks import changes as tasks
from app.services.tasks.changes import Locator, TaskChanges
from app.services.tasks.snapshots import task_snapshot
from app.services.tasks.validation import ItemInput
from app.wire.tasks import shown
from app.wire.times import sent_time

ACTOR = Actor.system("test")
NEXT_MS = 1767225600123  # 2026-01-01 00:00:00.123 UTC
NEXT_TIME = "nextEarliestWorkTimeUTC"


def task_records() -> list[AuditRecord]:
    db.session.expire_all()
    return list(
        db.session.scalars(
            select(AuditRecord).where(AuditRecord.entity_kind == "task").order_by(AuditRecord.id)
        )
    )


def task_events() -> list[Event]:
    return list(
        db.session.scalars(select(Event).where(Event.type.startswith("task.")).order_by(Event.id))
    )


def add(campaign, client_id: str = "C1", **options):
    task, _ = tasks.add_or_update_task(
        campaign, client_id, [ItemInput("Name", "Ann"), ItemInput("Plan", "Gold", 1)],
        actor=ACTOR, **options,
    )  # fmt: skip
    db.session.commit()
    return task


def items(task: dict) -> dict:
    """A recorded task's data items: key -> value, or (value, displayOrder)."""
    return {
        item["key"]: (item["value"], item["displayOrder"])
        if "displayOrder" in item
        else item["value"]
        for item in task["previewRecordData"]
    }


def last_change() -> tuple[AuditRecord, Event]:
    return task_records()[-1], task_events()[-1]


@pytest.mark.parametrize(
    "function",
    [
        tasks.add_or_update_task,
        tasks.add_task,
        tasks.change_status,
        tasks.transfer_task,
        tasks.delete_task,
    ],
)
def test_every_task_change_requires_its_actor(function):
    actor = inspect.signature(function).parameters["actor"]
    assert actor.kind is inspect.Parameter.KEYWORD_ONLY
    assert actor.default is inspect.Parameter.empty


def test_an_added_task_is_recorded_with_its_fields_after(renewals):
    task = add(renewals)
    audit, event = last_change()
    assert (audit.action, audit.entity_kind, audit.entity_id) == (
        "task.added",
        "task",
        task.record_id,
    )
    assert (audit.actor_kind, audit.actor_id, audit.tenant_id) == (
        "system",
        "test",
        renewals.tenant_id,
    )
    assert audit.before is None
    assert audit.after["previewRecordID"] == task.record_id
    assert audit.after["campaignName"] == "Renewals"
    assert audit.after["workedState"] == "NOTWORKED"
    assert items(audit.after) == {"Id": "C1", "Name": "Ann", "Plan": ("Gold", 1)}
    assert (event.type, event.subject, event.tenant_id) == (
        "task.added",
        task.record_id,
        renewals.tenant_id,
    )
    assert event.payload["data"] == {**audit.after, "actor": {"kind": "system", "id": "test"}}


def test_an_update_records_the_data_before_and_after(renewals):
    task = add(renewals)
    tasks.add_or_update_task(
        renewals, "C1", [ItemInput("Name", "Ann"), ItemInput("Plan", "Silver")],
        preferred_agent="agent7", actor=ACTOR,
    )  # fmt: skip
    db.session.commit()
    audit, event = last_change()
    assert (audit.action, event.type, event.subject) == ("task.updated",) * 2 + (task.record_id,)
    assert items(audit.before)["Plan"] == ("Gold", 1)
    assert items(audit.after)["Plan"] == "Silver"
    assert (audit.before["preferredAgent"], audit.after["preferredAgent"]) == (None, "agent7")
    assert len(task_records()) == len(task_events()) == 2


def test_what_an_add_or_update_records_after_is_the_task_as_stored(renewals):
    """The fields after are made from what was written, not read back: they must be the
    stored task's, its items in order with their display orders and its work codes."""
    task = add(renewals)
    assert last_change()[0].after == shown(task_snapshot(task))
    db.session.add(WorkCode(task_id=task.id, key="Outcome", value="Sale", position=0))
    db.session.commit()
    tasks.add_or_update_task(
        renewals, "C1", [ItemInput("Plan", "Silver", 3), ItemInput("Name", "Bo")],
        preferred_agent="agent7", actor=ACTOR,
    )  # fmt: skip
    db.session.commit()
    after = last_change()[0].after
    assert after == shown(task_snapshot(task))
    assert after["workCodes"] == [{"key": "Outcome", "value": "Sale"}]


def test_a_status_change_records_the_state_before_and_after(renewals):
    task = add(renewals)
    tasks.change_status(
        renewals, Locator(record_id=task.record_id), "WORKED",
        TaskChanges(next_earliest=sent_time(NEXT_MS, NEXT_TIME), skill_queue="Support"),
        actor=ACTOR,
    )  # fmt: skip
    db.session.commit()
    audit, event = last_change()
    assert (audit.action, event.type) == ("task.status_changed", "task.status_changed")
    assert (audit.before["workedState"], audit.after["workedState"]) == ("NOTWORKED", "WORKED")
    assert (audit.before["skillQueue"], audit.after["skillQueue"]) == ("Sales", "Support")
    assert audit.after["nextEarliestWorkTime"] == "2026-01-01 00:00:00.123"
    assert event.payload["data"]["workedState"] == "WORKED"


def test_a_transfer_records_both_campaigns(renewals):
    task = add(renewals)
    tasks.transfer_task(renewals, Locator(client_id="C1"), "Winback", TaskChanges(), actor=ACTOR)
    db.session.commit()
    audit, event = last_change()
    assert audit.action == "task.transferred"
    assert (audit.before["campaignName"], audit.after["campaignName"]) == ("Renewals", "Winback")
    assert (audit.before["skillQueue"], audit.after["skillQueue"]) == ("Sales", "Support")
    data = event.payload["data"]
    assert (data["fromCampaign"], data["toCampaign"], data["campaignName"]) == (
        "Renewals", "Winback", "Winback",
    )  # fmt: skip
    assert event.subject == task.record_id


def test_a_deletion_records_the_task_as_it_was(renewals):
    task = add(renewals)
    tasks.delete_task(renewals, Locator(client_id="C1"), actor=ACTOR)
    db.session.commit()
    audit, event = last_change()
    assert (audit.action, audit.after) == ("task.deleted", None)
    assert audit.before["previewRecordID"] == task.record_id
    assert event.type == "task.deleted"
    assert event.payload["data"]["previewRecordID"] == task.record_id
    assert event.payload["data"]["clientId"] == "C1"


def test_add_task_records_one_addition(renewals):
    tasks.add_task(renewals, "C9", [ItemInput("Name", "Cy")], actor=ACTOR)
    db.session.commit()
    assert [r.action for r in task_records()] == ["task.added"]
    assert [e.type for e in task_events()] == ["task.added"]


REFUSALS = {
    "add: bad clientId": lambda c, t: tasks.add_or_update_task(c, "", [], actor=ACTOR),
    "add_task: clientId taken": lambda c, t: tasks.add_task(c, "C1", [], actor=ACTOR),
    "update: stale version": lambda c, t: tasks.add_or_update_task(
        c, "C1", [ItemInput("Name", "B")], expected_version=t.version - 1, actor=ACTOR
    ),
    "status: unknown state": lambda c, t: tasks.change_status(
        c, Locator(client_id="C1"), "DONE", TaskChanges(), actor=ACTOR
    ),
    "status: unknown queue": lambda c, t: tasks.change_status(
        c, Locator(client_id="C1"), "COMPLETED", TaskChanges(skill_queue="Nope"), actor=ACTOR
    ),
    "transfer: unknown campaign": lambda c, t: tasks.transfer_task(
        c, Locator(client_id="C1"), "Nowhere", TaskChanges(), actor=ACTOR
    ),
    "delete: no such task": lambda c, t: tasks.delete_task(c, Locator(client_id="C2"), actor=ACTOR),
}


@pytest.mark.parametrize("refusal", REFUSALS)
def test_a_refused_change_leaves_no_record_and_no_event(renewals, refusal):
    task = add(renewals)
    counts = len(task_records()), len(task_events())
    with pytest.raises(ServiceError):
        REFUSALS[refusal](renewals, task)
    db.session.rollback()  # as every door does on a refusal
    assert (len(task_records()), len(task_events())) == counts == (1, 1)


# --- The API door -------------------------------------------------------------------------


def key_id(acme) -> int:
    return db.session.scalar(select(ApiKey.id).filter_by(tenant_id=acme.id))


def test_each_api_action_acts_as_the_callers_key(api, acme):
    api.add("C1")
    record_id = api.find("C1")["previewRecordID"]
    api.add("C1", {"Name": "Bea"})
    change = {"previewRecordStateEnum": "COMPLETED", "clientId": "C1"}
    assert api.status("changeCampaignRecordStatus", **change) == "SUCCESS"
    move = {"clientId": "C1", "transferToCampaign": "Winback"}
    assert api.status("transferCampaignRecord", **move) == "SUCCESS"
    api.campaign = "Winback"
    assert api.status("deleteRecordFromCampaign", clientId="C1") == "SUCCESS"
    records = task_records()
    assert [r.action for r in records] == [
        "task.added", "task.updated", "task.status_changed", "task.transferred", "task.deleted",
    ]  # fmt: skip
    assert {(r.actor_kind, r.actor_id, r.entity_id) for r in records} == {
        ("api_key", str(key_id(acme)), record_id)
    }
    assert [e.type for e in task_events()] == [r.action for r in records]
    assert {e.subject for e in task_events()} == {record_id}


def test_the_event_carries_the_task_as_search_returns_it(api):
    api.add("C1", [{"key": "Name", "value": "Ann", "displayOrder": 2}], preferredAgent="bob")
    change = {"previewRecordStateEnum": "COMPLETED", "clientId": "C1"}
    api.status("changeCampaignRecordStatus", **change)
    found = api.find("C1")
    data = task_events()[-1].payload["data"]
    assert {k: v for k, v in data.items() if k != "actor"} == {**found, "campaignName": "Renewals"}


API_REFUSALS = [
    ("addOrUpdateCampaignRecord", {"clientId": "", "previewRecordData": []}),
    ("addOrUpdateCampaignRecord", {"clientId": "C1", "previewRecordData": "nope"}),
    ("changeCampaignRecordStatus", {"clientId": "C1", "previewRecordStateEnum": "DONE"}),
    ("changeCampaignRecordStatus", {"clientId": "C1", "previewRecordStateEnum": "WORKED"}),
    ("transferCampaignRecord", {"clientId": "C1", "transferToCampaign": "Nowhere"}),
    ("deleteRecordFromCampaign", {"clientId": "nobody"}),
    ("deleteRecordFromCampaign", {"clientId": "C1", "campaignName": "Nowhere"}),
]


@pytest.mark.parametrize(("action", "fields"), API_REFUSALS)
def test_a_refused_api_call_leaves_no_record_and_no_event(api, action, fields):
    api.add("C1")
    assert api.call(action, **fields)["previewResult"]["previewResultStatus"] != "SUCCESS"
    assert (len(task_records()), len(task_events())) == (1, 1)


def test_a_call_with_a_wrong_key_leaves_nothing(api):
    api.key = "wrong"
    assert api.post("addOrUpdateCampaignRecord", clientId="C1").status_code == 401
    assert (task_records(), task_events()) == ([], [])


def test_no_key_and_no_hash_appear_in_the_trail_or_the_events(api, acme):
    api.add("C1", {"Name": "Ann", "Token": "t0k3n"})
    api.status("changeCampaignRecordStatus", clientId="C1", previewRecordStateEnum="COMPLETED")
    stored = db.session.scalar(select(ApiKey.key_hash).filter_by(tenant_id=acme.id))
    everything = json.dumps(
        [[r.before, r.after, r.actor_id] for r in task_records()]
        + [e.payload for e in task_events()]
    )
    assert api.key not in everything and stored not in everything
    assert "t0k3n" in everything  # the task's own data is kept as it is


# --- What an add writes, through the service ----------------------------------------------


def test_an_add_through_the_service_sends_four_inserts_and_reads_nothing(renewals):
    """The plan is checked from what the door read (the campaign's row): the add itself
    reads nothing, a task, its items, its record and its event written once each."""
    from sqlalchemy import event

    campaign = tasks.campaign_row(renewals.tenant_id, "Renewals")
    db.session.flush()
    sent: list[str] = []

    def keep(_conn, _cursor, statement, _parameters, _context, _many) -> None:
        if not statement.startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            sent.append(" ".join(statement.split()[:3]))

    event.listen(db.engine, "before_cursor_execute", keep)
    try:
        added = tasks.add_or_update_record(campaign, "N1", [ItemInput("Name", "Ann")], actor=ACTOR)
    finally:
        event.remove(db.engine, "before_cursor_execute", keep)
    assert added
    assert sent == [
        "INSERT INTO tasks",
        "INSERT INTO task_items",
        "INSERT INTO audit_records",
        "INSERT INTO events",
    ]
    (record,) = task_records()
    assert record.after["clientId"] == "N1"
    assert record.after["skillQueue"] == "Sales"
