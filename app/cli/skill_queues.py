"""Operator commands for skill queues: `flask --app wsgi skill-queue create|set-hours|
set-wrap-up-limit|list`."""

from __future__ import annotations

import click

from app.cli.common import tenant_of, transactional
from app.services.actors import Actor
from app.services.delivery import wrap_up
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


@queue_group.command("set-wrap-up-limit")
@click.argument("company")
@click.argument("environment")
@click.argument("queue")
@click.argument("seconds", type=int, required=False)
@click.option("--none", "clear", is_flag=True, help="No limit: the desk never warns.")
@transactional
def set_wrap_up_limit(
    company: str, environment: str, queue: str, seconds: int | None, clear: bool
) -> str:
    """Seconds of wrap-up after which the desk warns the agent (5 to 3600; --none: never)."""
    if (seconds is None) != clear:
        raise click.UsageError("give either SECONDS or --none")
    skill_queue = get_skill_queue(tenant_of(company, environment), queue)
    wrap_up.set_wrap_up_limit(skill_queue, seconds, actor=Actor.operator())
    if seconds is None:
        return f"Skill queue '{skill_queue.name}' has no wrap-up limit."
    words = wrap_up.limit_words(seconds)
    return f"Skill queue '{skill_queue.name}' warns after {words} of wrap-up."


@queue_group.command("list")
@click.argument("company")
@click.argument("environment")
@transactional
def list_queues(company: str, environment: str) -> str:
    """The tenant's skill queues: name<TAB>schedule<TAB>wrap-up limit (seconds), one a line."""
    lines = []
    for skill_queue in tenants.list_skill_queues(tenant_of(company, environment)):
        schedule = skill_queue.schedule.name if skill_queue.schedule else "-"
        limit = skill_queue.wrap_up_limit_seconds
        lines.append(f"{skill_queue.name}\t{schedule}\t{'-' if limit is None else limit}")
    return "\n".join(lines) or "No skill queue."
