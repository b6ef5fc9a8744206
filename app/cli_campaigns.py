"""Operator commands for a campaign's life: `flask --app wsgi campaign
pause|resume|archive|restore|edit|list` (added to the `campaign` group)."""

from __future__ import annotations

import click

from app.cli import _tenant, campaign_group, transactional
from app.models import CampaignType
from app.services import campaign_status, campaigns
from app.services.actors import Actor

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
        campaign = campaigns.get_campaign(_tenant(company, environment), name)
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
@transactional
def edit(
    company: str,
    environment: str,
    name: str,
    skill_queue: str | None,
    time_zone: str | None,
    campaign_type: str | None,
) -> str:
    """Change the campaign's default skill queue, default time zone or type; tasks already
    in it keep their queue and zone."""
    if skill_queue is None and time_zone is None and campaign_type is None:
        raise click.ClickException("give --skill-queue, --time-zone or --type")
    campaign = campaigns.get_campaign(_tenant(company, environment), name)
    changed = campaigns.update_campaign(
        campaign,
        skill_queue=skill_queue,
        time_zone=time_zone,
        campaign_type=campaign_type,
        actor=Actor.operator(),
    )
    if not changed:
        return f"Campaign '{campaign.name}' already has these settings; nothing changed."
    return f"Campaign '{campaign.name}': {describe(campaign)}."


def describe(campaign) -> str:
    return (
        f"{campaign.type}, default queue {campaign.default_skill_queue.name}, "
        f"default zone {campaign.default_time_zone}, {campaign.status}"
    )


@campaign_group.command("list")
@click.argument("company")
@click.argument("environment")
@click.option("--archived", is_flag=True, help="Archived campaigns too.")
@transactional
def list_campaigns(company: str, environment: str, archived: bool) -> str:
    """The tenant's campaigns, one a line: name, type, default queue and zone, status."""
    tenant = _tenant(company, environment)
    found = campaigns.list_campaigns(tenant, archived=archived)
    lines = [f"{campaign.name}: {describe(campaign)}" for campaign in found]
    hidden = 0 if archived else campaigns.count_archived(tenant)
    if hidden:
        lines.append(f"({hidden} archived not shown: --archived)")
    return "\n".join(lines) or "No campaign."
