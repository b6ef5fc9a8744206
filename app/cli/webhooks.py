"""Operator commands for webhook endpoints: `flask --app wsgi webhook add|list|remove`.

`add` prints the endpoint's signing secret alone on the last line (it is not shown again).
An endpoint receives the events that happen once it exists; `add --replay-from TIME` or
`replay … --since TIME` queues the tenant's earlier events too.
"""

from __future__ import annotations

import click

from app.cli.common import tenant_of, transactional
from app.services.actors import Actor
from app.services.webhooks import endpoints, log
from app.services.webhooks.event_types import EVENT_TYPES

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
@click.option(
    "--replay-from",
    metavar="TIME",
    help="Also send the tenant's events since TIME (ISO 8601, UTC unless an offset is "
    "given), from before the endpoint existed. Without it: only events from now on.",
)
@transactional
def add(
    company: str,
    environment: str,
    url: str,
    events: tuple[str, ...],
    description: str,
    replay_from: str | None,
):
    """Register an endpoint and print its signing secret on the last line."""
    since = None if replay_from is None else log.parse_since(replay_from)
    endpoint = endpoints.create_endpoint(
        tenant_of(company, environment), url, list(events), description, actor=Actor.operator()
    )
    said = f"Added webhook endpoint {endpoint.id} for {endpoint.url}"
    if since is None:
        said += f"; it receives the events from {endpoint.created_at:%Y-%m-%d %H:%M:%S} UTC on"
    else:
        added = log.replay_since(endpoint, since, actor=Actor.operator())
        said += f", with {added} earlier event(s) since {since:%Y-%m-%d %H:%M:%S} UTC"
    click.echo(said + ". Signing secret:")
    return endpoint.secret


@webhook_group.command("list")
@click.argument("company")
@click.argument("environment")
@transactional
def list_(company: str, environment: str) -> str | None:
    """List the endpoints: id, state, URL, event types, description."""
    found = endpoints.list_endpoints(tenant_of(company, environment))
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
    endpoint = endpoints.get_endpoint(tenant_of(company, environment), endpoint_id)
    url = endpoint.url
    endpoints.delete_endpoint(endpoint, actor=Actor.operator())
    return f"Removed webhook endpoint {endpoint_id} ({url})."


@webhook_group.command("replay")
@click.argument("company")
@click.argument("environment")
@click.argument("endpoint_id", type=int)
@click.option(
    "--since",
    "since",
    required=True,
    metavar="TIME",
    help="ISO 8601 (e.g. 2026-03-01T09:00), UTC unless an offset is given.",
)
@transactional
def replay(company: str, environment: str, endpoint_id: int, since: str) -> str:
    """Queue the tenant's events since TIME that the endpoint has not had (from before it
    was added, or while it was disabled), oldest first."""
    endpoint = endpoints.get_endpoint(tenant_of(company, environment), endpoint_id)
    start = log.parse_since(since)
    added = log.replay_since(endpoint, start, actor=Actor.operator())
    return (
        f"Queued {added} event(s) since {start:%Y-%m-%d %H:%M:%S} UTC for endpoint {endpoint_id}."
    )
