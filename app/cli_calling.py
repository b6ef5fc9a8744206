"""Operator commands for when a campaign's tasks may be worked: `flask --app wsgi campaign
set-window|set-max-attempts` (added to the `campaign` group)."""

from __future__ import annotations

import click

from app.cli import _tenant, campaign_group, transactional
from app.services import calling_windows
from app.services.actors import Actor
from app.services.campaigns import get_campaign
from app.services.errors import InvalidInput

# A negative count is read as a value to refuse, not as an unknown option.
NUMBERS = {"ignore_unknown_options": True}


def _one_of(value: str | None, clear: bool, what: str) -> None:
    if (value is not None) == clear:
        raise click.ClickException(f"give either {what} or --none")


@campaign_group.command("set-window")
@click.argument("company")
@click.argument("environment")
@click.argument("campaign")
@click.argument("window", required=False, metavar="HH:MM-HH:MM")
@click.option("--none", "clear", is_flag=True, help="No window: tasks may be called any time.")
@transactional
def set_window(
    company: str, environment: str, campaign: str, window: str | None, clear: bool
) -> str:
    """Call the campaign's tasks only inside this window, read in each task's own time zone
    (20:00-02:00 runs past midnight)."""
    _one_of(window, clear, "HH:MM-HH:MM")
    found = get_campaign(_tenant(company, environment), campaign)
    opens, closes = (None, None) if clear else calling_windows.parse_window(window)
    calling_windows.set_calling_window(found, opens, closes, actor=Actor.operator())
    if clear:
        return f"Campaign '{found.name}' may call its tasks at any time."
    said = calling_windows.window_text(found)
    return f"Campaign '{found.name}' calls its tasks {said}, in each task's time zone."


@campaign_group.command("set-max-attempts", context_settings=NUMBERS)
@click.argument("company")
@click.argument("environment")
@click.argument("campaign")
@click.argument("attempts", required=False, metavar="N")
@click.option("--none", "clear", is_flag=True, help="No limit on attempts.")
@transactional
def set_max_attempts(
    company: str, environment: str, campaign: str, attempts: str | None, clear: bool
) -> str:
    """After N attempts (1 to 1000), a reschedule closes the task COMPLETED instead."""
    _one_of(attempts, clear, "N")
    found = get_campaign(_tenant(company, environment), campaign)
    limit = None if clear else _whole_number(attempts)
    calling_windows.set_max_attempts(found, limit, actor=Actor.operator())
    if limit is None:
        return f"Campaign '{found.name}' has no limit on attempts."
    return (
        f"Campaign '{found.name}' allows {limit} attempts per task: a reschedule after the "
        "last closes the task COMPLETED."
    )


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidInput(f"maximum attempts '{text}' is not a whole number") from None
