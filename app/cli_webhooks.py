"""Operator commands for webhook endpoints: `flask --app wsgi webhook add|list|remove`.

`add` prints the endpoint's signing secret alone on the last line (it is not shown again).
"""

from __future__ import annotations

import click

from app.cli import _tenant, transactional
from app.services.actors import Actor
from app.services.webhooks import endpoints
from app.services.webhooks.catalogue import EVENT_TYPES

webhook_group = click.Group("webhook", help="Webhook endpoints of a tenant.")


@webhook_group.command("add")
@click.argument("company")
@click.argument("environment")
@click.argument("url")
@click.option(
    "--event",
    "events",
    multiple=True,
    metavar="TYPE",
    help=f"An event type to send; repeat for several. None: every type. ({', '.join(EVENT_TYPES)})",
)
@click.option("--description", default="", help="What the endpoint is for.")
@transactional
def add(company: str, environment: str, url: str, events: tuple[str, ...], description: str):
    """Register an endpoint and print its signing secret on the last line."""
    endpoint = endpoints.create_endpoint(
        _tenant(company, environment), url, list(events), description, actor=Actor.operator()
    )
    click.echo(f"Added webhook endpoint {endpoint.id} for {endpoint.url}. Signing secret:")
    return endpoint.secret


@webhook_group.command("list")
@click.argument("company")
@click.argument("environment")
@transactional
def list_(company: str, environment: str) -> str | None:
    """List the endpoints: id, state, URL, event types, description."""
    found = endpoints.list_endpoints(_tenant(company, environment))
    for endpoint in found:
        state = "enabled" if endpoint.enabled else f"disabled ({endpoint.disabled_reason})"
        types = ",".join(endpoint.event_types) or "all"
        click.echo(f"{endpoint.id}\t{state}\t{endpoint.url}\t{types}\t{endpoint.description}")
    return None if found else "No webhook endpoints."


@webhook_group.command("remove")
@click.argument("company")
@click.argument("environment")
@click.argument("endpoint_id", type=int)
@transactional
def remove(company: str, environment: str, endpoint_id: int) -> str:
    """Delete an endpoint and its delivery log."""
    endpoint = endpoints.get_endpoint(_tenant(company, environment), endpoint_id)
    url = endpoint.url
    endpoints.delete_endpoint(endpoint, actor=Actor.operator())
    return f"Removed webhook endpoint {endpoint_id} ({url})."
