"""What each regional rule does now, as the Contact rules page says it: the zones of the
tenant's open tasks in its region (every zone of a task whose numbers span several) and
those in which it holds calls back, read for every rule at once on a controlled clock."""

from __future__ import annotations

from datetime import UTC, datetime

from app.extensions import db
from app.services.calling_rules import rules as calling_rules
from app.services.calling_rules.rules import NewRule
from tests.calling_rules.test_zones import IDAHO, by_number  # noqa: F401 - fixture
from tests.calls.calls_support import add_phones
from tests.conftest import SETUP

FLORIDA = "+13055550100"


def test_each_rule_names_the_zones_it_holds_back_now(acme, by_number):  # noqa: F811
    add_phones(by_number, "fl", Phone=FLORIDA)
    add_phones(by_number, "id", Phone=IDAHO)  # Boise and Los Angeles
    florida = calling_rules.add_rule(acme, NewRule("US-FL", hours="08:00-20:00"), actor=SETUP)
    idaho = calling_rules.add_rule(acme, NewRule("US-ID", hours="08:00-20:00"), actor=SETUP)
    texas = calling_rules.add_rule(acme, NewRule("US-TX", hours="09:00-21:00"), actor=SETUP)
    db.session.commit()
    rules = [florida, idaho, texas]
    # 19:30 in Boise (MST), 18:30 in Los Angeles, 21:30 in Miami (EST).
    found = calling_rules.standings(acme, rules, datetime(2026, 11, 25, 2, 30, tzinfo=UTC))
    assert {r.id: (s.zones, s.holding) for r, s in zip(rules, found.values(), strict=True)} == {
        florida.id: (["America/New_York"], ["America/New_York"]),
        idaho.id: (["America/Boise", "America/Los_Angeles"], []),
        texas.id: ([], []),
    }
    assert found[texas.id].words() == "no open task in its region"
    assert found[idaho.id].words() == "allows calls now"
    assert found[florida.id].words() == "holds calls back now in America/New_York"
    # 20:30 in Boise: its rule holds back there, not yet in Los Angeles (19:30).
    later = calling_rules.standings(acme, rules, datetime(2026, 11, 25, 3, 30, tzinfo=UTC))
    assert later[idaho.id].holding == ["America/Boise"]
