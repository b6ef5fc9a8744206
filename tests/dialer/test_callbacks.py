"""Personal callbacks on a controlled clock: kept for their agent from their time for
CALLBACK_HOLD_MINUTES, then the queue's; a time the contact rules would not let the
customer be called at is refused with the first allowed time, nothing changed; the Desk
API says the same."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.extensions import db
from app.services.calling_rules import rules as calling_rules
from app.services.calling_rules.rules import NewRule
from app.services.delivery import closing
from app.services.dnc import numbers as dnc
from app.services.schedules import calling_windows
from app.wire.times import sent_time
from tests.calls.calls_support import PHONE, add_phones, as_agent
from tests.conftest import SETUP
from tests.delivery.delivery_support import (
    available,
    offer,
    settings,  # noqa: F401 - short desk timings
)
from tests.dialer.test_desk_api_calls import desk  # noqa: F401 - the Desk API

# Tuesday 24 November 2026, 15:00 UTC: 10:00 in New York (Renewals' zone).
NOW = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)
H = timedelta(hours=1)
NEW_YORK = ZoneInfo("America/New_York")


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _held(renewals, agent):
    task = add_phones(renewals, "c1")
    available(agent, NOW)
    assert offer(agent, NOW).task.id == task.id
    return task


def _callback(agent, task, at: datetime):
    closing.close_task(agent, task.record_id, "RESCHEDULE",
                       next_earliest=sent_time(_ms(at), "nextEarliestWorkTimeUTC"),
                       personal_callback=True, actor=as_agent(agent), now=NOW)  # fmt: skip
    db.session.commit()


def test_a_callback_is_its_agent_s_from_its_time_then_the_queue_s(renewals, ann, bob):
    task = _held(renewals, ann)
    at = NOW + 3 * H
    _callback(ann, task, at)
    assert (task.preferred_agent, task.hold_until) == ("ann", at + timedelta(minutes=30))
    available(bob, at)
    assert offer(bob, at).task is None  # kept for ann
    assert offer(bob, at + timedelta(minutes=31)).task.id == task.id


def test_the_callback_comes_first_for_its_agent_when_due(renewals, ann):
    task = _held(renewals, ann)
    _callback(ann, task, NOW + H)
    add_phones(renewals, "c2", Phone="+14155550111")
    assert offer(ann, NOW + H).task.id == task.id


@pytest.mark.parametrize(
    ("setup", "at", "first", "words"),
    [
        # 23:00 in New York, outside an 08:00-21:00 window: from 08:00 the next morning.
        (lambda t: calling_windows.set_calling_window(t.campaign, 8 * 60, 21 * 60, actor=SETUP),
         datetime(2026, 11, 25, 4, 0, tzinfo=UTC), datetime(2026, 11, 25, 13, 0, tzinfo=UTC),
         "CALLING_WINDOW"),
        # A Sunday in California's rules (the task's number is Californian).
        (lambda t: calling_rules.add_rule(t.campaign.tenant, NewRule("US-CA", no_calls_on="sun"),
                                          actor=SETUP),
         datetime(2026, 11, 29, 17, 0, tzinfo=UTC), datetime(2026, 11, 30, 5, 0, tzinfo=UTC),
         "REGION_DAY"),
    ],
    ids=["window", "region-day"],
)  # fmt: skip
def test_a_callback_at_a_time_the_rules_refuse_changes_nothing(
    renewals, ann, setup, at, first, words
):
    task = _held(renewals, ann)
    setup(task)
    db.session.commit()
    with pytest.raises(closing.CallbackNotCallable) as refused:
        _callback(ann, task, at)
    assert refused.value.until == first and words in refused.value.message
    db.session.rollback()
    db.session.expire_all()
    assert (task.work_attempts, task.reserved_by_id, task.preferred_agent) == (0, ann.id, None)


def test_a_number_listed_after_the_callback_is_not_called_back(renewals, ann, acme):
    task = _held(renewals, ann)
    _callback(ann, task, NOW + H)
    dnc.add_numbers(acme, [PHONE], actor=SETUP)
    db.session.commit()
    assert offer(ann, NOW + H).task is None


def test_the_desk_api_refuses_a_callback_time_with_the_first_allowed(desk, renewals, ann):  # noqa: F811
    add_phones(renewals, "c1")
    desk("setAgentState", agent="ann", state="AVAILABLE")
    record_id = desk("nextTask", agent="ann")["task"]["previewRecordID"]
    calling_windows.set_calling_window(renewals, 8 * 60, 21 * 60, actor=SETUP)
    db.session.commit()
    # 04:00 UTC in two days: 23:00 (or midnight, in summer) in New York; then 08:00 there.
    late = (datetime.now(UTC) + timedelta(days=2)).replace(
        hour=4, minute=0, second=0, microsecond=0
    )
    sent = {"agent": "ann", "previewRecordID": record_id, "outcome": "RESCHEDULE"}
    answer = desk("closeTask", **sent, nextEarliestWorkTimeUTC=_ms(late), personalCallback=True)
    assert answer["result"] == "INVALID_ARGUMENTS" and "CALLING_WINDOW" in answer["message"]
    local = late.astimezone(NEW_YORK)
    day = local.date() + timedelta(days=1 if local.hour >= 21 else 0)
    assert answer["nextCallableAt"] == _ms(datetime.combine(day, time(8), NEW_YORK))
    first = answer["nextCallableAt"]
    good = desk("closeTask", **sent, nextEarliestWorkTimeUTC=first, personalCallback=True)
    assert good["result"] == "SUCCESS" and good["nextCallableAt"] is None
    assert good["task"]["preferredAgent"] == "ann"
