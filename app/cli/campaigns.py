"""Operator commands for campaigns: `flask --app wsgi campaign create|edit|list`, their
life (`pause|resume|archive|restore`) and when their tasks may be worked
(`set-window|set-max-attempts`), how they read intake files' numbers (`set-country`) and
how they are dialled (`set-dialing`), whose numbers need consent (`set-consent`), and a dry
run of what the contact rules would let be called (`forecast`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from zoneinfo import ZoneInfo

import click

from app.cli.audit import Instant
from app.cli.common import read_only, tenant_of, transactional
from app.models import AUTO_DIAL_SECONDS, CallPlacement, Campaign, CampaignType
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.campaigns import catalogue as campaigns
from app.services.campaigns import countries, dialing
from app.services.campaigns import life_cycle as campaign_status
from app.services.campaigns.catalogue import get_campaign
from app.services.consent import requirements as consent
from app.services.errors import InvalidInput
from app.services.reports import forecast
from app.services.schedules import calling_windows

campaign_group = click.Group("campaign", help="Campaigns of a tenant.")

SAID = {
    "pause": ("is paused: nothing new is delivered; it still takes tasks", "was already paused"),
    "resume": ("is resumed: its tasks are delivered again", "was not paused"),
    "archive": (
        "is archived: nothing is delivered, no new task is taken, its tasks are kept",
        "was already archived",
    ),
    "restore": ("is restored, paused: resume it to deliver again", "was not archived"),
}


def _move_command(move: str, about: str) -> None:
    @campaign_group.command(move, help=about)
    @click.argument("company")
    @click.argument("environment")
    @click.argument("name")
    @transactional
    def command(company: str, environment: str, name: str) -> str:
        campaign = campaigns.get_campaign(tenant_of(company, environment), name)
        changed = campaign_status.change_status(campaign, move, actor=Actor.operator())
        done, unchanged = SAID[move]
        return f"Campaign '{campaign.name}' {done if changed else unchanged + '; nothing changed'}."


_move_command("pause", "Deliver nothing new from the campaign; it still takes tasks.")
_move_command("resume", "Deliver a paused campaign's tasks again.")
_move_command("archive", "Deliver nothing, take no new task, hide it from lists; keep its tasks.")
_move_command("restore", "Bring an archived campaign back, paused.")


@campaign_group.command("edit")
@click.argument("company")
@click.argument("environment")
@click.argument("name")
@click.option("--skill-queue", help="The default skill queue of tasks added from now on.")
@click.option("--time-zone", help="The default time zone (IANA) of tasks added from now on.")
@click.option(
    "--type", "campaign_type", type=click.Choice([t.value for t in CampaignType]), default=None
)
@click.option(
    "--zone-from",
    type=click.Choice(campaigns.ZONE_FROM),
    help="A task whose data names no zone: the default zone, or every zone of its numbers.",
)
@transactional
def edit(
    company: str,
    environment: str,
    name: str,
    skill_queue: str | None,
    time_zone: str | None,
    campaign_type: str | None,
    zone_from: str | None,
) -> str:
    """Change the campaign's default skill queue, default time zone, type or where tasks'
    zones come from; tasks already in it keep their queue and zone."""
    if skill_queue is None and time_zone is None and campaign_type is None and zone_from is None:
        raise click.ClickException("give --skill-queue, --time-zone, --type or --zone-from")
    campaign = campaigns.get_campaign(tenant_of(company, environment), name)
    changed = campaigns.update_campaign(
        campaign,
        skill_queue=skill_queue,
        time_zone=time_zone,
        campaign_type=campaign_type,
        zone_from=zone_from,
        actor=Actor.operator(),
    )
    if not changed:
        return f"Campaign '{campaign.name}' already has these settings; nothing changed."
    return f"Campaign '{campaign.name}': {describe(campaign)}."


def describe(campaign) -> str:
    return (
        f"{campaign.type}, default queue {campaign.default_skill_queue.name}, "
        f"default zone {campaign.default_time_zone}"
        f"{', zones from numbers' if campaign.zone_from == 'number' else ''}, {campaign.status}; "
        f"dialling: {dialing.summary(campaign)}"
    )


@campaign_group.command("list")
@click.argument("company")
@click.argument("environment")
@click.option("--archived", is_flag=True, help="Archived campaigns too.")
@transactional
def list_campaigns(company: str, environment: str, archived: bool) -> str:
    """The tenant's campaigns, one a line: name, type, default queue and zone, status."""
    tenant = tenant_of(company, environment)
    found = campaigns.list_campaigns(tenant, archived=archived)
    lines = [f"{campaign.name}: {describe(campaign)}" for campaign in found]
    hidden = 0 if archived else campaigns.count_archived(tenant)
    if hidden:
        lines.append(f"({hidden} archived not shown: --archived)")
    return "\n".join(lines) or "No campaign."


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
        tenant_of(company, environment),
        name,
        skill_queue,
        time_zone,
        campaign_type,
        actor=Actor.operator(),
    )
    return f"Created {campaign.type} campaign '{campaign.name}'."


# A negative count is read as a value to refuse, not as an unknown option.
NUMBERS = {"ignore_unknown_options": True}


def _one_of(value: str | None, clear: bool, what: str) -> None:
    if (value is not None) == clear:
        raise click.ClickException(f"give either {what} or --none")


def _setting(name: str, metavar: str, none_help: str, **settings) -> Callable:
    """A `campaign set-…` command: COMPANY ENVIRONMENT CAMPAIGN and the value (`metavar`),
    or --none to clear it. The function gets the campaign and the value (None: --none) and
    answers the line to print; its docstring is the command's help."""

    def make(act: Callable[[Campaign, str | None], str]) -> click.Command:
        @campaign_group.command(name, help=act.__doc__, **settings)
        @click.argument("company")
        @click.argument("environment")
        @click.argument("campaign")
        @click.argument("value", required=False, metavar=metavar)
        @click.option("--none", "clear", is_flag=True, help=none_help)
        @transactional
        def command(company: str, environment: str, campaign: str, value, clear: bool) -> str:
            _one_of(value, clear, metavar)
            found = get_campaign(tenant_of(company, environment), campaign)
            return act(found, None if clear else value)

        return command

    return make


@_setting("set-window", "HH:MM-HH:MM", "No window: tasks may be called any time.")
def set_window(found: Campaign, window: str | None) -> str:
    """Call the campaign's tasks only inside this window, read in each task's own time zone
    (20:00-02:00 runs past midnight)."""
    opens, closes = (None, None) if window is None else calling_windows.parse_window(window)
    calling_windows.set_calling_window(found, opens, closes, actor=Actor.operator())
    if window is None:
        return f"Campaign '{found.name}' may call its tasks at any time."
    said = calling_windows.window_text(found)
    return f"Campaign '{found.name}' calls its tasks {said}, in each task's time zone."


@_setting("set-country", "CC", "No default country: files' numbers are E.164.")
def set_country(found: Campaign, country: str | None) -> str:
    """Read intake files' phone numbers written in this country's national format (ISO
    3166-1 alpha-2, e.g. US: (415) 555-0101) as E.164 (+14155550101)."""
    code = countries.set_default_country(found, country, actor=Actor.operator())
    if code is None:
        return f"Campaign '{found.name}' takes E.164 numbers only in its intake files."
    return (
        f"Campaign '{found.name}' reads its intake files' national-format numbers as {code}"
        " numbers, stored in E.164."
    )


@_setting("set-max-attempts", "N", "No limit on attempts.", context_settings=NUMBERS)
def set_max_attempts(found: Campaign, attempts: str | None) -> str:
    """After N attempts (1 to 1000), a reschedule closes the task COMPLETED instead."""
    limit = None if attempts is None else _whole_number(attempts)
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


@campaign_group.command("set-consent")
@click.argument("company")
@click.argument("environment")
@click.argument("campaign")
@click.option(
    "--require", type=click.Choice([consent.ALL, consent.NONE]), help="Every number, or none."
)
@click.option(
    "--require-keys", metavar="KEYS", help='Only the numbers under these phone keys: "Mobile,Cell".'
)
@transactional
def set_consent(
    company: str, environment: str, campaign: str, require: str | None, require_keys: str | None
) -> str:
    """Dial only the numbers with a consent in force: all the campaign's numbers, none, or
    those under some phone keys (NO_CONSENT holds back the others)."""
    if (require is None) == (require_keys is None):
        raise click.ClickException("give either --require all|none or --require-keys")
    found = get_campaign(tenant_of(company, environment), campaign)
    keys = (require_keys or "").split(",")
    consent.set_requirement(found, require, keys, actor=Actor.operator())
    if found.consent_required == consent.NONE:
        return f"Campaign '{found.name}' dials its numbers without asking for consent."
    return (
        f"Campaign '{found.name}' dials {consent.requirement_text(found)} only with a consent"
        " in force."
    )


@campaign_group.command("set-dialing")
@click.argument("company")
@click.argument("environment")
@click.argument("campaign")
@click.option(
    "--auto-dial-seconds",
    type=int,
    metavar="N",
    help=f"The desk dials by itself after N seconds of preview ({AUTO_DIAL_SECONDS[0]} to "
    f"{AUTO_DIAL_SECONDS[1]}).",
)
@click.option("--no-auto-dial", is_flag=True, help="No countdown: the agent dials.")
@click.option(
    "--skip/--no-skip",
    "can_skip",
    default=None,
    help="Whether agents may skip (release) a task (unchanged when not given).",
)
@click.option(
    "--placement",
    type=click.Choice([p.value for p in CallPlacement]),
    help="Who places the calls: the desk, or Amazon Connect's contact flow.",
)
@click.option("--queue-arn", metavar="ARN", help="Amazon Connect's outbound queue ('' removes).")
@click.option("--contact-flow-id", metavar="ID", help="The contact flow that places the calls.")
@click.option("--caller-id", metavar="E164", help="The number the customer sees ('' removes).")
@transactional
def set_dialing(
    company: str,
    environment: str,
    campaign: str,
    auto_dial_seconds: int | None,
    no_auto_dial: bool,
    can_skip: bool | None,
    placement: str | None,
    queue_arn: str | None,
    contact_flow_id: str | None,
    caller_id: str | None,
) -> str:
    """How the campaign's tasks are dialled: the preview countdown after which the desk
    dials by itself, whether agents may skip a task, and with Amazon Connect who places the
    call; a setting not given stays as it is."""
    if auto_dial_seconds is not None and no_auto_dial:
        raise click.ClickException("give either --auto-dial-seconds N or --no-auto-dial")
    found = get_campaign(tenant_of(company, environment), campaign)
    seconds = found.auto_dial_seconds
    if auto_dial_seconds is not None or no_auto_dial:
        seconds = auto_dial_seconds
    keep = dialing.KEEP
    changed = dialing.set_dialing(
        found,
        auto_dial_seconds=seconds,
        can_skip=found.can_skip if can_skip is None else can_skip,
        call_placement=keep if placement is None else placement,
        queue_arn=keep if queue_arn is None else queue_arn,
        contact_flow_id=keep if contact_flow_id is None else contact_flow_id,
        caller_id=keep if caller_id is None else caller_id,
        actor=Actor.operator(),
    )
    said = dialing.summary(found)
    if not changed:
        return f"Campaign '{found.name}' already dials so ({said}); nothing changed."
    return f"Campaign '{found.name}' dialling: {said}."


@campaign_group.command("forecast")
@click.argument("company")
@click.argument("environment")
@click.argument("campaign")
@click.option("--from", "start", type=Instant(), help="The first interval's start (default: now).")
@click.option("--days", type=click.IntRange(1, 31), default=7, show_default=True)
@click.option(
    "--interval",
    type=click.Choice(["hour", "day"]),
    default="hour",
    show_default=True,
    help="Intervals of an hour or of a day.",
)
@read_only
def forecast_command(company: str, environment: str, campaign: str, start, days: int, interval):
    """A dry run: at each interval's start, how many of the campaign's open tasks the
    contact rules let be called and how many each rule holds back (ignoring agents and
    calls still to come); starts in the campaign's zone."""
    tenant = tenant_of(company, environment)
    start = start or utcnow().replace(minute=0, second=0, microsecond=0)
    minutes = 60 if interval == "hour" else 1440
    found = forecast.campaign_forecast(
        tenant, campaign, start, start + timedelta(days=days), minutes
    )
    zone = ZoneInfo(found.campaign.default_time_zone)
    tasks = f"{found.tasks} open task" + ("" if found.tasks == 1 else "s")
    click.echo(f"Campaign '{found.campaign.name}': {tasks}; starts in {zone.key}.")
    for row in found.intervals:
        held = ", ".join(f"{rule} {count}" for rule, count in row.held_back) or "nothing"
        local = row.start.astimezone(zone)
        click.echo(f"{local:%Y-%m-%d %H:%M %Z}  callable {row.callable:>7}  held back: {held}")
