"""Demo data for a fresh install: `flask --app wsgi demo seed`."""

from __future__ import annotations

import click
from flask import current_app

from app.cli.common import transactional
from app.cli.demo_directory import directory_command
from app.demo import tenant as demo
from app.services.actors import Actor

demo_group = click.Group("demo", help="Demo data.")


@demo_group.command("seed")
@transactional
def seed_demo() -> str:
    """Create the demo tenant, queues, campaigns, tasks, supervisor and agents (safe to run
    again); print their sign-ins, and the API key on the last line."""
    seeded = demo.seed(
        current_app.config["PLATFORM_CODE"], current_app.instance_path, actor=Actor.operator()
    )
    tenant = f"{demo.COMPANY}/{demo.ENVIRONMENT}"
    base = current_app.config["PUBLIC_BASE_URL"].rstrip("/")
    click.echo(f"Demo tenant {tenant} is ready.")
    click.echo(
        f"Sign in to the web UI at {base}/login as {demo.SUPERVISOR}"
        f" with password {seeded.supervisor_password}"
    )
    desk = f"{base}/desk/login"
    for login, password in seeded.agent_passwords.items():
        click.echo(f"Sign in to the desk at {desk} as {tenant}/{login} with password {password}")
    click.echo("Demo API key:")
    return seeded.key


demo_group.add_command(directory_command)
