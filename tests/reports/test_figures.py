"""Every report's figures against a straightforward count of the same generated rows, for
each filter; and the scope's refusals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.extensions import db
from app.models import Attempt, Task
from app.services.campaigns.catalogue import find_campaign
from app.services.errors import InvalidInput
from app.services.reports import (
    agent_summary,
    attempts_by_interval,
    best_hours,
    campaign_summary,
    report_scope,
)
from tests.delivery.delivery_support import make_agent
from tests.reports.generated import (
    DAYS,
    START,
    generate,
    reference_agents,
    reference_hours,
    reference_intervals,
    reference_summary,
)

NOW = START + timedelta(days=2, hours=5)
FILTERS = {
    "everything": {},
    "one campaign": {"campaign_name": "Renewals"},
    "one queue": {"queue_name": "Support"},
    "one agent": {"agent": "bob"},
    "campaign, queue and agent": {
        "campaign_name": "Winback",
        "queue_name": "Sales",
        "agent": "ann",
    },
}
RANGES = {
    "all days": (START, START + timedelta(days=DAYS)),
    "one afternoon": (START + timedelta(hours=13, minutes=7), START + timedelta(hours=19)),
    # Edges off the 15-minute grid, to the millisecond: partial slots read from the attempts.
    "to the millisecond": (
        START + timedelta(hours=1, minutes=2, seconds=3, milliseconds=456),
        START + timedelta(days=2, hours=5, minutes=7, seconds=8, milliseconds=900),
    ),
}
# Ranges holding no whole 15-minute slot, or one.
SHORT = [
    (
        START + timedelta(hours=h, minutes=1, milliseconds=500),
        START + timedelta(hours=h, minutes=14),
    )
    for h in range(0, 96, 7)
] + [
    (
        START + timedelta(hours=h, minutes=14, seconds=59),
        START + timedelta(hours=h, minutes=30, seconds=1),
    )
    for h in range(3, 96, 11)
]


@pytest.fixture
def data(acme):
    for login in ("ann", "bob", "cy"):
        make_agent(acme, login)
    return generate(acme)


def scopes(acme, filters, span, zone=None):
    return report_scope(acme, *span, zone=zone, **filters)


@pytest.mark.parametrize("span", RANGES.values(), ids=RANGES)
@pytest.mark.parametrize("filters", FILTERS.values(), ids=FILTERS)
def test_the_summary_counts_what_the_rows_hold(acme, data, filters, span):
    scope = scopes(acme, filters, span)
    expected = reference_summary(data, scope)
    summary = campaign_summary(scope)
    assert summary.attempts > 0 or filters
    got = {
        name: getattr(summary, name) for name in expected if name not in ("outcomes", "work_codes")
    }
    assert got == {k: v for k, v in expected.items() if k not in ("outcomes", "work_codes")}
    assert dict(summary.outcomes) == expected["outcomes"]
    assert {(k, v): n for k, v, n in summary.work_codes} == expected["work_codes"]
    counts = [n for _k, _v, n in summary.work_codes]
    assert counts == sorted(counts, reverse=True)
    assert summary.contact_rate == (
        summary.contacts / summary.attempts if summary.attempts else None
    )
    assert summary.penetration == summary.attempted_tasks / summary.tasks


def test_ranges_inside_a_slot_or_around_one_count_exactly(acme, data):
    for span in SHORT:
        scope = scopes(acme, {}, span)
        expected = reference_summary(data, scope)
        summary = campaign_summary(scope)
        assert (summary.attempts, summary.contacts, summary.attempted_tasks) == (
            expected["attempts"],
            expected["contacts"],
            expected["attempted_tasks"],
        )
        assert {(k, v): n for k, v, n in summary.work_codes} == expected["work_codes"]
        rows = agent_summary(scope, now=NOW)
        reference = reference_agents(data, scope, NOW)
        for row in rows:
            assert {name: getattr(row, name) for name in reference[row.agent]} == reference[
                row.agent
            ]
        got = {
            i.start: (i.attempts, i.contacts, i.successes) for i in attempts_by_interval(scope, 15)
        }
        assert {k: v for k, v in got.items() if v[0]} == reference_intervals(data, scope, 15)
    assert sum(reference_summary(data, scopes(acme, {}, span))["attempts"] for span in SHORT) > 5


@pytest.mark.parametrize("zone", ["Europe/London", "Asia/Kolkata", "Australia/Lord_Howe"])
@pytest.mark.parametrize("minutes", [15, 30, 60])
@pytest.mark.parametrize("filters", FILTERS.values(), ids=FILTERS)
def test_intervals_count_each_attempt_in_its_local_interval(acme, data, filters, minutes, zone):
    scope = scopes(acme, filters, RANGES["all days"], zone)
    intervals = attempts_by_interval(scope, minutes)
    expected = reference_intervals(data, scope, minutes)
    got = {i.start: (i.attempts, i.contacts, i.successes) for i in intervals if i.attempts}
    assert got == expected
    starts = [i.start for i in intervals]
    assert starts == sorted(starts)
    assert starts[0] <= scope.start < starts[0] + timedelta(minutes=minutes)
    assert all(b - a == timedelta(minutes=minutes) for a, b in zip(starts, starts[1:]))  # noqa: B905


def test_a_range_without_attempts_has_every_interval_as_zeros(acme):
    scope = report_scope(acme, START, START + timedelta(hours=2))
    intervals = attempts_by_interval(scope, 30)
    assert [(i.start, i.attempts, i.contacts, i.successes) for i in intervals] == [
        (START + timedelta(minutes=30 * n), 0, 0, 0) for n in range(4)
    ]
    assert campaign_summary(scope).is_empty


@pytest.mark.parametrize(
    ("zone", "day", "hours"),
    [
        # Spring forward: 01:00 then 03:00 (the 02:00 hour never shows on the wall).
        ("Europe/Paris", datetime(2026, 3, 29, tzinfo=UTC), 23),
        # Fall back: 02:00 shows twice, as two hour-long intervals.
        ("Europe/Paris", datetime(2026, 10, 25, tzinfo=UTC), 25),
        ("UTC", datetime(2026, 3, 29, tzinfo=UTC), 24),
    ],
)
def test_a_local_day_has_its_real_number_of_hourly_intervals(acme, zone, day, hours):
    local_midnight = day.replace(tzinfo=None).replace(tzinfo=__import__("zoneinfo").ZoneInfo(zone))
    start = local_midnight.astimezone(UTC)
    end = (local_midnight + timedelta(days=1)).replace(tzinfo=None)
    end = end.replace(tzinfo=local_midnight.tzinfo).astimezone(UTC)
    intervals = attempts_by_interval(report_scope(acme, start, end, zone=zone), 60)
    assert len(intervals) == hours
    walls = [i.start.astimezone(local_midnight.tzinfo).strftime("%H:%M") for i in intervals]
    assert walls == sorted(walls) or hours == 25
    assert all(wall.endswith(":00") for wall in walls)


@pytest.mark.parametrize("filters", FILTERS.values(), ids=FILTERS)
def test_best_hours_read_the_customers_local_clock(acme, data, filters):
    scope = scopes(acme, filters, RANGES["all days"])
    cells = best_hours(scope)
    assert [(c.weekday, c.hour) for c in cells] == [(d, h) for d in range(7) for h in range(24)]
    got = {(c.weekday, c.hour): (c.attempts, c.contacts) for c in cells if c.attempts}
    assert got == reference_hours(data, scope)


@pytest.mark.parametrize("span", RANGES.values(), ids=RANGES)
@pytest.mark.parametrize("filters", FILTERS.values(), ids=FILTERS)
def test_agents_figures_match_the_rows_and_the_clipped_spans(acme, data, filters, span):
    scope = scopes(acme, filters, span)
    rows = agent_summary(scope, now=NOW)
    expected = reference_agents(data, scope, NOW)
    assert [row.agent for row in rows] == sorted(expected)
    for row in rows:
        got = {name: getattr(row, name) for name in expected[row.agent]}
        assert got == expected[row.agent], row.agent


REFUSALS = [
    ({"end": START}, "to"),
    ({"end": START - timedelta(hours=1)}, "to"),
    ({"end": START + timedelta(days=366, seconds=1)}, "to"),
    ({"campaign_name": "Nope"}, "campaignName"),
    ({"queue_name": "Nope"}, "skillQueue"),
    ({"agent": "nobody"}, "agent"),
    ({"zone": "Mars/Olympus"}, "zone"),
]


@pytest.mark.parametrize(("change", "field"), REFUSALS)
def test_a_bad_scope_is_refused_naming_the_field(acme, change, field):
    arguments = {"start": START, "end": START + timedelta(days=1), **change}
    with pytest.raises(InvalidInput) as refused:
        report_scope(acme, arguments.pop("start"), arguments.pop("end"), **arguments)
    assert str(refused.value.field) == field
    assert refused.value.message.startswith(field)


def test_a_366_day_range_is_accepted_and_the_zone_defaults_to_the_campaigns(acme):
    scope = report_scope(acme, START, START + timedelta(days=366), campaign_name="Winback")
    assert scope.zone == "Europe/London"
    assert report_scope(acme, START, START + timedelta(days=1)).zone == "UTC"


def test_the_repeated_wall_clock_hour_of_a_fall_back_is_two_intervals(acme):
    """01:00-02:00 in London shows twice on 25 October 2026 (BST, then GMT): an attempt in
    each is counted in its own hourly interval, the database summing each stretch of one
    offset apart."""
    campaign = find_campaign(acme, "Winback")
    queue = campaign.default_skill_queue_id
    task = Task(record_id="fall-back", campaign_id=campaign.id, client_id="c1",
                skill_queue_id=queue, time_zone="Europe/London")  # fmt: skip
    db.session.add(task)
    db.session.flush()
    for at in ("2026-10-24T23:50", "2026-10-25T00:20", "2026-10-25T00:40", "2026-10-25T01:20"):
        db.session.add(
            Attempt(task_id=task.id, campaign_id=campaign.id, agent_id=0, agent_login="ann",
                    delivered_at=datetime.fromisoformat(at).replace(tzinfo=UTC),
                    time_zone="Europe/London", work_codes=[], contact=False, success=False)
        )  # fmt: skip
    db.session.commit()
    start, end = datetime(2026, 10, 24, 23, tzinfo=UTC), datetime(2026, 10, 26, tzinfo=UTC)
    scope = report_scope(acme, start, end, zone="Europe/London")
    counted = {i.start: i.attempts for i in attempts_by_interval(scope, 60) if i.attempts}
    assert counted == {
        datetime(2026, 10, 24, 23, tzinfo=UTC): 1,  # 00:00 BST
        datetime(2026, 10, 25, 0, tzinfo=UTC): 2,  # 01:00 BST
        datetime(2026, 10, 25, 1, tzinfo=UTC): 1,  # 01:00 GMT
    }
