"""Operator commands: `flask --app wsgi tenant create ...` and friends.

Each command runs in one transaction and answers bad input with a one-line error and a
non-zero exit. Commands that issue a key print it alone on the last line.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import wraps

import click
from flask import Flask, current_app

from app.extensions import db
from app.models import REGIONS, AuthMode, CampaignType, InstanceKind, PhoneType, Tenant
from app.services import campaigns, demo, keys, supervisors, tenants
from app.services.actors import Actor
from app.services.errors import ServiceError


def transactional(command: Callable) -> Callable:
    """Commit when the command succeeds; roll back and exit 1 with the reason when not."""

    @wraps(command)
    def run(*args, **kwargs):
        try:
            result = command(*args, **kwargs)
            db.session.commit()
        except ServiceError as error:
            db.session.rollback()
            raise click.ClickException(error.message) from None
        if result is not None:
            click.echo(result)

    return run


def _tenant(company: str, environment: str) -> Tenant:
    return tenants.get_tenant(current_app.config["PLATFORM_CODE"], company, environment)


tenant_group = click.Group("tenant", help="Tenants (company environments) and their API keys.")
queue_group = click.Group("skill-queue", help="Skill queues of a tenant.")
campaign_group = click.Group("campaign", help="Campaigns of a tenant.")
template_group = click.Group("user-template", help="User templates of a tenant.")
supervisor_group = click.Group("supervisor", help="Supervisors who sign in to the web UI.")
demo_group = click.Group("demo", help="Demo data.")


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
    key = keys.rotate_key(_tenant(company, environment), grace, actor=Actor.operator())
    click.echo(f"The previous key keeps working for {grace}. New API key:")
    return key


@queue_group.command("create")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@transactional
def create_skill_queue(company: str, environment: str, name: str) -> str:
    """Create a skill queue."""
    queue = tenants.create_skill_queue(_tenant(company, environment), name, actor=Actor.operator())
    return f"Created skill queue '{queue.name}'."


@campaign_group.command("create")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.option("--skill-queue", required=True, help="Default skill queue.")
@click.option("--time-zone", required=True, help="Default IANA time zone.")
@click.option(
    "--type", "campaign_type", default="preview", type=click.Choice([t.value for t in CampaignType])
)
@transactional
def create_campaign(
    company: str, environment: str, name: str, skill_queue: str, time_zone: str, campaign_type: str
) -> str:
    """Create a campaign with its default skill queue and time zone."""
    campaign = campaigns.create_campaign(
        _tenant(company, environment),
        name,
        skill_queue,
        time_zone,
        campaign_type,
        actor=Actor.operator(),
    )
    return f"Created {campaign.type} campaign '{campaign.name}'."


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
    tenant = _tenant(company, environment)
    tenants.set_instance(tenant, kind, instance_id, connect_region, actor=Actor.operator())
    where = f" {instance_id} in {connect_region}" if instance_id and kind != "local" else ""
    return f"Tenant {tenant.label} now uses the {kind} instance{where}."  # fmt: skip


@template_group.command("create")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.option("--security-profile-id", multiple=True, help="Repeat for several (Amazon Connect).")
@click.option("--routing-profile-id", help="Routing profile id (Amazon Connect).")
@click.option("--hierarchy-group-id", help="Hierarchy group id (Amazon Connect).")
@click.option("--phone-type", default="SOFT_PHONE", type=click.Choice([p.value for p in PhoneType]))
@click.option("--auto-accept/--no-auto-accept", default=False)
@click.option("--after-contact-work-seconds", default=0, type=click.IntRange(min=0))
@click.option("--desk-phone-number", help="E.164 number, for DESK_PHONE.")
@click.option(
    "--skill-queue", multiple=True, help="A desk queue its users get; repeat for several."
)
@transactional
def create_user_template(company: str, environment: str, name: str, **settings) -> str:
    """Create a user template and what it stands for in the instance."""
    settings["security_profile_ids"] = list(settings.pop("security_profile_id"))
    queues = settings.pop("skill_queue")
    template = tenants.create_user_template(
        _tenant(company, environment),
        name,
        tenants.TemplateSettings(**settings),
        actor=Actor.operator(),
        skill_queues=queues,
    )
    return f"Created user template '{template.name}'."


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
        visible.append(_tenant(company, environment))
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


def register(app: Flask) -> None:
    from app.cli_agents import agent_group
    from app.cli_audit import audit_group
    from app.cli_calling import __name__ as _calling  # noqa: F401 - adds `campaign` commands
    from app.cli_campaigns import __name__ as _life  # noqa: F401 - adds `campaign` commands
    from app.cli_dnc import dnc_group
    from app.cli_hours import hours_group
    from app.cli_intake import intake_group
    from app.cli_webhooks import webhook_group
    from app.cli_work_codes import work_codes_group

    for group in (
        agent_group,
        audit_group,
        dnc_group,
        hours_group,
        work_codes_group,
        intake_group,
        tenant_group,
        queue_group,
        campaign_group,
        template_group,
        supervisor_group,
        demo_group,
        webhook_group,
    ):
        app.cli.add_command(group)
    from app.cli_worker import worker_command

    app.cli.add_command(worker_command)
