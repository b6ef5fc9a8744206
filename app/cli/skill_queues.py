"""Operator commands for skill queues: `flask --app wsgi skill-queue create|set-hours`."""

from __future__ import annotations

import click

from app.cli.common import tenant_of, transactional
from app.services.actors import Actor
from app.services.schedules import hours
from app.services.tenants import setup as tenants
from app.services.tenants.setup import get_skill_queue

queue_group = click.Group("skill-queue", help="Skill queues of a tenant.")


@queue_group.command("create")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@transactional
def create_skill_queue(company: str, environment: str, name: str) -> str:
    """Create a skill queue."""
    queue = tenants.create_skill_queue(
        tenant_of(company, environment), name, actor=Actor.operator()
    )
    return f"Created skill queue '{queue.name}'."


@queue_group.command("set-hours")
@click.argument("company")
@click.argument("environment")
@click.argument("queue")
@click.argument("name", required=False)
@click.option("--none", "clear", is_flag=True, help="No schedule: the queue is always open.")
@transactional
def set_hours(company: str, environment: str, queue: str, name: str | None, clear: bool) -> str:
    """The schedule a skill queue follows (--none: always open)."""
    if bool(name) == clear:
        raise click.UsageError("give either a schedule NAME or --none")
    tenant = tenant_of(company, environment)
    skill_queue = get_skill_queue(tenant, queue)
    schedule = None if clear else hours.get_schedule(tenant, name)
    hours.set_queue_schedule(skill_queue, schedule, actor=Actor.operator())
    if schedule is None:
        return f"Skill queue '{skill_queue.name}' follows no schedule: always open."
    return f"Skill queue '{skill_queue.name}' follows schedule '{schedule.name}'."
