"""A campaign's life cycle: pause, resume, archive, restore; what delivery and the Progress
panel make of it, with a controlled clock; its audit records and events."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Campaign
from app.services.actors import Actor
from app.services.campaigns import catalogue as campaigns
from app.services.campaigns import life_cycle as campaign_status
from app.services.delivery import closing, offers, progress, sweeps
from app.services.errors import InvalidInput
from app.wire.times import sent_time
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    HOLD,
    add,
    available,
    client_id,
    events,
    make_agent,
    ms,
    offer,
    settings,
    start,
    stored,
)

S = timedelta(seconds=1)
BOSS = Actor.supervisor("boss@example.com")
PAUSED = "the Renewals campaign is paused"


@pytest.fixture
def ann(acme):
    return make_agent(acme, "ann")


def move(campaign: Campaign, how: str, now=None) -> bool:
    changed = campaign_status.change_status(campaign, how, actor=BOSS, now=now)
    db.session.commit()
    return changed


def status(campaign: Campaign) -> str:
    db.session.expire_all()
    return db.session.get(Campaign, campaign.id).status


def trail(action: str) -> list[AuditRecord]:
    return list(db.session.scalars(select(AuditRecord).filter_by(action=action)))


# --- the moves -------------------------------------------------------------------------------


def test_each_move_records_who_and_when_an_audit_record_and_an_event(renewals):
    now = start()
    steps = [
        ("pause", "PAUSED", "campaign.paused", "ACTIVE"),
        ("resume", "ACTIVE", "campaign.resumed", "PAUSED"),
        ("archive", "ARCHIVED", "campaign.archived", "ACTIVE"),
        ("restore", "PAUSED", "campaign.restored", "ARCHIVED"),
    ]
    for n, (how, after, action, before) in enumerate(steps):
        at = now + n * S
        assert move(renewals, how, at) is True
        assert status(renewals) == after
        stored_campaign = db.session.get(Campaign, renewals.id)
        assert stored_campaign.status_changed_at == at
        assert (stored_campaign.status_changed_by_kind, stored_campaign.status_changed_by_id) == (
            "supervisor",
            "boss@example.com",
        )
        [record] = trail(action)
        assert (record.entity_kind, record.entity_id) == ("campaign", str(renewals.id))
        assert (record.before, record.after) == ({"status": before}, {"status": after})
        assert (record.actor_kind, record.actor_id) == ("supervisor", "boss@example.com")
        [event] = events(action)
        assert event == {
            "campaignName": "Renewals",
            "type": "preview",
            "skillQueue": "Sales",
            "timeZone": "America/New_York",
            "status": after,
            "previousStatus": before,
            "actor": {"kind": "supervisor", "id": "boss@example.com"},
        }


@pytest.mark.parametrize(
    ("first", "again"),
    [("pause", "pause"), ("archive", "archive"), (None, "resume"), (None, "restore")],
)
def test_asking_for_the_status_it_has_changes_and_records_nothing(renewals, first, again):
    if first:
        move(renewals, first)
    before = status(renewals)
    records = db.session.scalar(select(db.func.count(AuditRecord.id)))
    assert move(renewals, again) is False
    assert status(renewals) == before
    assert db.session.scalar(select(db.func.count(AuditRecord.id))) == records


@pytest.mark.parametrize("how", ["pause", "resume"])
def test_an_archived_campaign_is_restored_before_it_is_paused_or_resumed(renewals, how):
    move(renewals, "archive")
    with pytest.raises(InvalidInput, match="archived: restore it first"):
        campaign_status.change_status(renewals, how, actor=BOSS)
    db.session.rollback()
    assert status(renewals) == "ARCHIVED"
    assert events("campaign.paused") == events("campaign.resumed") == []


# --- delivery ------------------------------------------------------------------------------


def test_a_paused_campaign_delivers_nothing_and_the_desk_says_it_is_paused(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    move(renewals, "pause", now)
    found = offer(ann, now + S)
    assert found.task is None
    assert found.reason == PAUSED
    assert found.next_due is None
    assert stored("c1").reserved_by_id is None
    move(renewals, "resume", now + 2 * S)
    assert client_id(offer(ann, now + 3 * S)) == "c1"


def test_an_archived_campaign_delivers_nothing_and_is_no_work_of_the_agent(renewals, ann):
    add(renewals, "c1")
    now = start()
    available(ann, now)
    move(renewals, "archive", now)
    found = offer(ann, now + S)
    assert (found.task, found.reason) == (None, offers.NO_TASKS)
    move(renewals, "restore", now + 2 * S)  # back, paused
    assert offer(ann, now + 3 * S).reason == PAUSED
    move(renewals, "resume", now + 4 * S)
    assert client_id(offer(ann, now + 5 * S)) == "c1"


def test_other_campaigns_of_the_queue_go_on_delivering(acme, renewals, ann):
    campaigns.create_campaign(acme, "Spring", "Sales", "UTC", actor=BOSS)
    db.session.commit()
    spring = campaigns.find_campaign(acme, "Spring")
    add(renewals, "r1")
    add(spring, "s1")
    now = start()
    available(ann, now)
    move(renewals, "pause", now)
    assert client_id(offer(ann, now + S)) == "s1"
    closing.close_task(ann, stored("s1").record_id, "COMPLETE", actor=Actor.agent("ann"))
    db.session.commit()
    assert offer(ann, now + 2 * S).reason == PAUSED


def test_every_tier_skips_a_paused_campaign(renewals, ann):
    """Held for the agent, a due reschedule, a new task: none is delivered while paused."""
    now = start()
    add(renewals, "held", preferred_agent="ann")
    add(renewals, "new")
    add(renewals, "due", next_earliest=sent_time(ms(now + 5 * S), "nextEarliestWorkTimeUTC"))
    available(ann, now)
    move(renewals, "pause", now)
    later = now + 10 * S
    assert offer(ann, later).reason == PAUSED
    assert events("task.delivered") == []


def test_a_paused_campaign_whose_tasks_are_not_due_says_paused_not_due(renewals, ann):
    now = start()
    add(renewals, "later", next_earliest=sent_time(ms(now + 600 * S), "nextEarliestWorkTimeUTC"))
    available(ann, now)
    move(renewals, "pause", now)
    found = offer(ann, now + S)
    assert (found.task, found.reason, found.next_due) == (None, PAUSED, None)


def test_a_paused_campaign_and_a_live_task_due_later_are_both_said(acme, renewals, ann):
    """The agent's queue holds a paused campaign's tasks and a live campaign's task not due
    yet: the desk says both, and when the live one is due."""
    campaigns.create_campaign(acme, "Spring", "Sales", "UTC", actor=BOSS)
    db.session.commit()
    spring = campaigns.find_campaign(acme, "Spring")
    now = start()
    add(renewals, "r1")
    add(spring, "s1", next_earliest=sent_time(ms(now + 600 * S), "nextEarliestWorkTimeUTC"))
    available(ann, now)
    move(renewals, "pause", now)
    found = offer(ann, now + S)
    assert found.task is None
    assert found.reason.startswith(PAUSED + "; the next task is due at ")
    assert found.next_due == stored("s1").next_earliest_work_at


def test_the_agent_may_finish_the_task_on_screen_when_the_campaign_is_paused(renewals, ann):
    add(renewals, "c1")
    add(renewals, "c2")
    now = start()
    available(ann, now)
    assert client_id(offer(ann, now)) == "c1"
    move(renewals, "pause", now + S)
    assert client_id(offer(ann, now + 2 * S)) == "c1"  # the task already on screen
    closed = closing.close_task(
        ann, stored("c1").record_id, "COMPLETE", actor=Actor.agent("ann"), now=now + 3 * S
    )
    db.session.commit()
    assert closed.worked_state == "COMPLETED"
    assert offer(ann, now + 4 * S).reason == PAUSED  # nothing new
    assert stored("c2").reserved_by_id is None


def test_a_hold_does_not_run_out_while_paused_and_restarts_on_resume(renewals, ann, bob):
    add(renewals, "for-bob", preferred_agent="bob")
    now = start()
    available(ann, now)
    available(bob, now)
    move(renewals, "pause", now)
    long_after = now + (HOLD * 3) * S
    assert sweeps.expire_holds(long_after) == 0  # the clock leaves a paused campaign's hold
    db.session.commit()
    assert stored("for-bob").preferred_agent == "bob"
    move(renewals, "resume", long_after)
    assert offer(ann, long_after + S).reason == "every task is held for other agents"
    assert client_id(offer(bob, long_after + 2 * S)) == "for-bob"


def test_the_paused_rule_is_one_of_the_eligibility_rules():
    from app.services.delivery import rules

    assert campaign_status.campaign_delivers in rules.ELIGIBILITY
    assert rules.BLOCKERS[0] == (
        campaign_status.campaign_delivers,
        campaign_status.stopped_campaigns,
    )


# --- the Progress counts ------------------------------------------------------------------


def test_progress_keeps_a_paused_campaigns_tasks_back_and_says_why(renewals, winback):
    add(renewals, "c1")
    add(renewals, "c2")
    add(winback, "w1")
    now = start()
    move(renewals, "pause", now)
    counted = progress.campaign_progress(renewals, now + S)
    assert (counted.deliverable, counted.kept_back) == (0, 2)
    assert [why.reason for why in counted.kept_back_why] == [PAUSED]
    other = progress.campaign_progress(winback, now + S)
    assert (other.deliverable, other.kept_back, other.kept_back_why) == (1, 0, ())
    move(renewals, "resume", now + 2 * S)
    counted = progress.campaign_progress(renewals, now + 3 * S)
    assert (counted.deliverable, counted.kept_back, counted.kept_back_why) == (2, 0, ())


def test_progress_of_an_archived_campaign_says_it_is_archived(renewals):
    add(renewals, "c1")
    now = start()
    move(renewals, "archive", now)
    counted = progress.campaign_progress(renewals, now + S)
    assert (counted.deliverable, counted.kept_back) == (0, 1)
    assert [why.reason for why in counted.kept_back_why] == ["the Renewals campaign is archived"]


def test_several_paused_campaigns_are_named_together():
    assert campaign_status.stopped_reason([("A", "PAUSED"), ("B", "PAUSED"), ("C", "PAUSED")]) == (
        "the A, B and C campaigns are paused"
    )
