"""What a report reads: the tenant, a UTC range, a zone, and optional filters."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, exists, select

from app.extensions import db
from app.models import Attempt, Campaign, SkillQueue, Tenant
from app.services.campaigns.catalogue import find_campaign
from app.services.errors import InvalidInput
from app.services.fields import (
    REPORT_AGENT,
    REPORT_CAMPAIGN,
    REPORT_END,
    REPORT_QUEUE,
    REPORT_START,
    REPORT_ZONE,
    Field,
)
from app.services.people.users import find_user
from app.services.tenants.setup import find_skill_queue
from app.services.values import require_time_zone

# How this module's refusals name their fields.
START = REPORT_START.said_as("from")
ZONE = REPORT_ZONE.said_as("zone")
END = REPORT_END.said_as("to")
CAMPAIGN = REPORT_CAMPAIGN.said_as("campaignName")
QUEUE = REPORT_QUEUE.said_as("skillQueue")
AGENT = REPORT_AGENT.said_as("agent")

# The longest range a report reads.
MAX_DAYS = 366


@dataclass(frozen=True)
class ReportScope:
    """What every report reads: attempts delivered in [start, end) (UTC) of the tenant's
    campaigns, narrowed to one campaign, queue or agent (a loginUserId) when given; days and
    intervals are read in `zone`."""

    tenant: Tenant
    start: datetime
    end: datetime
    zone: str
    campaign: Campaign | None = None
    queue: SkillQueue | None = None
    agent: str | None = None

    def attempt_filters(self, delivered=None) -> list[ColumnElement[bool]]:
        """The WHERE clauses that select the scope's attempts (`delivered`: an expression of
        the delivery's time to compare instead of the column, to steer a planner)."""
        delivered = Attempt.delivered_at if delivered is None else delivered
        return [delivered >= self.start, delivered < self.end, *self.narrowing()]

    def narrowing(self, model=Attempt) -> list[ColumnElement[bool]]:
        """The WHERE clauses of the scope's campaigns, queue and agent, on the attempts (or
        on a rollup `model`, which has the same three columns)."""
        filters: list[ColumnElement[bool]] = []
        if self.campaign is not None:
            filters.append(model.campaign_id == self.campaign.id)
        else:
            filters.append(model.campaign_id.in_(tenant_campaign_ids(self.tenant)))
        if self.queue is not None:
            filters.append(model.skill_queue_id == self.queue.id)
        if self.agent is not None:
            filters.append(model.agent_login == self.agent)
        return filters


def tenant_campaign_ids(tenant: Tenant):
    return select(Campaign.id).where(Campaign.tenant_id == tenant.id).scalar_subquery()


def _aware(moment: datetime, field: Field) -> datetime:
    if moment.tzinfo is None:
        raise InvalidInput(f"{field} needs a time zone", field=field)
    return moment.astimezone(UTC)


def report_scope(
    tenant: Tenant,
    start: datetime,
    end: datetime,
    *,
    zone: str | None = None,
    campaign_name: str | None = None,
    queue_name: str | None = None,
    agent: str | None = None,
) -> ReportScope:
    """The scope of a report, checked: `to` after `from` and at most 366 days later; a
    named campaign, queue and agent must be the tenant's; a zone must be an IANA name. The
    zone defaults to the campaign's default zone, else UTC."""
    start, end = _aware(start, START), _aware(end, END)
    if end <= start:
        raise InvalidInput("to must be after from", field=END)
    if end - start > timedelta(days=MAX_DAYS):
        raise InvalidInput(f"to must be at most {MAX_DAYS} days after from", field=END)
    campaign = None
    if campaign_name:
        campaign = find_campaign(tenant, campaign_name)
        if campaign is None:
            raise InvalidInput(
                f"campaignName '{campaign_name}' is not a campaign of this environment",
                field=CAMPAIGN,
            )
    queue = None
    if queue_name:
        queue = find_skill_queue(tenant, queue_name)
        if queue is None:
            raise InvalidInput(
                f"skillQueue '{queue_name}' is not a skill queue of this environment",
                field=QUEUE,
            )
    if agent and not _known_agent(tenant, agent):
        raise InvalidInput(f"agent '{agent}' is not a user of this environment", field=AGENT)
    if zone:
        require_time_zone(zone, ZONE)
    else:
        zone = campaign.default_time_zone if campaign is not None else "UTC"
    return ReportScope(tenant, start, end, zone, campaign, queue, agent or None)


def _known_agent(tenant: Tenant, login: str) -> bool:
    """A user of the tenant, or a deleted one whose attempts stay."""
    if find_user(tenant, login) is not None:
        return True
    return bool(
        db.session.scalar(
            select(
                exists().where(
                    Attempt.agent_login == login,
                    Attempt.campaign_id.in_(tenant_campaign_ids(tenant)),
                )
            )
        )
    )
