"""Operator commands for tenants: `flask --app wsgi tenant create|rotate-key|set-instance`."""

from __future__ import annotations

from datetime import timedelta

import click
from flask import current_app

from app.cli.common import tenant_of, transactional
from app.models import REGIONS, AuthMode, InstanceKind
from app.services.actors import Actor
from app.services.tenants import api_keys as keys
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
@transactional
def set_instance(
    company: str, environment: str, kind: str, instance_id: str | None, connect_region: str | None
) -> str:
    """Choose the contact-centre instance where provisioned users are created."""
    tenant = tenant_of(company, environment)
    tenants.set_instance(tenant, kind, instance_id, connect_region, actor=Actor.operator())
    where = f" {instance_id} in {connect_region}" if instance_id and kind != "local" else ""
    return f"Tenant {tenant.label} now uses the {kind} instance{where}."  # fmt: skip
