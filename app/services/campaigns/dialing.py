"""A campaign's dialling settings, and how the desk reads them.

- The preview countdown (`auto_dial_seconds`, 5 to 300, or none): after it the desk dials
  by itself. Progressive campaigns are meant for it; a preview campaign may set it too, as
  Amazon Connect's preview mode does. None: the agent dials.
- Whether the agent may skip (release) a task (`can_skip`); the desk and the Desk API
  enforce it on the server.
- Who places the call (`call_placement`): the agent's desk (a `tel:` link, a softphone or
  the Contact Control Panel), or, for a tenant whose instance is Amazon Connect, the
  contact flow (StartOutboundVoiceContact), which needs the flow's id and a queue ARN or a
  caller id.
- With Amazon Connect, the outbound queue (its ARN: the desk dials on it, the contact flow
  queues the call to it), the contact flow and the caller id (E.164) shown to the customer.

A change leaves an audit record and a `campaign.updated` event in the caller's transaction;
settings as they already were change and record nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Final

from app.models import (
    AUTO_DIAL_SECONDS,
    CallPlacement,
    Campaign,
    CampaignType,
    InstanceKind,
    Tenant,
)
from app.services.actors import Actor
from app.services.audit.trail import record
from app.services.campaigns.catalogue import campaign_change
from app.services.errors import InvalidInput
from app.services.fields import (
    CAMPAIGN_CALLER_ID,
    CAMPAIGN_CONTACT_FLOW_ID,
    CAMPAIGN_COUNTDOWN_SECONDS,
    CAMPAIGN_PLACEMENT,
    CAMPAIGN_QUEUE_ARN,
)
from app.services.values import is_e164

LOWEST, HIGHEST = AUTO_DIAL_SECONDS
QUEUE_ARN = re.compile(
    r"arn:aws:connect:(?P<region>[a-z]{2}(-gov)?-[a-z]+-[0-9]{1,2}):(?P<account>[0-9]{12})"
    r":instance/(?P<instance>[A-Za-z0-9-]{1,100})/queue/[A-Za-z0-9-]{1,100}"
)
# Amazon Connect's ids are UUIDs; a contact flow's id may also be given as its ARN's last part.
CONTACT_FLOW_ID = re.compile(r"[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}")

# The names the forms and the CLI give the settings, which refusals name.
SECONDS_FIELD = CAMPAIGN_COUNTDOWN_SECONDS.said_as("auto-dial seconds")
PLACEMENT_FIELD = CAMPAIGN_PLACEMENT.said_as("call placement")
QUEUE_FIELD = CAMPAIGN_QUEUE_ARN.said_as("queue ARN")
FLOW_FIELD = CAMPAIGN_CONTACT_FLOW_ID.said_as("contact flow id")
CALLER_FIELD = CAMPAIGN_CALLER_ID.said_as("caller id")


class _Keep(Enum):
    KEEP = "keep"


KEEP: Final = _Keep.KEEP  # a setting left as it is


@dataclass(frozen=True)
class DialSettings:
    """How the desk dials a campaign's tasks."""

    mode: str  # PREVIEW or PROGRESSIVE, from the campaign's type
    auto_dial_seconds: int | None
    can_skip: bool
    call_placement: str
    queue_arn: str | None = None


def dial_settings(campaign: Campaign) -> DialSettings:
    """The campaign's dialling settings as the desk and the Desk API speak of them."""
    progressive = campaign.type == CampaignType.PROGRESSIVE
    return DialSettings(
        mode="PROGRESSIVE" if progressive else "PREVIEW",
        auto_dial_seconds=campaign.auto_dial_seconds,
        can_skip=bool(campaign.can_skip),
        call_placement=campaign.call_placement or CallPlacement.DESK.value,
        queue_arn=campaign.connect_queue_arn,
    )


def dialing_fields(campaign: Campaign) -> dict:
    """The settings as the trail and the events record them."""
    return {
        "autoDialSeconds": campaign.auto_dial_seconds,
        "canSkip": bool(campaign.can_skip),
        "callPlacement": campaign.call_placement or CallPlacement.DESK.value,
        "connectQueueArn": campaign.connect_queue_arn,
        "connectContactFlowId": campaign.connect_contact_flow_id,
        "connectCallerId": campaign.connect_caller_id,
    }


def summary(campaign: Campaign) -> str:
    """For pages and the CLI: `progressive: the desk dials after 20 s, no skipping, placed by
    the desk`. What the desk does comes from the countdown, not from the campaign's type: a
    progressive campaign without a countdown is said to be dialled by the agent."""
    settings = dial_settings(campaign)
    parts = [
        _who_dials(settings.mode, settings.auto_dial_seconds),
        "skipping allowed" if settings.can_skip else "no skipping",
        "placed by the contact flow"
        if settings.call_placement == CallPlacement.CONTACT_FLOW
        else "placed by the desk",
    ]
    return ", ".join(parts)


def _who_dials(mode: str, seconds: int | None) -> str:
    if mode == "PROGRESSIVE":
        if seconds:
            return f"progressive: the desk dials after {seconds} s"
        return "progressive without a countdown (set one): the agent dials"
    if seconds:
        return f"preview with a countdown: the desk dials after {seconds} s"
    return "preview: the agent dials"


def _text(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def _check_seconds(seconds: int | None) -> None:
    if seconds is None:
        return
    whole = isinstance(seconds, int) and not isinstance(seconds, bool)
    if not whole or not LOWEST <= seconds <= HIGHEST:
        raise InvalidInput(
            f"{SECONDS_FIELD} must be {LOWEST} to {HIGHEST}, or none (the agent dials)",
            field=SECONDS_FIELD,
        )


def _check_placement(placement: str) -> None:
    if placement not in set(CallPlacement):
        choices = ", ".join(p.value for p in CallPlacement)
        raise InvalidInput(
            f"{PLACEMENT_FIELD} '{placement}' is not one of {choices}", field=PLACEMENT_FIELD
        )


def _instance_of(connect_instance_id: str | None) -> str | None:
    """The instance's id, given as an id or as its ARN."""
    return connect_instance_id.rsplit("/", 1)[-1] if connect_instance_id else None


def _check_connect(campaign: Campaign, before: dict, wanted: dict) -> None:
    """The Amazon Connect settings: each on a Connect tenant only, each of its own shape, and
    what the contact flow needs to place calls."""
    tenant = campaign.tenant
    _check_on_connect(tenant, before, wanted)
    _check_queue_arn(tenant, wanted["connectQueueArn"])
    _check_flow_id(wanted["connectContactFlowId"])
    _check_caller_id(wanted["connectCallerId"])
    if wanted["callPlacement"] == CallPlacement.CONTACT_FLOW:
        _check_flow_can_place(wanted)


def _check_on_connect(tenant: Tenant, before: dict, wanted: dict) -> None:
    """A Connect setting needs a tenant whose instance is Amazon Connect (for what changes:
    settings kept from before a move off Connect stay until changed)."""
    if tenant.instance_kind == InstanceKind.AMAZON_CONNECT:
        return
    named = [
        (PLACEMENT_FIELD, "callPlacement"),
        (FLOW_FIELD, "connectContactFlowId"),
        (QUEUE_FIELD, "connectQueueArn"),
        (CALLER_FIELD, "connectCallerId"),
    ]
    for field, name in named:
        value = wanted[name]
        if value in (None, CallPlacement.DESK) or value == before[name]:
            continue
        if name == "callPlacement":
            raise InvalidInput(
                f"{field} 'contact-flow' needs a tenant whose instance is Amazon Connect",
                field=field,
            )
        raise InvalidInput(
            f"{field} is only for a tenant whose instance is Amazon Connect", field=field
        )


def _check_queue_arn(tenant: Tenant, arn: str | None) -> None:
    """A queue's ARN, in the tenant's instance and its region."""
    if arn is None:
        return
    shape = QUEUE_ARN.fullmatch(arn)
    if shape is None:
        raise InvalidInput(
            f"{QUEUE_FIELD} must look like arn:aws:connect:REGION:ACCOUNT:instance/ID/queue/ID",
            field=QUEUE_FIELD,
        )
    if tenant.connect_region and shape["region"] != tenant.connect_region:
        raise InvalidInput(
            f"{QUEUE_FIELD} is in {shape['region']}, not the instance's region "
            f"{tenant.connect_region}",
            field=QUEUE_FIELD,
        )
    instance = _instance_of(tenant.connect_instance_id)
    if instance and shape["instance"] != instance:
        raise InvalidInput(
            f"{QUEUE_FIELD} names instance {shape['instance']}, not the tenant's {instance}",
            field=QUEUE_FIELD,
        )


def _check_flow_id(flow: str | None) -> None:
    if flow is not None and not CONTACT_FLOW_ID.fullmatch(flow):
        raise InvalidInput(
            f"{FLOW_FIELD} must be the flow's id (36 characters, e.g. "
            "12345678-aaaa-bbbb-cccc-123456789012)",
            field=FLOW_FIELD,
        )


def _check_caller_id(caller: str | None) -> None:
    if caller is not None and not is_e164(caller):
        raise InvalidInput(
            f"{CALLER_FIELD} must be an E.164 number such as +14155550100", field=CALLER_FIELD
        )


def _check_flow_can_place(wanted: dict) -> None:
    """The contact flow places calls with its id and a queue or a caller id."""
    if wanted["connectContactFlowId"] is None:
        raise InvalidInput(
            f"{FLOW_FIELD} is required when the contact flow places the calls",
            field=FLOW_FIELD,
        )
    if wanted["connectQueueArn"] is None and wanted["connectCallerId"] is None:
        raise InvalidInput(
            f"{QUEUE_FIELD} or a caller id is required when the contact flow places the calls",
            field=QUEUE_FIELD,
        )


def set_dialing(
    campaign: Campaign,
    *,
    auto_dial_seconds: int | None,
    can_skip: bool,
    call_placement: str | None | _Keep = KEEP,
    queue_arn: str | None | _Keep = KEEP,
    contact_flow_id: str | None | _Keep = KEEP,
    caller_id: str | None | _Keep = KEEP,
    actor: Actor,
) -> list[str]:
    """Set the campaign's dialling settings (those left at KEEP stay as they are; None is
    none, and for the placement the desk); the names of the settings that changed (none:
    nothing recorded)."""
    _check_seconds(auto_dial_seconds)
    before = dialing_fields(campaign)
    wanted = {
        **before,
        "autoDialSeconds": auto_dial_seconds,
        "canSkip": bool(can_skip),
    }
    if call_placement is not KEEP:
        wanted["callPlacement"] = (call_placement or "").strip() or CallPlacement.DESK.value
        _check_placement(wanted["callPlacement"])
    for name, value in (
        ("connectQueueArn", queue_arn),
        ("connectContactFlowId", contact_flow_id),
        ("connectCallerId", caller_id),
    ):
        if value is not KEEP:
            wanted[name] = _text(value)
    _check_connect(campaign, before, wanted)
    changed = [name for name in before if before[name] != wanted[name]]
    if not changed:
        return []
    campaign.auto_dial_seconds = wanted["autoDialSeconds"]
    campaign.can_skip = wanted["canSkip"]
    campaign.call_placement = wanted["callPlacement"]
    campaign.connect_queue_arn = wanted["connectQueueArn"]
    campaign.connect_contact_flow_id = wanted["connectContactFlowId"]
    campaign.connect_caller_id = wanted["connectCallerId"]
    old = {name: before[name] for name in changed}
    new = {name: wanted[name] for name in changed}
    change = campaign_change(
        campaign, "campaign.updated", old, new, previous=old, dialing=dialing_fields(campaign)
    )
    record(actor, change)
    return changed
