"""Operator commands for user templates: `flask --app wsgi user-template create`."""

from __future__ import annotations

import click

from app.cli.common import tenant_of, transactional
from app.models import PhoneType
from app.services.actors import Actor
from app.services.tenants import setup as tenants

template_group = click.Group("user-template", help="User templates of a tenant.")


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
        tenant_of(company, environment),
        name,
        tenants.TemplateSettings(**settings),
        actor=Actor.operator(),
        skill_queues=queues,
    )
    return f"Created user template '{template.name}'."
