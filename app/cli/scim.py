"""Operator commands for a tenant's SCIM provisioning: `flask --app wsgi scim
token|template|map-group|mappings`.

`token` prints a new bearer token on its last line (shown once, stored hashed); the one it
replaces keeps working for KEY_GRACE_SECONDS, as a rotated API key does.
"""

from __future__ import annotations

from datetime import timedelta

import click
from flask import current_app

from app.cli.common import read_only, tenant_of, transactional
from app.models import Role
from app.services.actors import Actor
from app.services.people import directory_groups
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


@scim_group.command("map-group")
@click.argument("company")
@click.argument("environment")
@click.argument("group")
@click.option("--queue", help="The skill queue the group's members work.")
@click.option(
    "--role",
    type=click.Choice([role.value for role in Role]),
    help="The console role the group's members have in the tenant.",
)
@click.option("--none", "unmapped", is_flag=True, help="The group gives nothing any more.")
@transactional
def map_group(
    company: str, environment: str, group: str, queue: str | None, role: str | None,
    unmapped: bool,
):  # fmt: skip
    """Map a group name of the identity provider to a skill queue (its members, now and
    later, work that queue) or to a console role (they have it in the tenant's console, as
    the account of their primary e-mail address); --none takes the mapping away (and what it
    gave from its members)."""
    if [queue is not None, role is not None, unmapped].count(True) != 1:
        raise click.UsageError("say --queue QUEUE, --role ROLE or --none")
    tenant = tenant_of(company, environment)
    given = Role(role) if role else None
    directory_groups.map_group(tenant, group, queue, role=given, actor=Actor.operator())
    if given is not None:
        return f"The members of group '{group}' of {tenant.label} are {role}s of its console."
    if queue is None:
        return f"Group '{group}' of {tenant.label} gives no skill queue and no role."
    return f"The members of group '{group}' of {tenant.label} work skill queue {queue}."


@scim_group.command("mappings")
@click.argument("company")
@click.argument("environment")
@read_only
def list_mappings(company: str, environment: str):
    """The group names mapped: group, then the skill queue or `role:ROLE` (tab-separated)."""
    tenant = tenant_of(company, environment)
    for mapping in directory_groups.mappings(tenant):
        gives = mapping.skill_queue.name if mapping.skill_queue else f"role:{mapping.role}"
        click.echo(f"{mapping.group_name}\t{gives}")
