"""Campaigns: creation and lookup by their case-sensitive name."""

from __future__ import annotations

from sqlalchemy import func, select

from app.extensions import db
from app.models import Campaign, CampaignType, Task, Tenant
from app.models.campaigns import DEFAULT_CLIENT_ID_FIELD
from app.services.actors import Actor
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.history import Change, record
from app.services.rules import require_time_zone
from app.services.tenants import get_skill_queue


def find_campaign(tenant: Tenant, name: str) -> Campaign | None:
    return db.session.scalar(select(Campaign).filter_by(tenant_id=tenant.id, name=name))


def get_campaign(tenant: Tenant, name: str) -> Campaign:
    campaign = find_campaign(tenant, name)
    if campaign is None:
        raise NotFound(f"campaign '{name}' does not exist in this environment")
    return campaign


def list_campaigns(tenant: Tenant) -> list[Campaign]:
    return list(
        db.session.scalars(select(Campaign).filter_by(tenant_id=tenant.id).order_by(Campaign.name))
    )


def state_counts(tenant: Tenant) -> dict[int, dict[str, int]]:
    """Per campaign of the tenant, how many tasks are in each workedState."""
    rows = db.session.execute(
        select(Task.campaign_id, Task.worked_state, func.count(Task.id))
        .join(Campaign, Campaign.id == Task.campaign_id)
        .where(Campaign.tenant_id == tenant.id)
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
        raise InvalidInput("campaign name must be 1 to 255 characters")
    if campaign_type not in set(CampaignType):
        raise InvalidInput(f"campaign type '{campaign_type}' is not one of preview, progressive")
    if not client_id_field_name.strip() or len(client_id_field_name) > 255:
        raise InvalidInput("clientId field name must be 1 to 255 characters")
    queue = get_skill_queue(tenant, skill_queue)
    require_time_zone(time_zone, "time zone")
    if find_campaign(tenant, name):
        raise Conflict(f"campaign '{name}' already exists")
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
