"""The maintained pack of US state calling rules: the states that restrict telephone
solicitation beyond the federal 08:00-21:00 (47 CFR § 64.1200(c)(1)).

The pack is data (`us_pack.csv`, one rule a row with the law it follows), checked against
the statutes on CHECKED; loading it adds its rules to a tenant's calling rules, where a
supervisor edits or removes them like any other. A rule the tenant already has (the same
region, hours, days, days without calls, holidays and limit) is not added twice, so loading
the pack again after an update adds only what changed. It is a starting point for the
tenant's compliance officer, who remains the judge of what applies to their calls.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from app.models import Tenant
from app.services.actors import Actor
from app.services.calling_rules import rules
from app.services.calling_rules.rules import NewRule

PACK = Path(__file__).with_name("us_pack.csv")
CHECKED = "2026-12-03"


@dataclass(frozen=True)
class Loaded:
    added: list
    already: int


def pack_rules() -> list[NewRule]:
    with PACK.open(newline="", encoding="utf-8") as file:
        return [
            NewRule(
                region=row["region"],
                hours=row["hours"] or None,
                days=row["days"] or None,
                no_calls_on=row["no_calls_on"] or None,
                holidays=row["holidays"] == "yes",
                max=row["max"] or None,
                within=row["within"] or None,
                per=row["per"] or None,
                source=f"{row['source']}; US pack checked {CHECKED}",
            )
            for row in csv.DictReader(file)
        ]


def load_us(tenant: Tenant, *, actor: Actor) -> Loaded:
    """Add the pack's rules the tenant does not have yet (the pack is checked whole first)."""
    have = {rules.key_of(rule) for rule in rules.list_rules(tenant)}
    added, already = [], 0
    for checked in [rules.check_rule(new) for new in pack_rules()]:
        if checked.key in have:
            already += 1
            continue
        have.add(checked.key)
        added.append(rules.add_rule(tenant, checked, actor=actor))
    return Loaded(added, already)
