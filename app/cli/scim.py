"""Operator commands for a tenant's SCIM provisioning: `flask --app wsgi scim token|template`.

`token` prints a new bearer token on its last line (shown once, stored hashed); the one it
replaces keeps working for KEY_GRACE_SECONDS, as a rotated API key does.
"""

from __future__ import annotations

from datetime import timedelta

import click
from flask import current_app

from app.cli.common import tenant_of, transactional
from app.services.actors import Actor
from app.services.tenants import api_keys, provisioning

scim_group = click.Group("scim", help="The tenant's SCIM endpoints for its identity provider.")


@scim_group.command("token")
@click.argument("company")
@click.argument("environment")
@transactional
def token(company: str, environment: str) -> str:
    """Make a new SCIM bearer token (the previous one works for the grace period)."""
    tenant = tenant_of(company, environment)
    grace = timedelta(seconds=current_app.config["KEY_GRACE_SECONDS"])
    made = api_keys.rotate_key(tenant, grace, actor=Actor.operator(), purpose=api_keys.SCIM)
    base = current_app.config["PUBLIC_BASE_URL"].rstrip("/")
    click.echo(f"SCIM base URL: {base}/scim/v2/{tenant.company_code}/{tenant.environment}")
    click.echo(f"Any previous SCIM token keeps working for {grace}. New SCIM token:")
    return made


@scim_group.command("template")
@click.argument("company")
@click.argument("environment")
@click.argument("template", default="")
@click.option(
    "--in-instance/--not-in-instance",
    default=False,
    show_default=True,
    help="Create the users in the contact-centre instance too.",
)
@transactional
def template(company: str, environment: str, template: str, in_instance: bool) -> str:
    """The user template of users the identity provider creates without naming one in the
    enterprise extension's department (empty: none)."""
    tenant = tenant_of(company, environment)
    provisioning.set_provisioning(tenant, template, in_instance, actor=Actor.operator())
    where = "in the service and the instance" if in_instance else "in the service"
    made = f"from template '{template}'" if template.strip() else "from the template they name"
    return f"Users provisioned by SCIM in {tenant.label} are created {made}, {where}."
