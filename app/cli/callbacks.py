"""Operator commands for personal callbacks: `flask --app wsgi callback list|hand-over`.

The same service as the supervisors' Callbacks page (app/services/delivery/callbacks.py):
the tasks kept for an agent now, and handing one to another agent of its queue.
"""

from __future__ import annotations

import click

from app.cli.common import read_only, tenant_of, transactional
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import callbacks

callback_group = click.Group("callback", help="Tasks kept for an agent: personal callbacks.")


def _at(moment) -> str:
    return "now" if moment is None else f"{moment:%Y-%m-%d %H:%M} UTC"


@callback_group.command("list")
@click.argument("company")
@click.argument("environment")
@click.option("--agent", help="Only the callbacks kept for this loginUserId.")
@read_only
def list_callbacks(company: str, environment: str, agent: str | None):
    """List the callbacks kept now, the soonest first: record id, agent, due, kept until,
    name, the customer's zones (tab-separated)."""
    tenant = tenant_of(company, environment)
    found = callbacks.callbacks(tenant, utcnow(), agent)
    for kept in found:
        click.echo(
            "\t".join(
                (
                    kept.task.record_id,
                    kept.agent,
                    _at(kept.due),
                    _at(kept.kept_until),
                    kept.name or "",
                    ",".join(kept.zones),
                )
            )
        )
    more = f" (the first {callbacks.SHOWN})" if len(found) == callbacks.SHOWN else ""
    click.echo(f"{len(found)} callbacks kept for an agent in {tenant.label}{more}.", err=True)


@callback_group.command("hand-over")
@click.argument("company")
@click.argument("environment")
@click.argument("record_id")
@click.option("--to", "to_login", required=True, help="The agent's loginUserId.")
@transactional
def hand_over(company: str, environment: str, record_id: str, to_login: str) -> str:
    """Keep a callback for another agent of its queue (the same time, the same hold)."""
    tenant = tenant_of(company, environment)
    callbacks.hand_over(tenant, record_id, to_login, actor=Actor.operator(), now=utcnow())
    return f"Task {record_id} is kept for {to_login}."
