"""Operator commands for regional calling rules: `flask --app wsgi calling-rules
add|list|remove|load-us`.

Each command answers bad input with a one-line error and a non-zero exit; a change runs in
one transaction (a pack loads whole or not at all).
"""

from __future__ import annotations

import click

from app.cli.common import read_only, tenant_of, transactional
from app.services.actors import Actor
from app.services.calling_rules import pack, rules
from app.services.calling_rules.rules import NewRule

calling_rules_group = click.Group(
    "calling-rules", help="When customers in a region may be called, in their local time."
)


def _line(rule) -> str:
    source = f"\t{rule.source}" if rule.source else ""
    return f"{rule.id}\t{rules.rule_words(rule)}{source}"


@calling_rules_group.command("add")
@click.argument("company")
@click.argument("environment")
@click.option("--region", required=True, help="ISO 3166-2 region, e.g. US-FL.")
@click.option("--hours", metavar="HH:MM-HH:MM", help="Calls only then, in the customer's time.")
@click.option("--days", metavar="DAYS", help="The weekdays the hours hold on (e.g. mon-sat).")
@click.option("--no-calls-on", metavar="DAYS", help="Weekdays without calls (e.g. sun).")
@click.option("--holidays", is_flag=True, help="No calls on the region's public holidays.")
@click.option("--max", "max_count", metavar="N", help="A limit of the region's tasks: N calls…")
@click.option("--within", metavar="DURATION", help="…within this rolling window (24h, 7d).")
@click.option("--per", metavar="person|number", help="…per person or per number.")
@click.option("--source", default="", help="The law it follows (at most 255 characters).")
@transactional
def add(company, environment, region, hours, days, no_calls_on, holidays, max_count, within,
        per, source) -> str:  # fmt: skip
    """Add a regional calling rule."""
    tenant = tenant_of(company, environment)
    new = NewRule(region, hours, days, no_calls_on, holidays, max_count, within, per, source)
    rule = rules.add_rule(tenant, new, actor=Actor.operator())
    return f"Added calling rule {rule.id}: {rules.rule_words(rule)}."


@calling_rules_group.command("list")
@click.argument("company")
@click.argument("environment")
@read_only
def list_rules(company: str, environment: str) -> None:
    """The tenant's rules by region: id, what it says, its source."""
    found = rules.list_rules(tenant_of(company, environment))
    for rule in found:
        click.echo(_line(rule))
    if not found:
        click.echo("No calling rule.", err=True)


@calling_rules_group.command("remove")
@click.argument("company")
@click.argument("environment")
@click.argument("rule_id", metavar="ID")
@transactional
def remove(company: str, environment: str, rule_id: str) -> str:
    """Remove a rule (and its limit): calls it held back may be placed at once."""
    rule = rules.remove_rule(tenant_of(company, environment), rule_id, actor=Actor.operator())
    return f"Removed calling rule {rule.id}: {rules.rule_words(rule)}."


@calling_rules_group.command("load-us")
@click.argument("company")
@click.argument("environment")
@transactional
def load_us(company: str, environment: str) -> str:
    """Load the maintained pack of US states that restrict calls beyond 08:00-21:00."""
    loaded = pack.load_us(tenant_of(company, environment), actor=Actor.operator())
    for rule in loaded.added:
        click.echo(_line(rule))
    return (
        f"Loaded the US pack (checked {pack.CHECKED}): {len(loaded.added)} rules added, "
        f"{loaded.already} already there."
    )
