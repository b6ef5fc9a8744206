"""Operator commands for identity providers: `flask --app wsgi sso show|remove|passwords`.

Each kind's own command (`sso saml`, `sso oidc`, `sso ldap`) sets a tenant's provider, or
the console's with `--console` in place of COMPANY ENVIRONMENT.
"""

from __future__ import annotations

import json

import click

from app.cli.common import tenant_of, transactional
from app.models import Tenant
from app.services.actors import Actor
from app.services.sso import providers

sso_group = click.Group("sso", help="Identity providers: sign-in for agents and supervisors.")


def realm_tenant(company: str | None, environment: str | None, console: bool) -> Tenant | None:
    """The tenant the command names, or None for `--console`; one or the other."""
    if console == bool(company or environment):
        raise click.UsageError("name COMPANY ENVIRONMENT, or --console, not both")
    if console:
        return None
    if not (company and environment):
        raise click.UsageError("name both COMPANY and ENVIRONMENT")
    return tenant_of(company, environment)


def realm_arguments(command):
    command = click.option(
        "--console", is_flag=True, help="The supervisors' console instead of a tenant."
    )(command)
    command = click.argument("environment", required=False)(command)
    return click.argument("company", required=False)(command)


@sso_group.command("show")
@realm_arguments
@transactional
def show(company: str | None, environment: str | None, console: bool) -> str:
    """Show the identity provider (never its secret)."""
    tenant = realm_tenant(company, environment, console)
    provider = providers.provider_for(tenant)
    shown = providers.describe(provider) if provider else {"kind": None}
    if tenant is not None:
        shown["localAgentPasswords"] = tenant.local_agent_passwords
    return json.dumps(shown, indent=2, sort_keys=True)


@sso_group.command("remove")
@realm_arguments
@transactional
def remove(company: str | None, environment: str | None, console: bool) -> str:
    """Remove the identity provider: passwords sign in again."""
    tenant = realm_tenant(company, environment, console)
    providers.remove_provider(tenant, actor=Actor.operator())
    return "Identity provider removed; passwords sign in again."


@sso_group.command("passwords")
@click.argument("company")
@click.argument("environment")
@click.option("--on/--off", "allowed", required=True, help="Agents' own desk passwords.")
@transactional
def passwords(company: str, environment: str, allowed: bool) -> str:
    """Let the tenant's agents sign in with a password of the desk, or not."""
    tenant = tenant_of(company, environment)
    providers.set_local_agent_passwords(tenant, allowed, actor=Actor.operator())
    return f"Agents' own passwords {'on' if allowed else 'off'} for {tenant.label}."
