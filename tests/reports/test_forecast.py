"""The dry run of a campaign (a controlled clock): at each interval's start, the forecast
counts exactly what the contact rules' explanation of every task says at that moment:
through daylight saving's end, a region's day without calls, queue hours, the calling
window, a wrong number, the do-not-call list, consent, the attempt limit, a due time, and
contact limits whose windows slide past the calls already made."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from app.extensions import db
from app.services.calling_rules import rules as calling_rules
from app.services.calling_rules.rules import NewRule
from app.services.campaigns import life_cycle
from app.services.consent import requirements as consent_required
from app.services.contact_limits.counts import CALL, mark, scope_key
from app.services.contact_rules import engine
from app.services.dnc import numbers as dnc
from app.services.errors import InvalidInput, NotFound
from app.services.reports.forecast import campaign_forecast
from app.services.schedules import calling_windows, hours
from app.wire.times import to_epoch_ms
from tests.api.test_openapi import schema_errors
from tests.calls.calls_support import add_phones
from tests.conftest import PLATFORM, SETUP, sc_headers
from tests.contact_limits.limits_support import add_limit
from tests.schedules.hours_support import make_schedule

H = timedelta(hours=1)
# Saturday 2026-10-31 00:00 UTC: New York leaves daylight saving on Sunday at 06:00 UTC.
FROM = datetime(2026, 10, 31, 0, 0, tzinfo=UTC)
CALIFORNIA, FLORIDA, TEXAS = "+14155550100", "+13055550100", "+12145550100"


def _world(acme, renewals) -> list:
    """Renewals (New York) with every kind of rule, and a task each rule holds back."""
    calling_windows.set_calling_window(renewals, 9 * 60, 20 * 60, actor=SETUP)
    calling_windows.set_max_attempts(renewals, 2, actor=SETUP)
    consent_required.set_requirement(renewals, keys=["Mobile Phone"], actor=SETUP)
    calling_rules.add_rule(acme, NewRule("US-CA", hours="10:00-19:00"), actor=SETUP)
    calling_rules.add_rule(acme, NewRule("US-TX", no_calls_on="sun"), actor=SETUP)
    office = make_schedule(acme, "mon-sat 08:00-18:00", zone="America/New_York")
    hours.set_queue_schedule(renewals.default_skill_queue, office, actor=SETUP)
    dnc.add_numbers(acme, ["+14155550111"], actor=SETUP)
    db.session.commit()
    person = add_limit(acme, 1, "24h", "person")
    number = add_limit(acme, 2, "36h", "number")
    tasks = [
        add_phones(renewals, "plain", Phone=FLORIDA),
        add_phones(renewals, "california", Phone=CALIFORNIA),
        add_phones(renewals, "texas", Phone=TEXAS),
        add_phones(renewals, "listed", Phone="+14155550111"),
        add_phones(
            renewals,
            "listed-and-no-consent",
            Phone="+14155550111",
            **{"Mobile Phone": "+14155550122"},
        ),  # fmt: skip
        add_phones(renewals, "wrong", Phone="+99999"),
        add_phones(renewals, "called-yesterday", Phone=FLORIDA),
        add_phones(renewals, "number-called", Phone="+13055550177"),
        add_phones(renewals, "later", Phone=FLORIDA),
        add_phones(renewals, "tried", Phone=FLORIDA),
    ]
    by = {t.client_id: t for t in tasks}
    by["later"].next_earliest_work_at = FROM + 29 * H + timedelta(minutes=30)
    by["tried"].work_attempts = 2
    # One call to the person 2 hours before: held back until 22:00 UTC (24 hours on).
    mark(db.session, acme.id, [scope_key("person", "called-yesterday")], CALL, renewals.id,
         FROM - 2 * H)  # fmt: skip
    # Two calls to the number: held back until the older one is 36 hours old.
    for ago in (10, 3):
        mark(db.session, acme.id, [scope_key("number", "+13055550177")], CALL, renewals.id,
             FROM - ago * H)  # fmt: skip
    db.session.commit()
    assert person.per == "person" and number.per == "number"
    return tasks


def _explained(tasks, moment) -> tuple[int, dict[str, int]]:
    db.session.expire_all()
    callable_, held = 0, Counter()
    for task in tasks:
        found = engine.explain(task, moment)
        callable_ += found.callable_now
        held.update(found.rules)
    return callable_, dict(held)


def test_every_interval_counts_what_the_explanation_of_every_task_says(acme, renewals):
    tasks = _world(acme, renewals)
    forecast = campaign_forecast(acme, "Renewals", FROM, FROM + 60 * H, 60)
    assert forecast.tasks == len(tasks)
    assert [i.start for i in forecast.intervals] == [FROM + n * H for n in range(60)]
    seen = Counter()
    for interval in forecast.intervals:
        expected = _explained(tasks, interval.start)
        assert (interval.callable, dict(interval.held_back)) == expected, interval.start
        seen.update(dict(interval.held_back))
    # Every rule of the world held something back at some interval (no holiday falls in it).
    unseen = {engine.STATE, engine.CAMPAIGN_PAUSED, engine.REGION_HOLIDAY}
    assert set(seen) == set(engine.NAMES) - unseen
    # Limits age out: the person called 2 hours before is callable from 22:00 UTC on.
    at = {i.start: dict(i.held_back) for i in forecast.intervals}
    assert at[FROM + 13 * H][engine.CONTACT_LIMIT] == 2
    assert at[FROM + 22 * H][engine.CONTACT_LIMIT] == 1
    assert engine.CONTACT_LIMIT not in at[FROM + 26 * H]


def test_the_counts_of_a_day_follow_its_start(acme, renewals):
    """Daily intervals: each day's start is 00:00 UTC (20:00 in New York, in the window)."""
    tasks = _world(acme, renewals)
    forecast = campaign_forecast(acme, "Renewals", FROM, FROM + 72 * H, 1440)
    assert [i.start for i in forecast.intervals] == [FROM, FROM + 24 * H, FROM + 48 * H]
    for interval in forecast.intervals:
        assert (interval.callable, dict(interval.held_back)) == _explained(tasks, interval.start)


def test_a_region_s_holiday_holds_back_its_tasks_that_day(acme, renewals):
    calling_rules.add_rule(acme, NewRule("US-CA", holidays=True), actor=SETUP)
    db.session.commit()
    tasks = [
        add_phones(renewals, "ca", Phone=CALIFORNIA),
        add_phones(renewals, "fl", Phone=FLORIDA),
    ]
    wednesday = datetime(2026, 11, 25, 17, 0, tzinfo=UTC)  # noon in New York
    forecast = campaign_forecast(acme, "Renewals", wednesday, wednesday + 48 * H, 1440)
    found = [(i.callable, dict(i.held_back)) for i in forecast.intervals]
    assert found == [(2, {}), (1, {engine.REGION_HOLIDAY: 1})]  # Thanksgiving
    assert found[1] == _explained(tasks, wednesday + 24 * H)


def test_a_paused_campaign_holds_back_every_task(acme, renewals):
    add_phones(renewals, "c1")
    add_phones(renewals, "c2")
    life_cycle.pause(renewals, actor=SETUP)
    db.session.commit()
    [interval] = campaign_forecast(acme, "Renewals", FROM, FROM + H, 60).intervals
    assert interval.callable == 0
    assert dict(interval.held_back) == {engine.CAMPAIGN_PAUSED: 2}


def test_completed_tasks_are_not_counted(acme, renewals):
    done = add_phones(renewals, "done")
    add_phones(renewals, "open")
    done.worked_state = "COMPLETED"
    db.session.commit()
    forecast = campaign_forecast(acme, "Renewals", FROM, FROM + H, 60)
    assert forecast.tasks == 1
    assert forecast.intervals[0].callable == 1


@pytest.mark.parametrize(
    ("end", "minutes", "words"),
    [
        (FROM + H, 15, "intervalMinutes must be 60 or 1440"),
        (FROM, 60, "to must be after from"),
        (FROM - H, 60, "to must be after from"),
        (FROM + 745 * H, 60, "to is 745 intervals after from: at most 744"),
    ],
    ids=["interval", "empty", "backwards", "too-long"],
)
def test_a_range_it_cannot_forecast_is_refused(acme, renewals, end, minutes, words):
    with pytest.raises(InvalidInput, match=words):
        campaign_forecast(acme, "Renewals", FROM, end, minutes)


def test_an_unknown_campaign_is_not_found(acme):
    with pytest.raises(NotFound, match="campaign 'Nope' does not exist"):
        campaign_forecast(acme, "Nope", FROM, FROM + H, 60)


# --- the Reports API's campaignForecast ------------------------------------------------------

PATH = "/reports-api/v1/campaignForecast"
IDENTITY = {"platform": PLATFORM, "companyCode": "Acme", "environment": "prod"}


@pytest.fixture
def ask(client, tenant, document):
    """POST campaignForecast as Acme/prod; the answer, checked against its schema."""
    headers = sc_headers("Acme", "prod", "us-east-1", tenant[1])

    def call(**fields) -> dict:
        response = client.post(PATH, json={"tenant": IDENTITY, **fields}, headers=headers)
        assert response.status_code == 200, response.data
        answer = response.get_json()
        assert schema_errors(document, "ForecastResponse", answer) == [], answer
        return answer

    return call


def test_the_api_answers_each_interval_with_its_rules(ask, acme, renewals):
    calling_windows.set_calling_window(renewals, 9 * 60, 20 * 60, actor=SETUP)
    dnc.add_numbers(acme, ["+14155550111"], actor=SETUP)
    db.session.commit()
    add_phones(renewals, "c1", Phone=FLORIDA)
    add_phones(renewals, "c2", Phone="+14155550111")
    # 08:00 and 09:00 in New York.
    start = datetime(2026, 11, 25, 13, 0, tzinfo=UTC)
    answer = ask(campaignName="Renewals", **{"from": to_epoch_ms(start)},
                 to=to_epoch_ms(start + 2 * H), intervalMinutes=60)  # fmt: skip
    assert answer == {
        "result": "SUCCESS",
        "message": "campaign 'Renewals': 2 intervals of 60 minutes from 2026-11-25 13:00 to "
        "2026-11-25 14:00 UTC",
        "tasks": 2,
        "intervals": [
            {"start": to_epoch_ms(start), "callable": 0, "heldBack": [
                {"rule": "CALLING_WINDOW", "count": 2}, {"rule": "DO_NOT_CALL", "count": 1}]},
            {"start": to_epoch_ms(start + H), "callable": 1, "heldBack": [
                {"rule": "DO_NOT_CALL", "count": 1}]},
        ],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"campaignName": "Nope"}, "campaign 'Nope' does not exist"),
        ({"intervalMinutes": 30}, "intervalMinutes"),
        ({"to": to_epoch_ms(FROM)}, "to must be after from"),
        ({"to": to_epoch_ms(FROM + 800 * H)}, "at most 744"),
        ({"from": "soon"}, "from"),
        ({"campaignName": ""}, "campaignName"),
    ],
    ids=["campaign", "interval", "empty", "too-long", "from", "no-campaign"],
)
def test_bad_arguments_are_refused_naming_the_field(ask, renewals, fields, words):
    body = {"campaignName": "Renewals", "from": to_epoch_ms(FROM),
            "to": to_epoch_ms(FROM + H), "intervalMinutes": 60, **fields}  # fmt: skip
    answer = ask(**body)
    assert answer["result"] == "INVALID_ARGUMENTS"
    assert words in answer["message"]
    assert answer["intervals"] is None and answer["tasks"] is None


# --- the CLI's campaign forecast -----------------------------------------------------------


def test_the_cli_prints_each_interval_in_the_campaign_s_zone(runner, acme, renewals):
    calling_windows.set_calling_window(renewals, 9 * 60, 20 * 60, actor=SETUP)
    db.session.commit()
    add_phones(renewals, "c1", Phone=FLORIDA)
    result = runner.invoke(
        args=["campaign", "forecast", "Acme", "prod", "Renewals", "--from",
              "2026-11-25T13:00:00Z", "--days", "2", "--interval", "day"]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "Campaign 'Renewals': 1 open task; starts in America/New_York.",
        "2026-11-25 08:00 EST  callable       0  held back: CALLING_WINDOW 1",
        "2026-11-26 08:00 EST  callable       0  held back: CALLING_WINDOW 1",
    ]
    result = runner.invoke(
        args=["campaign", "forecast", "Acme", "prod", "Renewals", "--from",
              "2026-11-25T14:00:00Z", "--days", "1"]
    )  # fmt: skip
    lines = result.output.splitlines()
    assert len(lines) == 25
    assert lines[1] == "2026-11-25 09:00 EST  callable       1  held back: nothing"
    assert lines[12] == "2026-11-25 20:00 EST  callable       0  held back: CALLING_WINDOW 1"


def test_the_cli_refuses_an_unknown_campaign_in_one_line(runner, acme):
    result = runner.invoke(args=["campaign", "forecast", "Acme", "prod", "Nope"])
    assert result.exit_code == 1
    assert "campaign 'Nope' does not exist" in result.output
