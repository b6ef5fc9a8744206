"""Operator commands for work-code groups and their codes: `flask --app wsgi work-codes ...`."""

from __future__ import annotations

from dataclasses import replace

import click

from app.cli.common import tenant_of, transactional
from app.services.actors import Actor
from app.services.tenants.setup import list_skill_queues
from app.services.work_codes import groups as work_codes

work_codes_group = click.Group("work-codes", help="Work-code groups, their codes and queues.")


@work_codes_group.command("group-create")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.option("--required", is_flag=True, help="Closing a task needs a code of this group.")
@click.option("--multiple", is_flag=True, help="Several codes at once (else exactly one).")
@transactional
def group_create(company: str, environment: str, name: str, required: bool, multiple: bool):
    """Create a work-code group (assign it to queues with `work-codes assign`)."""
    group = work_codes.create_group(
        tenant_of(company, environment),
        name,
        required=required,
        multiple=multiple,
        actor=Actor.operator(),
    )
    return f"Created work code group '{group.name}' ({_kind(group)})."


@work_codes_group.command("add")
@click.argument("company")
@click.argument("environment")
@click.argument("group")
@click.argument("code")
@click.option("--description", default="", help="Shown to the agent beside the code.")
@click.option(
    "--outcome",
    type=click.Choice(work_codes.OUTCOMES),
    help="The outcome the code implies (none: a plain label).",
)
@click.option(
    "--delay-minutes", type=int, help="RESCHEDULE: the default delay (the agent may change it)."
)
@click.option("--adds-to-dnc", is_flag=True, help="Put the task's numbers on the DNC list.")
@click.option("--revokes-consent", is_flag=True, help="Revoke the consent of the task's numbers.")
@click.option("--order", type=int, default=0, show_default=True, help="Lower comes first.")
@click.option(
    "--suggested-for",
    type=click.Choice(work_codes.CALL_RESULTS),
    help="The call result after which the desk preselects the code (e.g. BUSY).",
)
@click.option("--contact", is_flag=True, help="Reports: a person was reached.")
@click.option("--success", is_flag=True, help="Reports: the campaign's goal was met.")
@transactional
def add(
    company: str,
    environment: str,
    group: str,
    code: str,
    description: str,
    outcome: str | None,
    delay_minutes: int | None,
    adds_to_dnc: bool,
    revokes_consent: bool,
    order: int,
    suggested_for: str | None,
    contact: bool,
    success: bool,
):
    """Add a code to a group."""
    found = work_codes.get_group(tenant_of(company, environment), group)
    settings = work_codes.CodeSettings(
        description=description,
        sort_order=order,
        outcome=outcome,
        reschedule_minutes=delay_minutes,
        adds_to_dnc=adds_to_dnc,
        revokes_consent=revokes_consent,
        suggested_for=suggested_for,
        contact=contact,
        success=success,
    )
    added = work_codes.add_code(found, code, settings, actor=Actor.operator())
    return f"Added work code '{added.name}' to group '{found.name}'{_effect(added)}."


@work_codes_group.command("suggest")
@click.argument("company")
@click.argument("environment")
@click.argument("group")
@click.argument("code")
@click.argument("result", required=False, type=click.Choice(work_codes.CALL_RESULTS))
@click.option("--none", "clear", is_flag=True, help="Suggested after no call result.")
@transactional
def suggest(
    company: str, environment: str, group: str, code: str, result: str | None, clear: bool
) -> str:
    """Name the call result after which the desk preselects a code (BUSY → "Busy")."""
    if (result is not None) == clear:
        raise click.UsageError("give either RESULT or --none")
    found = work_codes.get_group(tenant_of(company, environment), group)
    choice = work_codes.get_code(found, code)
    settings = replace(work_codes.code_settings(choice), suggested_for=result)
    work_codes.change_code(choice, choice.name, settings, actor=Actor.operator())
    if result is None:
        return f"Work code '{choice.name}' of group '{found.name}' is suggested after no result."
    return f"Work code '{choice.name}' of group '{found.name}' is suggested after {result} calls."


@work_codes_group.command("flag")
@click.argument("company")
@click.argument("environment")
@click.argument("group")
@click.argument("code")
@click.option("--contact/--no-contact", default=None, help="Reports: a person was reached.")
@click.option("--success/--no-success", default=None, help="Reports: the goal was met.")
@transactional
def flag(
    company: str,
    environment: str,
    group: str,
    code: str,
    contact: bool | None,
    success: bool | None,
) -> str:
    """Set or clear a code's report flags (attempts already made keep how they counted)."""
    if contact is None and success is None:
        raise click.UsageError("give --contact/--no-contact or --success/--no-success")
    found = work_codes.get_group(tenant_of(company, environment), group)
    choice = work_codes.get_code(found, code)
    settings = work_codes.code_settings(choice)
    settings = replace(
        settings,
        contact=settings.contact if contact is None else contact,
        success=settings.success if success is None else success,
    )
    work_codes.change_code(choice, choice.name, settings, actor=Actor.operator())
    flags = _flags(choice) or "no report flag"
    return f"Work code '{choice.name}' of group '{found.name}' counts as: {flags}."


def _flags(code) -> str:
    flags = (("contact", code.contact), ("success", code.success))
    return " and ".join(name for name, on in flags if on)


def _switch(company: str, environment: str, group: str, code: str, enabled: bool) -> str:
    found = work_codes.get_group(tenant_of(company, environment), group)
    choice = work_codes.get_code(found, code)
    work_codes.set_code_enabled(choice, enabled, actor=Actor.operator())
    said = "enabled" if enabled else "disabled (tasks closed with it keep it)"
    return f"Work code '{choice.name}' of group '{found.name}' is {said}."


@work_codes_group.command("disable")
@click.argument("company")
@click.argument("environment")
@click.argument("group")
@click.argument("code")
@transactional
def disable(company: str, environment: str, group: str, code: str) -> str:
    """No longer offer a code; tasks closed with it keep it."""
    return _switch(company, environment, group, code, False)


@work_codes_group.command("enable")
@click.argument("company")
@click.argument("environment")
@click.argument("group")
@click.argument("code")
@transactional
def enable(company: str, environment: str, group: str, code: str) -> str:
    """Offer a disabled code again."""
    return _switch(company, environment, group, code, True)


@work_codes_group.command("assign")
@click.argument("company")
@click.argument("environment")
@click.argument("queue")
@click.argument("groups", nargs=-1)
@click.option("--none", "clear", is_flag=True, help="No group: the queue's codes are free.")
@transactional
def assign(company: str, environment: str, queue: str, groups: tuple[str, ...], clear: bool):
    """Give a skill queue exactly these work-code groups."""
    if bool(groups) == clear:
        raise click.UsageError("give either GROUP names or --none")
    names = work_codes.set_queue_groups(
        tenant_of(company, environment), queue, groups, actor=Actor.operator()
    )
    return f"Skill queue '{queue}' now offers {', '.join(names) or 'no work code group'}."


@work_codes_group.command("list")
@click.argument("company")
@click.argument("environment")
@transactional
def list_groups(company: str, environment: str) -> str:
    """The groups with their codes (in the order agents see them) and their queues."""
    tenant = tenant_of(company, environment)
    groups = work_codes.list_groups(tenant)
    lines = [] if groups else ["No work code group yet."]
    for group in groups:
        queues = ", ".join(queue.name for queue in group.skill_queues) or "no queue"
        lines.append(f"{group.name} ({_kind(group)}) · queues: {queues}")
        for code in group.codes:
            state = "" if code.enabled else " [disabled]"
            lines.append(f"  {code.sort_order:>4}  {code.name}{_effect(code)}{state}")
            if code.description:
                lines.append(f"        {code.description}")
    without = [q.name for q in list_skill_queues(tenant) if not q.work_code_groups]
    if without:
        lines.append(f"Queues without work codes (free labels): {', '.join(without)}")
    return "\n".join(lines)


def _kind(group) -> str:
    return f"{'required' if group.required else 'optional'}, " + (
        "multiple choice" if group.multiple else "single choice"
    )


def _effect(code) -> str:
    effects = []
    if code.outcome:
        delay = work_codes.delay_words(code.reschedule_minutes)
        effects.append(f"{code.outcome}{f' in {delay}' if delay else ''}")
    if code.adds_to_dnc:
        effects.append("adds to DNC")
    if code.revokes_consent:
        effects.append("revokes consent")
    if code.suggested_for:
        effects.append(f"suggested after {code.suggested_for}")
    if code.contact or code.success:
        effects.append(f"counts as {_flags(code)}")
    return f" → {', '.join(effects)}" if effects else ""
