"""Campaigns: creation, lookup by their case-sensitive name, lists, and editing their
settings (default skill queue, default time zone, type). Their life cycle (pause, resume,
archive, restore) is app/services/campaigns/life_cycle.py."""

from __future__ import annotations

from sqlalchemy import func, select

from app.extensions import db
from app.models import Campaign, CampaignStatus, CampaignType, Task, Tenant
from app.models.campaigns import DEFAULT_CLIENT_ID_FIELD
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import (
    CAMPAIGN_CLIENT_ID_FIELD_NAME,
    CAMPAIGN_NAME,
    CAMPAIGN_SKILL_QUEUE,
    CAMPAIGN_TIME_ZONE,
    CAMPAIGN_TYPE,
    CAMPAIGN_ZONE_FROM,
)
from app.services.tenants.setup import get_skill_queue
from app.services.values import require_time_zone

# How this module's refusals name their fields.
NAME = CAMPAIGN_NAME.said_as("campaign name")
TYPE = CAMPAIGN_TYPE.said_as("campaign type")
CLIENT_ID_FIELD_NAME = CAMPAIGN_CLIENT_ID_FIELD_NAME.said_as("clientId field name")
QUEUE = CAMPAIGN_SKILL_QUEUE.said_as("skill queue")
ZONE = CAMPAIGN_TIME_ZONE.said_as("time zone")


def find_campaign(tenant: Tenant, name: str) -> Campaign | None:
    return db.session.scalar(select(Campaign).filter_by(tenant_id=tenant.id, name=name))


def get_campaign(tenant: Tenant, name: str) -> Campaign:
    campaign = find_campaign(tenant, name)
    if campaign is None:
        raise NotFound(f"campaign '{name}' does not exist in this environment")
    return campaign


def list_campaigns(tenant: Tenant, *, archived: bool = False) -> list[Campaign]:
    """The tenant's campaigns by name; archived ones only when asked for."""
    query = select(Campaign).filter_by(tenant_id=tenant.id).order_by(Campaign.name)
    if not archived:
        query = query.where(Campaign.status != CampaignStatus.ARCHIVED.value)
    return list(db.session.scalars(query))


def count_archived(tenant: Tenant) -> int:
    """How many of the tenant's campaigns are archived (the lists' "show archived")."""
    query = select(func.count(Campaign.id)).where(
        Campaign.tenant_id == tenant.id, Campaign.status == CampaignStatus.ARCHIVED.value
    )
    return db.session.scalar(query) or 0


def campaign_wire(campaign: Campaign) -> dict:
    """The campaign as its events carry it."""
    return {
        "campaignName": campaign.name,
        "type": campaign.type,
        "skillQueue": campaign.default_skill_queue.name,
        "timeZone": campaign.default_time_zone,
        "status": campaign.status,
    }


def campaign_change(campaign: Campaign, action: str, before: dict, after: dict, **extra) -> Change:
    """A change of the campaign: its audit record (`before`, `after`) and its event (the
    campaign as it is now, plus `extra`), ordered per campaign."""
    return Change(
        action,
        "campaign",
        str(campaign.id),
        campaign.tenant_id,
        before,
        after,
        event_type=action,
        event_data={**campaign_wire(campaign), **extra},
        subject=f"campaign:{campaign.name}",
    )


def state_counts(tenant: Tenant, besides: list[int] | None = None) -> dict[int, dict[str, int]]:
    """Per campaign of the tenant (but those of `besides`), how many tasks are in each
    workedState."""
    rows = db.session.execute(
        select(Task.campaign_id, Task.worked_state, func.count(Task.id))
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(Campaign.tenant_id == tenant.id, Campaign.id.not_in(besides or []))
        .group_by(Task.campaign_id, Task.worked_state)
    )
    counts: dict[int, dict[str, int]] = {}
    for campaign_id, state, count in rows:
        counts.setdefault(campaign_id, {})[state] = count
    return counts


def create_campaign(
    tenant: Tenant,
    name: str,
    skill_queue: str,
    time_zone: str,
    campaign_type: str = CampaignType.PREVIEW,
    client_id_field_name: str = DEFAULT_CLIENT_ID_FIELD,
    *,
    actor: Actor,
) -> Campaign:
    """Create a campaign with its default skill queue and time zone."""
    if not name.strip() or len(name) > 255:
        raise InvalidInput("campaign name must be 1 to 255 characters", field=NAME)
    if campaign_type not in set(CampaignType):
        raise InvalidInput(
            f"campaign type '{campaign_type}' is not one of preview, progressive",
            field=TYPE,
        )
    if not client_id_field_name.strip() or len(client_id_field_name) > 255:
        raise InvalidInput(
            "clientId field name must be 1 to 255 characters", field=CLIENT_ID_FIELD_NAME
        )
    queue = get_skill_queue(tenant, skill_queue, QUEUE)
    require_time_zone(time_zone, ZONE)
    if find_campaign(tenant, name):
        raise Conflict(f"campaign '{name}' already exists", field=CAMPAIGN_NAME)
    campaign = Campaign(
        tenant=tenant,
        name=name,
        type=campaign_type,
        default_skill_queue=queue,
        default_time_zone=time_zone,
        client_id_field_name=client_id_field_name,
    )
    db.session.add(campaign)
    db.session.flush()  # its id keys the trail
    after = {
        "name": name,
        "type": campaign_type,
        "skillQueue": queue.name,
        "timeZone": time_zone,
        "clientIdFieldName": client_id_field_name,
    }
    record(actor, Change("campaign.added", "campaign", str(campaign.id), tenant.id, after=after))
    return campaign


# What an edit may change, by the names the trail and the events use.
SETTINGS = ("type", "skillQueue", "timeZone", "zoneFrom")
ZONE_FROM = ("default", "number")


def _settings(campaign: Campaign) -> dict[str, str]:
    wire = {**campaign_wire(campaign), "zoneFrom": campaign.zone_from}
    return {name: wire[name] for name in SETTINGS}


def update_campaign(
    campaign: Campaign,
    *,
    skill_queue: str | None = None,
    time_zone: str | None = None,
    campaign_type: str | None = None,
    zone_from: str | None = None,
    actor: Actor,
) -> list[str]:
    """Change the campaign's default skill queue, default time zone or type (None leaves
    one as it is); the names of the settings that changed (none: nothing recorded).

    The defaults apply to tasks added afterwards; tasks already in the campaign keep their
    queue and zone (a transfer or a status change moves them)."""
    if campaign_type is not None and campaign_type not in set(CampaignType):
        raise InvalidInput(
            f"campaign type '{campaign_type}' is not one of preview, progressive",
            field=TYPE,
        )
    queue = (
        get_skill_queue(campaign.tenant, skill_queue, QUEUE) if skill_queue is not None else None
    )
    if time_zone is not None:
        require_time_zone(time_zone, ZONE)
    if zone_from is not None and zone_from not in ZONE_FROM:
        raise InvalidInput(
            f"zone from '{zone_from}' is not default or number", field=CAMPAIGN_ZONE_FROM
        )
    before = _settings(campaign)
    if queue is not None:
        campaign.default_skill_queue = queue
    if time_zone is not None:
        campaign.default_time_zone = time_zone
    if campaign_type is not None:
        campaign.type = campaign_type
    if zone_from is not None:
        campaign.zone_from = zone_from
    after = _settings(campaign)
    changed = [name for name in SETTINGS if before[name] != after[name]]
    if changed:
        old = {name: before[name] for name in changed}
        new = {name: after[name] for name in changed}
        record(actor, campaign_change(campaign, "campaign.updated", old, new, previous=old))
    return changed
