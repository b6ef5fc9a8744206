"""Regional calling rules on a controlled clock: a task is in the regions of its State item
and of its numbers, and the strictest rule of them holds; hours follow the customer's
local time through daylight saving; days without calls, hours on some weekdays (Texas's
Sunday), public holidays of the region; a regional limit counts only the region's tasks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import true as sql_true

from app.extensions import db
from app.models import Task
from app.services import regions
from app.services.calling_rules import rules as calling_rules
from app.services.calling_rules.rules import NewRule
from app.services.contact_limits.counts import CALL, mark, scope_key
from app.services.contact_rules import engine
from app.services.dialer import placing
from app.services.errors import NotAvailable
from tests.calls.calls_support import add_phones
from tests.conftest import SETUP
from tests.delivery.delivery_support import (
    available,
    offer,
    settings,  # noqa: F401 - short desk timings
)

FLORIDA, CALIFORNIA, ARIZONA = "+13055550100", "+14155550100", "+16025550100"


def _rule(tenant, **fields) -> None:
    calling_rules.add_rule(tenant, NewRule(**fields), actor=SETUP)
    db.session.commit()


def _explain(task: Task, now: datetime):
    db.session.expire_all()
    return engine.explain(task, now)


def test_a_task_is_in_the_regions_of_its_state_and_of_its_numbers(renewals):
    task = add_phones(renewals, "c1", State="GA", Phone=FLORIDA, Mobile_Phone=CALIFORNIA)
    assert task.regions == ",US-CA,US-FL,US-GA,"
    assert add_phones(renewals, "c2", State="Ontario", Phone="+18005550100").regions == ",CA-ON,"
    assert add_phones(renewals, "c3", State="nowhere").regions == ""


@pytest.mark.parametrize(
    ("now", "held", "until"),
    [
        # The Saturday before daylight saving starts: 07:30 EST, opens at 08:00 EST (13:00 UTC).
        (datetime(2026, 3, 7, 12, 30, tzinfo=UTC), True, datetime(2026, 3, 7, 13, 0, tzinfo=UTC)),
        # The Sunday it starts: 12:30 UTC is 08:30 EDT, inside.
        (datetime(2026, 3, 8, 12, 30, tzinfo=UTC), False, None),
        # The Sunday it ends: 12:30 UTC is 07:30 EST again; opens at 13:00 UTC.
        (datetime(2026, 11, 1, 12, 30, tzinfo=UTC), True, datetime(2026, 11, 1, 13, 0, tzinfo=UTC)),
        # 20:00 EDT closes: 00:00 UTC; the next opening is 08:00 EDT (12:00 UTC).
        (datetime(2026, 7, 2, 0, 0, tzinfo=UTC), True, datetime(2026, 7, 2, 12, 0, tzinfo=UTC)),
    ],
    ids=["before-dst", "dst-started", "dst-ended", "evening"],
)
def test_region_hours_follow_the_customer_s_local_time(renewals, acme, now, held, until):
    task = add_phones(renewals, "c1", Phone=FLORIDA)  # New York's zone, Florida's number
    _rule(acme, region="US-FL", hours="08:00-20:00")
    found = _explain(task, now)
    assert found.rules == ([engine.REGION_HOURS] if held else [])
    assert found.next_callable_at == until


def test_the_strictest_rule_of_every_region_of_the_task_holds(renewals, acme, ann):
    task = add_phones(renewals, "c1", State="FL", Phone=CALIFORNIA)
    _rule(acme, region="US-FL", hours="08:00-20:00")
    _rule(acme, region="US-CA", hours="09:00-21:00")
    # 08:30 in New York: Florida's rule allows, California's does not (opens 09:00).
    now = datetime(2026, 11, 24, 13, 30, tzinfo=UTC)
    found = _explain(task, now)
    assert found.rules == [engine.REGION_HOURS]
    [reason] = found.reasons
    assert reason.message.startswith("US-CA allows calls 09:00-21:00 in the customer's time")
    assert reason.until == datetime(2026, 11, 24, 14, 0, tzinfo=UTC)
    available(ann, now)
    assert offer(ann, now).task is None
    # 20:30: California's allows, Florida's does not; the next moment both allow is 09:00.
    evening = datetime(2026, 11, 25, 1, 30, tzinfo=UTC)
    found = _explain(task, evening)
    assert [r.message[:5] for r in found.reasons] == ["US-FL"]
    assert found.next_callable_at == datetime(2026, 11, 25, 14, 0, tzinfo=UTC)


def test_hours_on_some_weekdays_and_a_day_without_calls(renewals, acme):
    """Texas: 09:00-21:00 Monday to Saturday, 12:00-21:00 on Sunday; a region with no calls
    on Sunday at all next to it."""
    task = add_phones(renewals, "c1", State="TX")
    _rule(acme, region="US-TX", hours="09:00-21:00", days="mon-sat")
    _rule(acme, region="US-TX", hours="12:00-21:00", days="sun")
    sunday_morning = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)  # 10:00 in New York
    assert _explain(task, sunday_morning).next_callable_at == datetime(
        2026, 11, 29, 17, 0, tzinfo=UTC
    )
    monday_morning = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)
    assert _explain(task, monday_morning).callable_now
    _rule(acme, region="US-TX", no_calls_on="sun")
    found = _explain(task, sunday_morning)
    assert set(found.rules) == {engine.REGION_HOURS, engine.REGION_DAY}
    # Monday 00:00 ends the day, but the weekday hours open at 09:00.
    assert found.next_callable_at == datetime(2026, 11, 30, 14, 0, tzinfo=UTC)


def test_a_region_s_public_holidays_are_its_own(renewals, acme):
    """Arizona keeps no day after Thanksgiving; California does."""
    arizona = add_phones(renewals, "c1", Phone=ARIZONA)
    california = add_phones(renewals, "c2", Phone=CALIFORNIA)
    _rule(acme, region="US-AZ", holidays=True)
    _rule(acme, region="US-CA", holidays=True)
    day_after = datetime(2026, 11, 27, 15, 0, tzinfo=UTC)
    assert _explain(arizona, day_after).callable_now
    assert _explain(arizona, datetime(2026, 11, 26, 15, 0, tzinfo=UTC)).rules == [
        engine.REGION_HOLIDAY
    ]
    found = _explain(california, day_after)
    assert found.rules == [engine.REGION_HOLIDAY]
    assert "Day After Thanksgiving" in found.reasons[0].message


def test_a_regional_limit_counts_only_the_region_s_tasks(renewals, acme, ann):
    florida = add_phones(renewals, "c1", Phone=FLORIDA)
    arizona = add_phones(renewals, "c2", Phone=ARIZONA)
    _rule(acme, region="US-FL", max="1", within="24h", per="number")
    now = datetime(2026, 11, 25, 15, 0, tzinfo=UTC)
    for number in (FLORIDA, ARIZONA):
        mark(db.session, acme.id, [scope_key("number", number)], CALL, renewals.id,
             now.replace(hour=14))  # fmt: skip
    db.session.commit()
    assert _explain(florida, now).rules == [engine.CONTACT_LIMIT]
    assert _explain(arizona, now).callable_now
    available(ann, now)
    held = offer(ann, now).task
    assert held.id == arizona.id
    with pytest.raises(NotAvailable) as refused:
        placing.check_callable(ann, florida, None, now)
    assert refused.value.rule == engine.CONTACT_LIMIT
    assert "for tasks in US-FL" in str(refused.value)


def test_the_regions_present_are_those_of_the_campaign_s_open_tasks(renewals):
    add_phones(renewals, "c1", State="GA", Phone=FLORIDA)
    add_phones(renewals, "c2", Phone=FLORIDA)
    done = add_phones(renewals, "c3", State="TX", Phone=ARIZONA)
    add_phones(renewals, "c4", State="nowhere")
    done.worked_state = "COMPLETED"
    db.session.commit()
    assert regions.regions_present(renewals.id) == {"US-FL", "US-GA"}


def test_a_rule_of_a_region_no_open_task_is_in_holds_nothing_back_until_one_is(renewals, acme, ann):
    _rule(acme, region="US-FL", hours="08:00-20:00")
    evening = datetime(2026, 11, 25, 1, 30, tzinfo=UTC)  # 20:30 in Florida: held
    california = add_phones(renewals, "c1", Phone=CALIFORNIA)
    seat = engine.seat_for(california, evening)
    assert engine.region_hours_allow(seat).compare(sql_true())  # nothing in the query
    florida = add_phones(renewals, "c2", Phone=FLORIDA)
    assert _explain(florida, evening).rules == [engine.REGION_HOURS]
    available(ann, evening)
    assert offer(ann, evening).task.client_id == "c1"
    seat = engine.seat_for(florida, evening)
    assert not engine.region_hours_allow(seat).compare(sql_true())
