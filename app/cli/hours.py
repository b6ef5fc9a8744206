"""Operator commands for hours of operation: `flask --app wsgi hours ...`."""

from __future__ import annotations

from datetime import date

import click

from app.cli.common import tenant_of, transactional
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.schedules import hours
from app.services.schedules.calendar import DayView, monday_of, ranges_text
from app.services.schedules.opening_hours import day_text, holidays_text

hours_group = click.Group("hours", help="Hours of operation: schedules and exception dates.")

WEEKLY_HELP = "Days and hours, e.g. 'mon-fri 08:00-18:00' or 'sun closed'; repeat for more."
HOLIDAYS_HELP = "Public holidays are closed days: a country code, optionally -subdivision (US-CA)."


def _date(text: str, what: str = "DATE") -> date:
    try:
        if len(text) == 10:
            return hours.check_date(date.fromisoformat(text))
    except ValueError:
        pass
    raise click.ClickException(f"{what} '{text}' is not a date (YYYY-MM-DD)")


def _summary(schedule) -> str:
    said = holidays_text(schedule.holiday_country, schedule.holiday_subdivision)
    weekly = "; ".join(hours.fields(schedule)["weeklyHours"])
    return f"'{schedule.name}' ({schedule.time_zone}): {weekly}" + (
        f"; closed on the public holidays of {said}" if said else ""
    )


@hours_group.command("create")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.option("--time-zone", required=True, help="The schedule's IANA time zone.")
@click.option("--weekly", "weekly", multiple=True, required=True, help=WEEKLY_HELP)
@click.option("--holidays", help=HOLIDAYS_HELP)
@transactional
def create(
    company: str,
    environment: str,
    name: str,
    time_zone: str,
    weekly: tuple[str, ...],
    holidays: str | None,
) -> str:
    """Create a schedule; a day no --weekly names is closed."""
    schedule = hours.create_schedule(
        tenant_of(company, environment),
        name,
        time_zone,
        weekly,
        holidays=holidays,
        actor=Actor.operator(),
    )
    return f"Created schedule {_summary(schedule)}."


@hours_group.command("update")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.option("--rename", help="A new name.")
@click.option("--time-zone", help="A new IANA time zone.")
@click.option("--weekly", "weekly", multiple=True, help=WEEKLY_HELP + " Replaces every day.")
@click.option("--holidays", help=HOLIDAYS_HELP)
@click.option("--no-holidays", is_flag=True, help="No public holidays.")
@transactional
def update(
    company: str,
    environment: str,
    name: str,
    rename: str | None,
    time_zone: str | None,
    weekly: tuple[str, ...],
    holidays: str | None,
    no_holidays: bool,
) -> str:
    """Change a schedule; what no option names stays as it is."""
    if holidays and no_holidays:
        raise click.UsageError("give --holidays or --no-holidays, not both")
    schedule = hours.get_schedule(tenant_of(company, environment), name)
    current = hours.fields(schedule)
    hours.update_schedule(
        schedule,
        rename or schedule.name,
        time_zone or schedule.time_zone,
        weekly or current["weeklyHours"],
        None if no_holidays else holidays or current["holidays"],
        actor=Actor.operator(),
    )
    return f"Schedule {_summary(schedule)}."


@hours_group.command("delete")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@transactional
def delete(company: str, environment: str, name: str) -> str:
    """Delete a schedule; the queues that followed it are then always open."""
    freed = hours.delete_schedule(
        hours.get_schedule(tenant_of(company, environment), name), actor=Actor.operator()
    )
    now_open = f" {', '.join(freed)} now always open." if freed else ""
    return f"Deleted schedule '{name}'.{now_open}"


@hours_group.command("exception")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.argument("day", metavar="DATE")
@click.option("--closed", is_flag=True, help="Closed all day.")
@click.option("--open", "open_hours", metavar="HH:MM-HH:MM", help="Special hours (a,b for two).")
@click.option("--remove", is_flag=True, help="Remove the exception: the usual hours apply.")
@transactional
def exception(
    company: str,
    environment: str,
    name: str,
    day: str,
    closed: bool,
    open_hours: str | None,
    remove: bool,
) -> str:
    """Give one date other hours than its weekday's (replacing an earlier exception of it)."""
    if closed + bool(open_hours) + remove != 1:
        raise click.UsageError("give exactly one of --closed, --open HH:MM-HH:MM or --remove")
    when = _date(day)
    schedule = hours.get_schedule(tenant_of(company, environment), name)
    if remove:
        hours.remove_exception(schedule, when, actor=Actor.operator())
        return f"Schedule '{schedule.name}' keeps its usual hours on {when.isoformat()}."
    ranges = hours.set_exception(schedule, when, open_hours, actor=Actor.operator())
    return f"Schedule '{schedule.name}' on {when.isoformat()}: {day_text(ranges)}."


@hours_group.command("list")
@click.argument("company")
@click.argument("environment")
@transactional
def list_schedules(company: str, environment: str) -> None:
    """The schedules, whether each is open now, and the queues following it."""
    tenant = tenant_of(company, environment)
    now = utcnow()
    found = hours.list_schedules(tenant)
    if not found:
        click.echo("No schedules.")
    for schedule in found:
        queues = ", ".join(q.name for q in hours.queues_of(schedule)) or "no queue"
        click.echo(f"{_summary(schedule)} · {_now(schedule, now)} · {queues}")


def _now(schedule, now) -> str:
    """`open now, closes 2026-11-23 18:00 Europe/London` (the schedule's zone), or `closed
    now, opens …`."""
    calendar = hours.calendar(schedule)
    change = calendar.next_change(now)
    state = "open now" if calendar.is_open(now) else "closed now"
    if change is None:
        return state
    verb = "closes" if calendar.is_open(now) else "opens"
    return f"{state}, {verb} {change.astimezone(calendar.zone):%Y-%m-%d %H:%M} {schedule.time_zone}"


def _day_line(view: DayView, today: date) -> str:
    hours_said = ", ".join(ranges_text(view.ranges)) if view.ranges else "closed"
    notes = []
    if view.holiday:
        notes.append(f"holiday: {view.holiday}" + (", own hours" if view.exception else ""))
    elif view.exception:
        notes.append("exception")
    if view.clock_change:
        minutes = int(view.clock_change.total_seconds() // 60)
        notes.append(f"clocks go {'forward' if minutes > 0 else 'back'} {abs(minutes)} min")
    if view.day == today:
        notes.append("today")
    said = f"  ({'; '.join(notes)})" if notes else ""
    return f"  {view.day:%a %Y-%m-%d}  {hours_said}{said}"


@hours_group.command("show")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.option("--week", "week_of", metavar="DATE", help="Show the week of this date.")
@transactional
def show(company: str, environment: str, name: str, week_of: str | None) -> None:
    """A schedule's settings, its week (this one unless --week), exceptions and queues."""
    schedule = hours.get_schedule(tenant_of(company, environment), name)
    calendar = hours.calendar(schedule)
    now = utcnow()
    today = calendar.local_date(now)
    monday = monday_of(_date(week_of, "--week") if week_of else today)
    click.echo(f"Schedule {_summary(schedule)}")
    click.echo(f"Now: {_now(schedule, now)}")
    click.echo(f"Week of {monday.isoformat()}:")
    for view in calendar.week(monday):
        click.echo(_day_line(view, today))
    ahead = hours.exceptions_from(schedule, today)
    click.echo("Exceptions ahead:" + ("" if ahead else " none"))
    for day, ranges in ahead:
        click.echo(f"  {day:%a %Y-%m-%d}  {day_text(ranges)}")
    queues = ", ".join(q.name for q in hours.queues_of(schedule)) or "none"
    click.echo(f"Queues: {queues}")
