"""Editing a campaign's settings (the service), and the `campaign` commands of its life."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, Campaign, Event, Task
from app.services.campaigns import catalogue as campaigns
from app.services.campaigns import life_cycle as campaign_status
from app.services.errors import InvalidInput
from tests.cli.test_commands import assert_fails
from tests.conftest import SETUP


def stored(campaign: Campaign) -> tuple:
    db.session.expire_all()
    found = db.session.get(Campaign, campaign.id)
    return found.type, found.default_skill_queue.name, found.default_time_zone, found.status


def records(action: str) -> list[AuditRecord]:
    return list(db.session.scalars(select(AuditRecord).filter_by(action=action)))


def event_data(kind: str) -> list[dict]:
    rows = db.session.scalars(select(Event).where(Event.type == kind).order_by(Event.id))
    return [row.payload["data"] for row in rows]


def count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


# --- editing ----------------------------------------------------------------------------


def test_an_edit_records_only_what_changed_and_tells_receivers_what_it_was(renewals):
    changed = campaigns.update_campaign(
        renewals, skill_queue="Support", time_zone="America/New_York", actor=SETUP
    )
    db.session.commit()
    assert changed == ["skillQueue"]  # the zone was already America/New_York
    assert stored(renewals) == ("preview", "Support", "America/New_York", "ACTIVE")
    [record] = records("campaign.updated")
    assert (record.entity_kind, record.entity_id) == ("campaign", str(renewals.id))
    assert (record.before, record.after) == ({"skillQueue": "Sales"}, {"skillQueue": "Support"})
    [event] = event_data("campaign.updated")
    assert event["skillQueue"] == "Support" and event["previous"] == {"skillQueue": "Sales"}
    assert event["campaignName"] == "Renewals"


def test_an_edit_changing_nothing_records_nothing(renewals):
    assert campaigns.update_campaign(renewals, campaign_type="preview", actor=SETUP) == []
    db.session.commit()
    assert records("campaign.updated") == [] and event_data("campaign.updated") == []


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"skill_queue": "Nope"}, "skill queue 'Nope'"),
        ({"time_zone": "Mars/Olympus"}, "time zone"),
        ({"time_zone": "localtime"}, "time zone"),
        ({"campaign_type": "predictive"}, "campaign type 'predictive'"),
        ({"skill_queue": "Support", "time_zone": "Nowhere"}, "time zone"),
    ],
)
def test_a_bad_setting_is_refused_by_name_and_nothing_changes(renewals, fields, words):
    before = stored(renewals)
    with pytest.raises(InvalidInput, match=words):
        campaigns.update_campaign(renewals, **fields, actor=SETUP)
    db.session.rollback()
    assert stored(renewals) == before
    assert records("campaign.updated") == []


def test_new_tasks_take_the_new_defaults_and_old_ones_keep_theirs(renewals, api):
    api.add("old")
    campaigns.update_campaign(renewals, skill_queue="Support", time_zone="Asia/Tokyo", actor=SETUP)
    db.session.commit()
    api.add("new")
    assert api.find("old")["skillQueue"] == "Sales"
    assert api.find("new")["skillQueue"] == "Support"
    zones = dict(db.session.execute(select(Task.client_id, Task.time_zone)).all())
    assert zones == {"old": "America/New_York", "new": "Asia/Tokyo"}


# --- the commands -------------------------------------------------------------------------


def cli(runner, *args: str):
    return runner.invoke(args=["campaign", *args])


@pytest.mark.parametrize(
    ("steps", "said", "status", "moves"),
    [
        (["pause"], "is paused", "PAUSED", 1),
        (["pause", "resume"], "is resumed", "ACTIVE", 2),
        (["archive"], "is archived", "ARCHIVED", 1),
        (["archive", "restore"], "is restored, paused", "PAUSED", 2),
        (["pause", "pause"], "was already paused; nothing changed", "PAUSED", 1),
        (["resume"], "was not paused; nothing changed", "ACTIVE", 0),
    ],
)
def test_the_cli_moves_a_campaign_through_its_life(runner, renewals, steps, said, status, moves):
    for step in steps:
        result = cli(runner, step, "Acme", "prod", "Renewals")
        assert result.exit_code == 0, result.output
    assert said in result.output
    assert stored(renewals)[3] == status
    trail = db.session.scalars(select(AuditRecord).where(AuditRecord.entity_kind == "campaign"))
    changes = [record for record in trail if record.action != "campaign.added"]
    assert len(changes) == moves  # a move to the status it has records nothing
    assert {(record.actor_kind, record.entity_id) for record in changes} <= {
        ("operator", str(renewals.id))
    }


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["pause", "Acme", "prod", "Nope"], ["campaign 'Nope'"]),
        (["pause", "Acme", "test", "Renewals"], ["test"]),
        (["edit", "Acme", "prod", "Renewals"], ["--time-zone, --type or --zone-from"]),
        (["edit", "Acme", "prod", "Renewals", "--skill-queue", "Nope"], ["skill queue 'Nope'"]),
        (["edit", "Acme", "prod", "Renewals", "--time-zone", "Mars/Base"], ["time zone"]),
    ],
)
def test_the_cli_refuses_in_one_line_and_changes_nothing(runner, renewals, args, words):
    before, trail = stored(renewals), count(AuditRecord)
    assert_fails(cli(runner, *args), *words)
    assert stored(renewals) == before
    assert count(AuditRecord) == trail


def test_the_cli_refuses_to_pause_an_archived_campaign(runner, renewals):
    campaign_status.archive(renewals, actor=SETUP)
    db.session.commit()
    assert_fails(cli(runner, "pause", "Acme", "prod", "Renewals"), "restore it first")
    assert stored(renewals)[3] == "ARCHIVED"


def test_the_cli_edits_a_campaign(runner, renewals):
    result = cli(
        runner, "edit", "Acme", "prod", "Renewals", "--skill-queue", "Support",
        "--time-zone", "Europe/Paris", "--type", "progressive",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "progressive, default queue Support, default zone Europe/Paris" in result.output
    assert stored(renewals) == ("progressive", "Support", "Europe/Paris", "ACTIVE")
    [record] = records("campaign.updated")
    assert record.actor_kind == "operator"
    after = {"type": "progressive", "skillQueue": "Support", "timeZone": "Europe/Paris"}
    assert record.after == after


def test_the_cli_lists_campaigns_without_the_archived_unless_asked(runner, renewals, winback):
    campaign_status.archive(winback, actor=SETUP)
    db.session.commit()
    shown = cli(runner, "list", "Acme", "prod").output
    assert "Renewals: preview, default queue Sales" in shown
    assert "Winback" not in shown and "1 archived not shown" in shown
    shown = cli(runner, "list", "Acme", "prod", "--archived").output
    assert "Winback: preview, default queue Support, default zone Europe/London, ARCHIVED" in shown
