"""Operator commands for supervisors: `flask --app wsgi supervisor create|set-password|
break-glass|link-identity|unlink-identity`."""

from __future__ import annotations

import click

from app.cli.common import tenant_of, transactional
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
    help="A tenant the supervisor may see; repeat for several. None: every tenant.",
)
@transactional
def create_supervisor(email: str, password: str, scopes: tuple[str, ...]) -> str:
    """Create a supervisor account."""
    visible = []
    for scope in scopes:
        company, slash, environment = scope.partition("/")
        if not slash:
            raise click.ClickException(f"--tenant '{scope}' is not COMPANY/ENVIRONMENT")
        visible.append(tenant_of(company, environment))
    supervisor = supervisors.create_supervisor(email, password, visible, actor=Actor.operator())
    sees = ", ".join(t.label for t in visible) if visible else "every tenant"
    return f"Created supervisor {supervisor.email}; sees {sees}."


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
