"""The contact rules, one rule at a time on a controlled clock: each holds a task back,
explains itself under its own name with when it ends, and delivery (nextTask), startCall's
check and the progress panel's kept-back counts agree with the explanation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import User
from app.services.calling_rules import rules as calling_rules
from app.services.calling_rules.rules import NewRule
from app.services.campaigns import life_cycle
from app.services.consent import requirements as consent_required
from app.services.contact_limits.counts import CALL, mark
from app.services.contact_rules import engine
from app.services.delivery import closing, progress
from app.services.dialer import call_events, placing
from app.services.dnc import numbers as dnc
from app.services.errors import NotAvailable
from app.services.schedules import calling_windows, hours
from app.services.tenants.setup import get_skill_queue
from tests.calls.calls_support import MOBILE, PHONE, S, add_phones, as_agent
from tests.conftest import SETUP
from tests.contact_limits.limits_support import add_limit
from tests.delivery.delivery_support import (
    available,
    offer,
    settings,  # noqa: F401 - short desk timings
)
from tests.schedules.hours_support import make_schedule

H = timedelta(hours=1)
# Friday 27 November 2026, 18:00:30 in London (UTC in winter): its office closed at 18:00.
FRIDAY_EVENING = datetime(2026, 11, 27, 18, 0, 30, tzinfo=UTC)
MONDAY_OPENING = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
# 09:00:30 in New York (Renewals' zone): an 08:00-09:00 window has just closed.
NY_MORNING = datetime(2026, 11, 30, 14, 0, 30, tzinfo=UTC)
NY_OPENING = datetime(2026, 12, 1, 13, 0, tzinfo=UTC)
# 10:00 in New York on Thanksgiving Day, a public holiday of every US state.
THANKSGIVING = datetime(2026, 11, 26, 15, 0, tzinfo=UTC)
# An ordinary moment for the rules the hours and windows leave alone.
NOON = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _state(task, now):
    task.worked_state = "COMPLETED"
    return None


def _due_later(task, now):
    task.worked_state, task.next_earliest_work_at = "WORKED", now + H
    return now + H


def _paused(task, now):
    life_cycle.change_status(task.campaign, "pause", actor=SETUP, now=now)
    return None


def _queue_closed(task, now):
    tenant = task.campaign.tenant
    schedule = make_schedule(tenant, "mon-fri 08:00-18:00", zone="Europe/London")
    hours.set_queue_schedule(get_skill_queue(tenant, "Sales"), schedule, actor=SETUP)
    return MONDAY_OPENING


def _outside_window(task, now):
    calling_windows.set_calling_window(task.campaign, 8 * 60, 9 * 60, actor=SETUP)
    return NY_OPENING


def _region_hours(task, now):
    """The task's number is Californian (US-CA): 08:00-09:00 there, in the task's zone."""
    calling_rules.add_rule(task.campaign.tenant, NewRule("US-CA", hours="08:00-09:00"), actor=SETUP)
    return NY_OPENING


def _region_day(task, now):
    calling_rules.add_rule(task.campaign.tenant, NewRule("US-CA", no_calls_on="wed"), actor=SETUP)
    return datetime(2026, 11, 26, 5, 0, tzinfo=UTC)  # Thursday's midnight in New York


def _region_holiday(task, now):
    calling_rules.add_rule(task.campaign.tenant, NewRule("US-CA", holidays=True), actor=SETUP)
    # California keeps the day after Thanksgiving too: calls resume on the Saturday.
    return datetime(2026, 11, 28, 5, 0, tzinfo=UTC)


def _listed(task, now):
    dnc.add_numbers(task.campaign.tenant, [PHONE], actor=SETUP)
    return None


def _no_consent(task, now):
    consent_required.set_requirement(task.campaign, "all", actor=SETUP)
    return None


def _wrong_number(task, now):
    """A call of this task to its Phone ended INVALID_NUMBER (then the agent skipped it)."""
    agent = db.session.scalar(select(User).where(User.login_user_id == "ann"))
    available(agent, now - H)
    assert offer(agent, now - H).task.id == task.id
    placed = placing.start_call(agent, task.record_id, actor=as_agent(agent), now=now - H)
    call_events.call_event(agent, task.record_id, placed.call_id, "ENDED", "INVALID_NUMBER",
                           actor=as_agent(agent), now=now - H + 5 * S)  # fmt: skip
    closing.release(task, actor=as_agent(agent), now=now - H + 10 * S)
    return None


def _number_limited(task, now):
    add_limit(task.campaign.tenant, 1, "24h", "number")
    mark(db.session, task.campaign.tenant_id, [f"number:{PHONE}"], CALL, task.campaign_id, now - H)
    return now - H + 24 * H


def _attempts_used(task, now):
    calling_windows.set_max_attempts(task.campaign, 2, actor=SETUP)
    task.work_attempts = 2
    return None


# (the rule, what makes it hold the task back, the moment asked about); the change answers
# when the rule ends (None: not by the clock).
RULES = [
    (engine.STATE, _state, NOON),
    (engine.NEXT_EARLIEST_TIME, _due_later, NOON),
    (engine.CAMPAIGN_PAUSED, _paused, NOON),
    (engine.QUEUE_CLOSED, _queue_closed, FRIDAY_EVENING),
    (engine.CALLING_WINDOW, _outside_window, NY_MORNING),
    (engine.REGION_HOURS, _region_hours, NY_MORNING),
    (engine.REGION_DAY, _region_day, NOON),
    (engine.REGION_HOLIDAY, _region_holiday, THANKSGIVING),
    (engine.DO_NOT_CALL, _listed, NOON),
    (engine.NO_CONSENT, _no_consent, NOON),
    (engine.INVALID_NUMBER, _wrong_number, NOON),
    (engine.CONTACT_LIMIT, _number_limited, NOON),
    (engine.ATTEMPT_LIMIT, _attempts_used, NOON),
]
NUMBER_RULES = {
    engine.DO_NOT_CALL,
    engine.NO_CONSENT,
    engine.INVALID_NUMBER,
    engine.CONTACT_LIMIT,
}
# The rules the panel counts as kept back (the others are closed or waiting for their time).
PANEL_KEYS = {
    engine.CAMPAIGN_PAUSED: "paused",
    engine.QUEUE_CLOSED: "hours",
    engine.CALLING_WINDOW: "window",
    engine.REGION_HOURS: "region-hours",
    engine.REGION_DAY: "region-day",
    engine.REGION_HOLIDAY: "region-holiday",
    engine.DO_NOT_CALL: "dnc",
    engine.NO_CONSENT: "consent",
    engine.INVALID_NUMBER: "invalid",
    engine.CONTACT_LIMIT: "limits",
    engine.ATTEMPT_LIMIT: "attempts",
}


def test_every_rule_has_a_stable_name_in_the_engine_s_order():
    assert tuple(rule for rule, _change, _now in RULES) == engine.NAMES


@pytest.mark.parametrize(("rule", "change", "now"), RULES, ids=[r for r, _c, _n in RULES])
def test_each_rule_holds_the_task_back_and_every_door_agrees(renewals, ann, rule, change, now):
    task = add_phones(renewals, "c1")
    assert engine.explain(task, now).callable_now
    until = change(task, now)
    db.session.commit()

    found = engine.explain(task, now)
    assert not found.callable_now
    assert found.rules == [rule]
    if rule in NUMBER_RULES:
        assert found.reasons == []
        [number] = found.numbers
        assert (number.key, number.number, number.callable) == ("Phone", PHONE, False)
        [reason] = number.reasons
        assert number.sentence().startswith(f"{rule}: ")
    else:
        [reason] = found.reasons
    assert reason.rule == rule and reason.message
    assert reason.until == until and found.next_callable_at == until

    # Delivery offers nothing (the task is the only one), and says why when it is a rule of
    # when and whom.
    available(ann, now)
    nothing = offer(ann, now)
    assert nothing.task is None
    if rule == engine.CONTACT_LIMIT:
        assert "contact limits" in nothing.reason and nothing.next_due == until
    db.session.rollback()

    # startCall's check names the same rule, and when the call may be placed.
    with pytest.raises(NotAvailable) as refused:
        placing.check_callable(ann, task, None, now)
    assert refused.value.rule == rule
    assert getattr(refused.value, "until", None) == until
    db.session.rollback()

    # The progress panel counts it kept back under that rule alone.
    counted = progress.campaign_progress(renewals, now)
    by_key = {why.key: why.count for why in counted.kept_back_by}
    expected = {key: int(key == PANEL_KEYS.get(rule)) for key in by_key}
    assert by_key == expected
    assert counted.kept_back == (1 if rule in PANEL_KEYS else 0)


def test_a_task_with_one_number_held_is_called_on_another(renewals, ann, acme):
    task = add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    dnc.add_numbers(acme, [PHONE], actor=SETUP)
    db.session.commit()
    found = engine.explain(task, NOON)
    assert found.callable_now and found.rules == []
    states = [(n.key, n.callable) for n in found.numbers]
    assert states == [("Phone", False), ("Mobile_Phone", True)]
    available(ann, NOON)
    assert offer(ann, NOON).task.id == task.id
    assert placing.check_callable(ann, task, None, NOON) == ("Mobile_Phone", MOBILE)
    with pytest.raises(NotAvailable) as refused:
        placing.check_callable(ann, task, "Phone", NOON)
    assert refused.value.rule == engine.DO_NOT_CALL


def test_a_wrong_number_is_callable_again_once_the_data_changes_it(renewals, ann):
    task = add_phones(renewals, "c1")
    _wrong_number(task, NOON)
    db.session.commit()
    assert engine.explain(task, NOON).rules == [engine.INVALID_NUMBER]
    task = add_phones(renewals, "c1", Phone=MOBILE)  # an update of the task's data
    found = engine.explain(task, NOON)
    assert found.callable_now and found.numbers[0].number == MOBILE


def test_a_task_without_numbers_is_held_back_by_person_limits_only(renewals, ann, acme):
    task = add_phones(renewals, "c1", City="Paris")
    add_limit(acme, 1, "24h", "number")
    mark(db.session, acme.id, [f"number:{PHONE}"], CALL, renewals.id, NOON - H)
    db.session.commit()
    assert engine.explain(task, NOON).callable_now  # no number to hold
    add_limit(acme, 1, "24h", "person")
    mark(db.session, acme.id, ["person:c1"], CALL, renewals.id, NOON - H)
    db.session.commit()
    found = engine.explain(task, NOON)
    assert found.rules == [engine.CONTACT_LIMIT]
    assert "reached for person c1" in found.reasons[0].message
    assert found.next_callable_at == NOON - H + 24 * H
    available(ann, NOON)
    nothing = offer(ann, NOON)
    assert nothing.task is None and nothing.next_due == NOON + 23 * H
    assert "contact limits" in nothing.reason


def test_the_first_kept_back_task_says_when_delivery_resumes(renewals, ann, acme):
    add_limit(acme, 1, "24h", "number")
    add_phones(renewals, "c1", Phone=PHONE)
    add_phones(renewals, "c2", Phone=MOBILE)
    mark(db.session, acme.id, [f"number:{PHONE}"], CALL, renewals.id, NOON - 2 * H)
    mark(db.session, acme.id, [f"number:{MOBILE}"], CALL, renewals.id, NOON - H)
    db.session.commit()
    available(ann, NOON)
    nothing = offer(ann, NOON)
    assert nothing.task is None and nothing.next_due == NOON + 22 * H
    available(ann, NOON + 22 * H)
    assert offer(ann, NOON + 22 * H).task.client_id == "c1"


NO_SUCH_NUMBER = "+99999"  # E.164 in form, and no number of any country


def test_a_number_that_does_not_exist_is_stored_as_sent_and_never_dialled(renewals, ann):
    task = add_phones(renewals, "c1", Phone=NO_SUCH_NUMBER)
    assert [(i.key, i.value, i.valid_number) for i in task.items if i.key == "Phone"] == [
        ("Phone", NO_SUCH_NUMBER, False)
    ]
    found = engine.explain(task, NOON)
    assert found.rules == [engine.INVALID_NUMBER] and found.next_callable_at is None
    [number] = found.numbers
    assert number.sentence() == (
        f"INVALID_NUMBER: {NO_SUCH_NUMBER} is not a valid phone number: never dialled"
    )
    available(ann, NOON)
    assert offer(ann, NOON).task is None
    counted = progress.campaign_progress(renewals, NOON)
    assert {why.key: why.count for why in counted.kept_back_by}["invalid"] == 1

    # Beside a valid number, the task is called on that one alone.
    both = add_phones(renewals, "c2", Phone=NO_SUCH_NUMBER, Mobile_Phone=MOBILE)
    assert offer(ann, NOON).task.id == both.id
    assert placing.check_callable(ann, both, None, NOON)[1] == MOBILE
    with pytest.raises(NotAvailable) as refused:
        placing.check_callable(ann, both, "Phone", NOON)
    assert refused.value.rule == engine.INVALID_NUMBER
    db.session.rollback()

    # An update that gives the item a number that exists makes it callable.
    task = add_phones(renewals, "c1", Phone=PHONE)
    assert engine.explain(task, NOON).callable_now
