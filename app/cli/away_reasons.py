"""Operator commands for the reasons agents give for being AWAY: `flask --app wsgi away-reason
add|list|remove`."""

from __future__ import annotations

import click

from app.cli.common import tenant_of, transactional
from app.services.actors import Actor
from app.services.delivery import away_reasons

away_reason_group = click.Group(
    "away-reason", help="The reasons a tenant's agents choose for being Away."
)


@away_reason_group.command("add")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.option("--order", "sort_order", type=int, default=0, help="The desk lists lower first.")
@transactional
def add(company: str, environment: str, name: str, sort_order: int) -> str:
    """Add an away reason (at most 40 characters, unique whatever its case)."""
    reason = away_reasons.add_reason(
        tenant_of(company, environment), name, sort_order=sort_order, actor=Actor.operator()
    )
    return f"Added away reason '{reason.name}'."


@away_reason_group.command("list")
@click.argument("company")
@click.argument("environment")
@transactional
def list_reasons(company: str, environment: str) -> str:
    """The tenant's away reasons, one a line (name<TAB>order), in the desk's order."""
    reasons = away_reasons.list_reasons(tenant_of(company, environment))
    if not reasons:
        return "No away reason: agents go Away without one."
    return "\n".join(f"{reason.name}\t{reason.sort_order}" for reason in reasons)


@away_reason_group.command("remove")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@transactional
def remove(company: str, environment: str, name: str) -> str:
    """Remove an away reason; agents away with it stay so, the reports keep its time."""
    reason = away_reasons.remove_reason(
        tenant_of(company, environment), name, actor=Actor.operator()
    )
    return f"Removed away reason '{reason.name}'."
