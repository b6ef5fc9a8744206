"""Operator commands for tenants: `flask --app wsgi tenant create|rotate-key|set-instance|
set-person-key`."""

from __future__ import annotations

from datetime import timedelta

import click
from flask import current_app

from app.cli.common import tenant_of, transactional
from app.models import REGIONS, AuthMode, InstanceKind
from app.services.actors import Actor
from app.services.contact_limits import limits as contact_limits
from app.services.tenants import api_keys as keys
from app.services.tenants import ccp
from app.services.tenants import setup as tenants

tenant_group = click.Group("tenant", help="Tenants (company environments) and their API keys.")


@tenant_group.command("create")
@click.argument("company")
@click.argument("environment")
@click.option("--region", required=True, type=click.Choice(REGIONS))
@click.option("--auth-mode", required=True, type=click.Choice([m.value for m in AuthMode]))
@transactional
def create_tenant(company: str, environment: str, region: str, auth_mode: str) -> str:
    """Create a tenant and print its first API key on the last line."""
    tenant = tenants.create_tenant(
        current_app.config["PLATFORM_CODE"],
        company,
        environment,
        region,
        auth_mode,
        actor=Actor.operator(),
    )
    click.echo(f"Created tenant {tenant.label} in {region} ({auth_mode}). API key:")
    return keys.issue_key(tenant, actor=Actor.operator())


@tenant_group.command("rotate-key")
@click.argument("company")
@click.argument("environment")
@transactional
def rotate_key(company: str, environment: str) -> str:
    """Issue a new API key; the previous one works until its grace period ends."""
    grace = timedelta(seconds=current_app.config["KEY_GRACE_SECONDS"])
    key = keys.rotate_key(tenant_of(company, environment), grace, actor=Actor.operator())
    click.echo(f"The previous key keeps working for {grace}. New API key:")
    return key


@tenant_group.command("set-instance")
@click.argument("company")
@click.argument("environment")
@click.option(
    "--local",
    "kind",
    flag_value=InstanceKind.LOCAL.value,
    default=True,
    help="Use the embedded instance (the default).",
)
@click.option(
    "--amazon-connect",
    "kind",
    flag_value=InstanceKind.AMAZON_CONNECT.value,
    help="Use an Amazon Connect instance.",
)
@click.option("--instance-id", help="Amazon Connect instance id or ARN.")
@click.option("--connect-region", help="AWS region of the Amazon Connect instance.")
@click.option(
    "--ccp-url",
    metavar="URL",
    help="Amazon Connect: embed this Contact Control Panel in the desk "
    "(https://NAME.my.connect.aws/ccp-v2/).",
)
@click.option("--no-ccp", is_flag=True, help="No Contact Control Panel: the desk uses tel: links.")
@transactional
def set_instance(
    company: str,
    environment: str,
    kind: str,
    instance_id: str | None,
    connect_region: str | None,
    ccp_url: str | None,
    no_ccp: bool,
) -> str:
    """Choose the contact-centre instance where provisioned users are created, and for
    Amazon Connect the Contact Control Panel the desk embeds (kept when not given)."""
    if ccp_url is not None and no_ccp:
        raise click.ClickException("give either --ccp-url URL or --no-ccp")
    tenant = tenant_of(company, environment)
    tenants.set_instance(tenant, kind, instance_id, connect_region, actor=Actor.operator())
    if ccp_url is not None or no_ccp:
        ccp.set_ccp_url(tenant, ccp_url, actor=Actor.operator())
    where = f" {instance_id} in {connect_region}" if instance_id and kind != "local" else ""
    said = f"Tenant {tenant.label} now uses the {kind} instance{where}"
    if kind == InstanceKind.LOCAL:
        return f"{said}."
    panel = tenant.connect_ccp_url
    desk = f"the desk embeds the CCP {panel}" if panel else "the desk uses tel: links"
    return f"{said}; {desk}."


@tenant_group.command("set-person-key")
@click.argument("company")
@click.argument("environment")
@click.argument("key")
@transactional
def set_person_key(company: str, environment: str, key: str) -> str:
    """Name the data item that identifies a person across campaigns (an account or customer
    number), which contact limits per person count by; '' for none (a person is then a
    clientId)."""
    tenant = tenant_of(company, environment)
    changed = contact_limits.set_person_key(tenant, key, actor=Actor.operator())
    now = f"data item '{tenant.person_key}'" if tenant.person_key else "its clientId"
    said = "now" if changed else "already"
    return f"Tenant {tenant.label}: a person is {said} named by {now}."
