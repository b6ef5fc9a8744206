"""Following the calls the contact flow placed: the worker asks the contact centre
(DescribeContact) how each is going and records what it learns with `record_call_event`,
as the desk does for the calls it places.

A call is followed while its attempt's call is `contact-flow`'s, has a contact id and has
not ended (the index `ix_attempts_calls_pending`). Each run asks of at most `per_tenant`
calls of each tenant (oldest first; Amazon Connect's DescribeContact allows a few requests
a second), and of `limit` in all. What it learns:

- connected to an agent: `call.connected` at the contact's time;
- disconnected: `call.ended` with the result the contact centre's record gives (see
  `contact_centre.connect.contact_result`), at the contact's time;
- the contact centre has no such contact: nothing for UNKNOWN_GRACE after the call started
  (a contact just placed may not be described yet), then it ends FAILED;
- not ended GIVE_UP after it started: it ends FAILED, and is no longer asked about.

An instance that fails (unreachable, throttling, refused credentials) leaves that tenant's
calls for the next run; it is logged and the other tenants go on. The contact centre is
asked outside any transaction; each call's change is one short transaction of its own,
which reads the attempt again (under its row lock) and changes nothing if its call was
replaced or ended meanwhile (the agent redialled, or the desk reported the end).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import func, select

from app.db.transactions import transaction
from app.extensions import db
from app.models import Attempt, CallResult, Campaign, Tenant
from app.models.campaigns import CallPlacement
from app.services.actors import Actor
from app.services.contact_centre import ContactCentre, ContactState, InstanceError, instance_for
from app.services.dialer.call_events import CONNECTED, ENDED, record_call_event

FOLLOWER = Actor.system("contact flow")
UNKNOWN_GRACE = timedelta(minutes=5)
GIVE_UP = timedelta(hours=2)
PER_TENANT = 10
LIMIT = 200


@dataclass(frozen=True)
class FollowedCall:
    attempt_id: int
    call_id: str
    contact_id: str
    started_at: datetime


def pending_calls(*, limit: int = LIMIT, per_tenant: int = PER_TENANT) -> dict[int, list]:
    """The calls to ask about, by tenant id: each tenant's oldest `per_tenant`, `limit` in all."""
    rank = (
        func.row_number()
        .over(
            partition_by=Campaign.tenant_id,
            order_by=(Attempt.call_started_at, Attempt.id),
        )
        .label("rank")
    )
    ranked = (
        select(
            Attempt.id,
            Attempt.call_id,
            Attempt.contact_id,
            Attempt.call_started_at,
            Campaign.tenant_id,
            rank,
        )
        .join(Campaign, Campaign.id == Attempt.campaign_id)
        .where(
            Attempt.placed_by == CallPlacement.CONTACT_FLOW.value,
            Attempt.call_ended_at.is_(None),
            Attempt.contact_id.is_not(None),
        )
        .subquery()
    )
    rows = db.session.execute(
        select(ranked)
        .where(ranked.c.rank <= per_tenant)
        .order_by(ranked.c.call_started_at, ranked.c.id)
        .limit(limit)
    )
    calls: dict[int, list] = {}
    for row in rows:
        call = FollowedCall(row.id, row.call_id, row.contact_id, row.call_started_at)
        calls.setdefault(row.tenant_id, []).append(call)
    return calls


def follow_calls(
    now: datetime, *, limit: int = LIMIT, per_tenant: int = PER_TENANT
) -> dict[str, int]:
    """Ask the contact centre about the pending calls and record what changed; the counts
    of calls asked about and of calls changed (connected or ended)."""
    with transaction(db.session, read_only=True):
        calls = pending_calls(limit=limit, per_tenant=per_tenant)
        instances: dict[int, ContactCentre] = {}
        for tenant_id in calls:
            try:
                instances[tenant_id] = instance_for(db.session.get(Tenant, tenant_id))
            except InstanceError as error:
                current_app.logger.warning(
                    "Calls of tenant %s not followed: %s", tenant_id, error.message
                )
    done = {"asked": 0, "changed": 0}
    for tenant_id, instance in instances.items():
        for call in calls[tenant_id]:
            try:
                state = instance.describe_contact(call.contact_id)
            except InstanceError as error:
                current_app.logger.warning(
                    "Calls of tenant %s not followed this time: %s", tenant_id, error.message
                )
                break
            done["asked"] += 1
            with transaction(db.session, read_only=False):
                done["changed"] += apply_state(call, state, now)
    return done


def apply_state(call: FollowedCall, state: ContactState | None, now: datetime) -> bool:
    """Record on the call's attempt what the contact centre says of its contact (None: no
    such contact); True when the attempt changed. The caller commits."""
    attempt = db.session.scalar(
        select(Attempt).where(Attempt.id == call.attempt_id).with_for_update()
    )
    if attempt is None or attempt.call_id != call.call_id or attempt.call_ended_at is not None:
        return False
    age = now - call.started_at
    if state is None:
        if age < UNKNOWN_GRACE:
            return False
        return _end(attempt, CallResult.FAILED, now)
    changed = False
    if state.connected_at is not None:
        changed = record_call_event(
            attempt,
            CONNECTED,
            contact_id=state.contact_id,
            actor=FOLLOWER,
            now=min(state.connected_at, now),
        )
    if state.ended_at is not None and state.result is not None:
        ended = record_call_event(
            attempt,
            ENDED,
            state.result,
            state.contact_id,
            actor=FOLLOWER,
            now=min(state.ended_at, now),
        )
        return ended or changed
    if age >= GIVE_UP:
        return _end(attempt, CallResult.FAILED, now) or changed
    return changed


def _end(attempt: Attempt, result: CallResult, now: datetime) -> bool:
    return record_call_event(attempt, ENDED, result.value, actor=FOLLOWER, now=now)
