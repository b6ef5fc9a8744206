"""Operator commands for supervisors: `flask --app wsgi supervisor create|set-password`."""

from __future__ import annotations

import click

from app.cli.common import tenant_of, transactional
from app.services.actors import Actor
from app.services.people import supervisors

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
