"""Operator commands for supervisors: `flask --app wsgi supervisor create|grant|revoke|
set-password|break-glass|link-identity|unlink-identity`."""

from __future__ import annotations

import click

from app.cli.common import tenant_of, transactional
from app.models import Role
from app.services.actors import Actor
from app.services.people import supervisors
from app.services.sso import identity

supervisor_group = click.Group("supervisor", help="Supervisors who sign in to the web UI.")


@supervisor_group.command("create")
@click.argument("email")
@click.option(
    "--password", required=True, help="At least 12 characters, not a common or breached one."
)
@click.option(
    "--tenant",
    "scopes",
    multiple=True,
    metavar="COMPANY/ENVIRONMENT",
    help="A tenant the supervisor may see; repeat for several. None: every tenant, as an "
    "administrator.",
)
@click.option(
    "--role",
    type=click.Choice([role.value for role in Role]),
    default=Role.SUPERVISOR.value,
    show_default=True,
    help="The role in each --tenant.",
)
@transactional
def create_supervisor(email: str, password: str, scopes: tuple[str, ...], role: str) -> str:
    """Create a supervisor account."""
    visible = []
    for scope in scopes:
        company, slash, environment = scope.partition("/")
        if not slash:
            raise click.ClickException(f"--tenant '{scope}' is not COMPANY/ENVIRONMENT")
        visible.append(tenant_of(company, environment))
    supervisor = supervisors.create_supervisor(
        email, password, visible, role=Role(role), actor=Actor.operator()
    )
    if not visible:
        return f"Created supervisor {supervisor.email}; administers every tenant."
    sees = ", ".join(t.label for t in visible)
    return f"Created supervisor {supervisor.email}; {role} of {sees}."


@supervisor_group.command("grant")
@click.argument("email")
@click.argument("company")
@click.argument("environment")
@click.option(
    "--role",
    type=click.Choice([role.value for role in Role]),
    required=True,
    help="analyst (reads), supervisor (runs the work) or administrator (keys, sign-in, "
    "webhooks, people, audit).",
)
@transactional
def grant(email: str, company: str, environment: str, role: str) -> str:
    """Give a supervisor a role in a tenant (replacing the one they had there)."""
    tenant = tenant_of(company, environment)
    supervisor = supervisors.find_supervisor(email)
    changed = supervisors.grant_role(supervisor, tenant, Role(role), actor=Actor.operator())
    already = "" if changed else " already"
    return f"{supervisor.email} is{already} {role} of {tenant.label}."


@supervisor_group.command("revoke")
@click.argument("email")
@click.argument("company")
@click.argument("environment")
@transactional
def revoke(email: str, company: str, environment: str) -> str:
    """Take a tenant away from a supervisor; their open pages of it end at the next request."""
    tenant = tenant_of(company, environment)
    supervisor = supervisors.find_supervisor(email)
    changed = supervisors.grant_role(supervisor, tenant, None, actor=Actor.operator())
    return f"{supervisor.email} {'no longer sees' if changed else 'did not see'} {tenant.label}."


@supervisor_group.command("set-password")
@click.argument("email")
@click.option(
    "--password", required=True, help="At least 12 characters, not a common or breached one."
)
@transactional
def set_supervisor_password(email: str, password: str) -> str:
    """Give a supervisor a new password; every session they have ends."""
    supervisor = supervisors.find_supervisor(email)
    supervisors.set_password(supervisor, password, actor=Actor.operator())
    return f"Password of {supervisor.email} changed; every session of theirs has ended."


@supervisor_group.command("break-glass")
@click.argument("email")
@click.option("--on/--off", "on", required=True)
@transactional
def break_glass(email: str, on: bool) -> str:
    """Let a supervisor sign in with a password while the console has an identity provider
    (for when the provider is down), or stop it."""
    supervisor = supervisors.find_supervisor(email)
    supervisors.set_break_glass(supervisor, on, actor=Actor.operator())
    return f"{supervisor.email} {'may' if on else 'may no longer'} sign in with a password."


@supervisor_group.command("link-identity")
@click.argument("email")
@click.option("--issuer", required=True, help="The console provider's issuer (or SAML entity id).")
@click.option(
    "--subject", required=True, help="The person's subject there (the refusal page says it)."
)
@transactional
def link_identity(email: str, issuer: str, subject: str) -> str:
    """Let that identity of the console's provider sign in to this account; its groups then
    decide the account's tenants (a break-glass account keeps its own)."""
    supervisor = supervisors.find_supervisor(email)
    identity.link_identity(supervisor, issuer, subject, actor=Actor.operator())
    return f"{supervisor.email} now signs in as {issuer}|{subject}."


@supervisor_group.command("unlink-identity")
@click.argument("email")
@transactional
def unlink_identity(email: str) -> str:
    """End the link between the account and its identity at the console's provider."""
    supervisor = supervisors.find_supervisor(email)
    identity.unlink_identity(supervisor, actor=Actor.operator())
    return f"{supervisor.email} is linked to no identity."
