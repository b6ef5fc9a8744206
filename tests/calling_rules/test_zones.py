"""A task's zones on a controlled clock: its ItemTimeZone; else, when its campaign takes
zones from numbers, every zone its numbers may be in, the calling window and the regional
rules holding in all of them at once (a Boise number is in Mountain and Pacific time);
Arizona keeps no daylight saving, Indiana's zones do."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.services.calling_rules import rules as calling_rules
from app.services.calling_rules.rules import NewRule
from app.services.campaigns import catalogue
from app.services.contact_rules import engine
from app.services.schedules import calling_windows
from app.services.tasks.changes import add_or_update_task
from app.services.tasks.validation import ItemInput
from tests.calls.calls_support import add_phones
from tests.conftest import SETUP
from tests.delivery.delivery_support import (
    available,
    offer,
    settings,  # noqa: F401 - short desk timings
)

IDAHO, ARIZONA, NEW_YORK = "+12085550100", "+16025550100", "+12125550100"


@pytest.fixture
def by_number(renewals):
    """Renewals takes its tasks' zones from their numbers and calls 08:00-21:00."""
    catalogue.update_campaign(renewals, zone_from="number", actor=SETUP)
    calling_windows.set_calling_window(renewals, 8 * 60, 21 * 60, actor=SETUP)
    db.session.commit()
    return renewals


def _explain(task, now):
    db.session.expire_all()
    return engine.explain(task, now)


def test_a_number_spanning_two_zones_is_called_only_when_both_are_inside(by_number, ann):
    task = add_phones(by_number, "c1", Phone=IDAHO)
    assert (task.time_zone, task.zones) == ("America/Boise", ",America/Boise,America/Los_Angeles,")
    # 08:30 in Boise (MST), 07:30 in Los Angeles (PST): not yet.
    early = datetime(2026, 11, 24, 15, 30, tzinfo=UTC)
    found = _explain(task, early)
    assert found.rules == [engine.CALLING_WINDOW]
    assert "America/Boise and America/Los_Angeles" in found.reasons[0].message
    assert found.next_callable_at == datetime(2026, 11, 24, 16, 0, tzinfo=UTC)
    available(ann, early)
    assert offer(ann, early).task is None
    # 21:00 in Boise closes while Los Angeles is at 20:00: the earlier close holds.
    assert _explain(task, datetime(2026, 11, 25, 4, 0, tzinfo=UTC)).rules == [engine.CALLING_WINDOW]
    assert _explain(task, datetime(2026, 11, 25, 3, 59, tzinfo=UTC)).callable_now
    assert offer(ann, datetime(2026, 11, 24, 16, 0, tzinfo=UTC)).task.id == task.id


@pytest.mark.parametrize(
    ("number", "zone", "winter", "summer"),
    [
        # Arizona keeps standard time all year: 08:00 is 15:00 UTC in January and July.
        (ARIZONA, "America/Phoenix", 15, 15),
        (NEW_YORK, "America/New_York", 13, 12),
    ],
)
def test_a_zone_from_a_number_follows_its_daylight_saving(by_number, number, zone, winter, summer):
    task = add_phones(by_number, "c1", Phone=number)
    assert (task.time_zone, task.zones) == (zone, "")
    for day, hour in (
        (datetime(2026, 1, 15, tzinfo=UTC), winter),
        (datetime(2026, 7, 15, tzinfo=UTC), summer),
    ):
        found = _explain(task, day.replace(hour=hour - 1, minute=30))
        assert found.next_callable_at == day.replace(hour=hour)


@pytest.mark.parametrize(
    ("zone", "opens_utc"),
    [("America/Indiana/Indianapolis", 12), ("America/Indiana/Knox", 13)],
    ids=["eastern", "central"],
)
def test_indiana_s_zones_as_a_task_names_them(renewals, zone, opens_utc):
    """ItemTimeZone wins over the numbers: Indianapolis (Eastern) and Knox (Central), both
    on daylight saving in July."""
    catalogue.update_campaign(renewals, zone_from="number", actor=SETUP)
    calling_windows.set_calling_window(renewals, 8 * 60, 21 * 60, actor=SETUP)
    items = [ItemInput("Name", "Ada"), ItemInput("Phone", IDAHO), ItemInput("ItemTimeZone", zone)]
    task, _ = add_or_update_task(renewals, "c1", items, actor=SETUP)
    db.session.commit()
    assert (task.time_zone, task.zones) == (zone, "")
    morning = datetime(2026, 7, 15, 11, 30, tzinfo=UTC)
    assert _explain(task, morning).next_callable_at == datetime(2026, 7, 15, opens_utc, tzinfo=UTC)


def test_an_update_takes_the_zones_of_its_new_numbers(by_number):
    task = add_phones(by_number, "c1", Phone=IDAHO)
    items = [ItemInput("Name", "Ada"), ItemInput("Phone", ARIZONA)]
    task, _ = add_or_update_task(by_number, "c1", items, actor=SETUP)
    db.session.commit()
    assert (task.time_zone, task.zones) == ("America/Phoenix", "")


def test_a_regional_rule_holds_in_every_zone_of_the_task(by_number, acme):
    task = add_phones(by_number, "c1", Phone=IDAHO)
    calling_rules.add_rule(acme, NewRule("US-ID", hours="09:00-20:00"), actor=SETUP)
    db.session.commit()
    # 09:30 in Boise, 08:30 in Los Angeles: the window allows, Idaho's rule does not yet.
    now = datetime(2026, 11, 24, 16, 30, tzinfo=UTC)
    found = _explain(task, now)
    assert found.rules == [engine.REGION_HOURS]
    assert "America/Los_Angeles" in found.reasons[0].message
    assert found.next_callable_at == datetime(2026, 11, 24, 17, 0, tzinfo=UTC)


def test_a_toll_free_number_keeps_the_campaign_s_zone(by_number):
    """A toll-free number is no place on the map: libphonenumber's 42 zones for it would
    leave no hour inside every window."""
    task = add_phones(by_number, "c1", Phone="+18005550100")
    assert (task.time_zone, task.zones) == ("America/New_York", "")


def test_a_zone_a_supervisor_sets_ends_the_zones_from_numbers(by_number, ann):
    from app.services.tasks import batches

    task = add_phones(by_number, "c1", Phone=IDAHO)
    changes = batches.check_changes(
        by_number.tenant, batches.TaskChanges(time_zone="America/Chicago")
    )
    batches.apply_checked([task], changes, datetime(2026, 11, 24, tzinfo=UTC))
    db.session.commit()
    assert (task.time_zone, task.zones) == ("America/Chicago", "")
