"""The agents report counts time AWAY per away reason, adding up to the time AWAY."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.extensions import db
from app.services.actors import Actor
from app.services.delivery import agent_state, away_reasons
from app.services.reports import agent_summary, report_scope
from tests.conftest import SETUP
from tests.delivery.delivery_support import make_agent

NINE = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
MIN = timedelta(minutes=1)


def test_time_away_is_counted_per_reason_within_the_range(acme, client, signed_in):
    for name in ("Break", "Lunch"):
        away_reasons.add_reason(acme, name, actor=SETUP)
    ann = make_agent(acme, "ann")
    steps = [
        ("AVAILABLE", None, 0),
        ("AWAY", "Break", 10),  # 10 min of Break
        ("AVAILABLE", None, 20),
        ("AWAY", "Lunch", 30),  # 30 min of Lunch, then 5 with no reason
        ("AWAY", None, 60),
        ("OFFLINE", None, 65),
    ]
    for state, reason, minutes in steps:
        agent_state.set_agent_state(
            ann, state, reason=reason, actor=Actor.agent("ann"), now=NINE + minutes * MIN
        )
    away_reasons.remove_reason(acme, "Lunch", actor=SETUP)  # its time stays counted
    db.session.commit()
    (row,) = agent_summary(report_scope(acme, NINE, NINE + 2 * 60 * MIN), now=NINE + 3 * 60 * MIN)
    assert row.away_by_reason == (("Lunch", 1800), ("Break", 600), ("No reason", 300))
    assert row.away_seconds == 2700 == sum(seconds for _r, seconds in row.away_by_reason)
    # Clipped to the range like the time away itself.
    (row,) = agent_summary(
        report_scope(acme, NINE + 15 * MIN, NINE + 45 * MIN), now=NINE + 3 * 60 * MIN
    )
    assert row.away_by_reason == (("Lunch", 900), ("Break", 300))

    table = signed_in.get(
        f"/tenants/{acme.id}/reports?from=2026-03-10&to=2026-03-10&zone=UTC"
    ).get_data(as_text=True)
    assert "Away by reason (s)" in table and "Lunch 1800; Break 600; No reason 300" in table
