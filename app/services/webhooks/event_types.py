"""The event types a webhook endpoint may ask for: the one list the services, the UI and
the CLI check against, with what each one tells."""

from __future__ import annotations

from collections.abc import Iterable

from app.services.errors import InvalidInput
from app.services.fields import WEBHOOK_TYPES

# How this module's refusals name their fields.
TYPES = WEBHOOK_TYPES.said_as("event type")

EVENT_TYPES: dict[str, str] = {
    "task.added": "A task was added (API, intake file or web UI).",
    "task.updated": "A task's data, skill queue, preferred agent or times changed.",
    "task.status_changed": "A task's workedState changed.",
    "task.transferred": "A task moved to another campaign.",
    "task.deleted": "A task was deleted.",
    "task.delivered": "A task was delivered to an agent.",
    "task.closed": (
        "An agent closed a task: outcome applied, attempt, work codes, closeReason and the "
        "attempt's call (the interaction)."
    ),
    "call.started": "An agent's call of a task started (the desk or the contact flow placed it).",
    "call.connected": "A call of a task connected: the customer answered.",
    "call.ended": "A call of a task ended: its result, how long it rang and talked.",
    "task.preferred_agent_cleared": "A task's preferred-agent hold ended.",
    "task.callback_handed_over": "A supervisor kept a task's callback for another agent.",
    "task.released": "A task went back unworked: its agent or a supervisor released it.",
    "task.reservation_lapsed": "A delivered task went back to its queue (no activity, agent gone).",
    "agent.state_changed": "An agent's state changed (AWAY's reason too: `fromReason`, `reason`).",
    "away_reason.added": "An away reason was added to the tenant's list.",
    "away_reason.removed": "An away reason was removed from the tenant's list.",
    "campaign.updated": (
        "A campaign's default skill queue, default time zone, type or dialling settings changed."
    ),
    "campaign.paused": "A campaign was paused: nothing new is delivered; it still takes tasks.",
    "campaign.resumed": "A paused campaign was resumed: its tasks are delivered again.",
    "campaign.archived": "A campaign was archived: nothing delivered, no new tasks, tasks kept.",
    "campaign.restored": "An archived campaign was restored (it comes back paused).",
    "intake.load_finished": "An intake file finished loading.",
    "bulk.finished": "A bulk action on a search result finished (its counts).",
    "contact_limit.added": "A contact limit was added to the tenant's contact rules.",
    "contact_limit.removed": "A contact limit was removed from the tenant's contact rules.",
    "calling_rule.added": "A regional calling rule was added to the tenant's contact rules.",
    "calling_rule.removed": "A regional calling rule was removed from the tenant's contact rules.",
    "consent.given": "A consent to call a number was recorded in the tenant's consent ledger.",
    "consent.revoked": "A number's consent was revoked: in force at once in every campaign.",
    "tenant.person_key_set": "The data item that names a person across campaigns changed.",
    "user.added": "A user (agent) was provisioned.",
    "user.deleted": "A user (agent) was deleted.",
    "user.updated": "A user's names, e-mail addresses or external id changed (SCIM).",
    "user.deactivated": "A user was deactivated: no sign-in, desk sessions ended (SCIM).",
    "user.reactivated": "A deactivated user was activated again (SCIM).",
    "group.created": "The identity provider pushed a group (SCIM), with its members.",
    "group.updated": "A pushed group's name, external id or members changed (SCIM).",
    "group.deleted": "A pushed group was deleted (SCIM).",
    "group.mapped": "A group name was mapped to a skill queue or a console role, or unmapped.",
}


def check_event_types(types: Iterable[str]) -> list[str]:
    """The types, each once and in the catalogue's order; refuses a type it does not know.

    An empty list means every type, including those added later.
    """
    wanted = {t.strip() for t in types if t.strip()}
    unknown = sorted(wanted - EVENT_TYPES.keys())
    if unknown:
        raise InvalidInput(
            f"event type {', '.join(repr(t) for t in unknown)} is unknown; "
            f"known types: {', '.join(EVENT_TYPES)}",
            field=TYPES,
        )
    return [t for t in EVENT_TYPES if t in wanted]


def wants(event_types: list[str] | None, event_type: str) -> bool:
    """Whether an endpoint asking for `event_types` (empty: all) wants this event."""
    return not event_types or event_type in event_types
