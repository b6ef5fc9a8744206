"""Operator commands for contact limits: `flask --app wsgi contact-limit add|list|remove`.

Bad input (a count out of 1..1000, a duration that is empty, malformed or over 90 days, an
unknown `--per` or `--counting`, an unknown campaign) is one error line and a non-zero
exit, and nothing is added.
"""

from __future__ import annotations

import click

from app.cli.common import read_only, tenant_of, transactional
from app.services.actors import Actor
from app.services.contact_limits import limits

contact_limit_group = click.Group(
    "contact-limit", help="How often a number, person or task may be called, across campaigns."
)


def _line(limit) -> str:
    return f"{limit.id} {limits.limit_words(limit)}"


@contact_limit_group.command("add")
@click.argument("company")
@click.argument("environment")
@click.option(
    "--max", "max_count", required=True, metavar="N", help="Calls (or contacts) allowed: 1 to 1000."
)
@click.option(
    "--within",
    required=True,
    metavar="DURATION",
    help="The rolling window: 30m, 24h, 7d (at most 90 days).",
)
@click.option("--per", required=True, metavar="number|person|task", help="What is counted per.")
@click.option(
    "--counting",
    default="calls",
    metavar="calls|contacts",
    help="Calls placed (default) or contacts made.",
)
@click.option(
    "--campaign", metavar="NAME", help="Only this campaign's calls (default: every campaign)."
)
@transactional
def add_limit(
    company: str,
    environment: str,
    max_count: str,
    within: str,
    per: str,
    counting: str,
    campaign: str | None,
) -> str:
    """Add a contact limit; print it with its id."""
    new = limits.NewLimit(max_count, within, per, counting, campaign)
    limit = limits.add_limit(tenant_of(company, environment), new, actor=Actor.operator())
    return f"Added contact limit {_line(limit)}"


@contact_limit_group.command("list")
@click.argument("company")
@click.argument("environment")
@read_only
def list_limits(company: str, environment: str) -> None:
    """One line per limit (its id, then the limit in words), or `no contact limits`."""
    found = limits.list_limits(tenant_of(company, environment))
    click.echo("\n".join(_line(limit) for limit in found) or "no contact limits")


@contact_limit_group.command("remove")
@click.argument("company")
@click.argument("environment")
@click.argument("limit_id", metavar="ID")
@transactional
def remove_limit(company: str, environment: str, limit_id: str) -> str:
    """Remove a contact limit by its id."""
    limit = limits.remove_limit(tenant_of(company, environment), limit_id, actor=Actor.operator())
    return f"Removed contact limit {limit.id} ({limits.limit_words(limit)})"
