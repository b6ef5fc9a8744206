"""Operator commands for agents at the desk: `flask --app wsgi agent queues|zone|invite`."""

from __future__ import annotations

import click
from flask import current_app

from app.cli.common import tenant_of, transactional
from app.services.actors import Actor
from app.services.people import agents
from app.services.people.users import get_user

agent_group = click.Group(
    "agent", help="Agents: their skill queues, time zone and desk invitations."
)


@agent_group.command("queues")
@click.argument("company")
@click.argument("environment")
@click.argument("login_user_id")
@click.argument("queues", nargs=-1, required=True)
@transactional
def set_queues(company: str, environment: str, login_user_id: str, queues: tuple[str, ...]) -> str:
    """Give the agent exactly these skill queues."""
    agent = get_user(tenant_of(company, environment), login_user_id)
    names = agents.set_agent_queues(agent, queues, actor=Actor.operator())
    return f"Agent {agent.login_user_id} now works {', '.join(names)}."


@agent_group.command("zone")
@click.argument("company")
@click.argument("environment")
@click.argument("login_user_id")
@click.argument("zone", required=False)
@click.option("--none", "clear", is_flag=True, help="No zone of its own: the desk says UTC.")
@transactional
def set_zone(
    company: str, environment: str, login_user_id: str, zone: str | None, clear: bool
) -> str:
    """Set the agent's own IANA time zone, in which the desk says times."""
    if bool(zone) == clear:
        raise click.UsageError("give either a ZONE or --none")
    agent = get_user(tenant_of(company, environment), login_user_id)
    agents.set_agent_zone(agent, None if clear else zone, actor=Actor.operator())
    return f"Agent {agent.login_user_id} reads times in {agent.time_zone or 'UTC'}."


@agent_group.command("invite")
@click.argument("company")
@click.argument("environment")
@click.argument("login_user_id")
@transactional
def invite(company: str, environment: str, login_user_id: str) -> str:
    """Print a one-time link (valid 72 hours) where the agent chooses a desk password."""
    agent = get_user(tenant_of(company, environment), login_user_id)
    token = agents.invite(agent, actor=Actor.operator())
    click.echo(
        f"Invitation for {agent.login_user_id} of {agent.tenant.label}, valid for "
        f"{int(agents.INVITE_VALID.total_seconds() // 3600)} hours, usable once:"
    )
    return agents.invite_link(current_app.config["PUBLIC_BASE_URL"], token)
