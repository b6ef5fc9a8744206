"""The reasons a tenant offers for being AWAY (Break, Lunch, Training, Meeting…).

An agent going AWAY may name one (the desk's choice, setAgentState's `reason`); none named
is AWAY with no reason (shown as plain Away, counted as "No reason" in the agents report).
A reason is a name of 1 to 40 characters, unique in the tenant whatever its case. Removing
a reason leaves the agents away with it, and the spans that had it, as they were: they keep
the name as text. Every change leaves its audit record and its event.
"""

from __future__ import annotations

from sqlalchemy import func, select

from app.extensions import db
from app.models import AwayReason, Tenant
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import AGENT_AWAY_REASON, AWAY_REASON_NAME, AWAY_REASON_SORT_ORDER, Field

MAX_NAME = 40
# The agents report's name for time AWAY with no reason given.
NO_REASON = "No reason"

# How this module's refusals name their fields.
REASON = AGENT_AWAY_REASON.said_as("reason")
NAME = AWAY_REASON_NAME.said_as("name")


def list_reasons(tenant: Tenant | int) -> list[AwayReason]:
    """The tenant's reasons, in the desk's order (sort order, then name)."""
    tenant_id = tenant if isinstance(tenant, int) else tenant.id
    return list(
        db.session.scalars(
            select(AwayReason)
            .where(AwayReason.tenant_id == tenant_id)
            .order_by(AwayReason.sort_order, AwayReason.name)
        )
    )


def find_reason(tenant_id: int, name: str) -> AwayReason | None:
    """The tenant's reason of that name, in any case."""
    return db.session.scalar(
        select(AwayReason).where(
            AwayReason.tenant_id == tenant_id, func.lower(AwayReason.name) == name.lower()
        )
    )


def checked_reason(tenant_id: int, name: str | None, field: Field = REASON) -> str | None:
    """The reason as the tenant spells it; None for none. An unknown one is refused,
    naming the field and the reasons there are."""
    if name is None or not name.strip():
        return None
    reason = find_reason(tenant_id, name.strip())
    if reason is None:
        known = ", ".join(r.name for r in list_reasons(tenant_id)) or "none are set"
        raise InvalidInput(
            f"{field} '{name}' is not an away reason of this environment (reasons: {known})",
            field=field,
        )
    return reason.name


def _checked_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise InvalidInput(f"{NAME} is required", field=NAME)
    if len(name) > MAX_NAME:
        raise InvalidInput(f"{NAME} is longer than {MAX_NAME} characters", field=NAME)
    if any(not ch.isprintable() for ch in name):
        raise InvalidInput(f"{NAME} holds a control character", field=NAME)
    return name


def _change(action: str, reason: AwayReason, before=None, after=None) -> Change:
    return Change(
        action,
        "away_reason",
        str(reason.id),
        reason.tenant_id,
        before,
        after,
        event_type=action,
        event_data={"reason": reason.name, "sortOrder": reason.sort_order},
        subject=reason.name,
    )


def add_reason(tenant: Tenant, name: str, *, sort_order: int = 0, actor: Actor) -> AwayReason:
    """Add a reason; one of the same name in any case is refused."""
    name = _checked_name(name)
    if find_reason(tenant.id, name) is not None:
        raise Conflict(f"away reason '{name}' already exists", field=AWAY_REASON_NAME)
    if not -1000 <= sort_order <= 1000:
        raise InvalidInput(
            "sort order must be between -1000 and 1000",
            field=AWAY_REASON_SORT_ORDER.said_as("sort order"),
        )
    reason = AwayReason(tenant_id=tenant.id, name=name, sort_order=sort_order)
    db.session.add(reason)
    db.session.flush()
    after = {"name": reason.name, "sortOrder": reason.sort_order}
    record(actor, _change("away_reason.added", reason, after=after))
    return reason


def remove_reason(tenant: Tenant, name: str, *, actor: Actor) -> AwayReason:
    """Remove a reason: agents away with it stay so; the reports keep its time."""
    reason = find_reason(tenant.id, (name or "").strip())
    if reason is None:
        raise NotFound(f"away reason '{name}' does not exist", field=AWAY_REASON_NAME)
    before = {"name": reason.name, "sortOrder": reason.sort_order}
    record(actor, _change("away_reason.removed", reason, before=before))
    db.session.delete(reason)
    db.session.flush()
    return reason
