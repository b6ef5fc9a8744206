"""Attempting due deliveries: claim, send outside any transaction, record the outcome.

At least once: a delivery is claimed (marked `sending` with a lease) and committed before
its POST, and its outcome is written after, in a transaction of its own. A worker killed
mid-send leaves it `sending`; when the lease runs out it is due again and sent again, with
the same webhook-id, so receivers drop the copy.

In order per task: a delivery waits while an earlier event of the same subject is still to
be delivered to the same endpoint. One that failed for good (dead) no longer holds back the
next, so a receiver that comes back after a long outage gets every event in order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import exists, or_, select
from sqlalchemy.orm import aliased, selectinload

from app.extensions import db
from app.models import WebhookDelivery, WebhookEndpoint
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.webhooks.dispatch import DELIVERED, FAILED, OPEN, PENDING, SENDING, locked
from app.services.webhooks.endpoints import disable_endpoint
from app.services.webhooks.sending import Attempt, Sender, body_of, signed_headers

# Wait after the n-th failed attempt (Standard Webhooks / Svix): 27.5 hours in all, then dead.
RETRY_SCHEDULE = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
)
MAX_ATTEMPTS = len(RETRY_SCHEDULE) + 1
JITTER = 0.1  # each wait is stretched or shrunk by up to 10%, so retries do not stampede


@dataclass(frozen=True)
class Policy:
    """The settings a delivery run needs."""

    lease: timedelta = timedelta(seconds=60)
    disable_after: timedelta = timedelta(days=5)


def retry_delay(attempts: int, rand: Callable[[], float] = random.random) -> timedelta | None:
    """How long to wait after `attempts` failed attempts; None: give up (dead)."""
    if attempts >= MAX_ATTEMPTS:
        return None
    base = RETRY_SCHEDULE[attempts - 1]
    return base * (1 + JITTER * (2 * rand() - 1))


@dataclass(frozen=True)
class _Claim:
    delivery_id: int
    attempts: int
    url: str
    secret: str
    event_id: str
    payload: dict


def _due(now: datetime):
    earlier = aliased(WebhookDelivery)
    held_back = exists().where(
        earlier.endpoint_id == WebhookDelivery.endpoint_id,
        earlier.subject == WebhookDelivery.subject,
        earlier.event_id < WebhookDelivery.event_id,
        earlier.status.in_(OPEN),
    )
    enabled = select(WebhookEndpoint.id).where(WebhookEndpoint.enabled.is_(True))
    return (
        select(WebhookDelivery)
        .where(
            WebhookDelivery.status.in_(OPEN),
            WebhookDelivery.next_attempt_at <= now,
            WebhookDelivery.endpoint_id.in_(enabled),
            or_(WebhookDelivery.subject.is_(None), ~held_back),
        )
        .order_by(WebhookDelivery.event_id, WebhookDelivery.id)
    )


def claim_due(now: datetime, limit: int, lease: timedelta) -> list[_Claim]:
    """Mark up to `limit` due deliveries as in flight until their lease ends; commits."""
    due = locked(_due(now).limit(limit)).options(
        # In one query each, not one per row; not locked (only the deliveries are).
        selectinload(WebhookDelivery.endpoint),
        selectinload(WebhookDelivery.event),
    )
    rows = list(db.session.scalars(due))
    claims = []
    for delivery in rows:
        delivery.status = SENDING
        delivery.attempts += 1
        delivery.last_attempt_at = now
        # The lease covers the sends before this one in the batch too.
        delivery.next_attempt_at = now + lease * (len(claims) + 1)
        endpoint, event = delivery.endpoint, delivery.event
        claims.append(
            _Claim(
                delivery.id,
                delivery.attempts,
                endpoint.url,
                endpoint.secret,
                event.event_id,
                event.payload,
            )
        )
    db.session.commit()
    return claims


def deliver_due(
    now: datetime,
    limit: int = 50,
    *,
    sender: Sender,
    policy: Policy | None = None,
    clock: Callable[[], datetime] = utcnow,
    rand: Callable[[], float] = random.random,
) -> int:
    """Attempt up to `limit` due deliveries; returns how many were attempted.

    `now` schedules (what is due, when to retry); `clock` stamps the signature at the
    moment of sending, as receivers check it against their own clock.
    """
    policy = policy or Policy()
    claims = claim_due(now, limit, policy.lease)
    for claim in claims:
        body = body_of(claim.payload)
        headers = signed_headers(claim.secret, claim.event_id, body, clock())
        attempt = sender(claim.url, body, headers)  # no transaction is open here
        record_attempt(claim, attempt, now, policy, rand)
    return len(claims)


def record_attempt(
    claim: _Claim, attempt: Attempt, now: datetime, policy: Policy, rand: Callable[[], float]
) -> None:
    """Write what came of one attempt; commits."""
    # Wait for the row rather than skip it: this outcome must be written.
    delivery = db.session.scalar(
        select(WebhookDelivery).where(WebhookDelivery.id == claim.delivery_id).with_for_update()
    )
    # Gone (endpoint deleted) or claimed again after a lease ran out: that claim reports.
    if delivery is None or delivery.status != SENDING or delivery.attempts != claim.attempts:
        db.session.rollback()
        return
    endpoint = delivery.endpoint
    delivery.last_status_code = attempt.status_code
    delivery.last_error = attempt.error or (
        None if attempt.delivered else _status_error(attempt.status_code)
    )
    if attempt.delivered:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = DELIVERED, now, None
        endpoint.failing_since = None
    else:
        delay = retry_delay(delivery.attempts, rand)
        delivery.status = FAILED if delay is None else PENDING
        delivery.next_attempt_at = None if delay is None else now + delay
        endpoint.failing_since = endpoint.failing_since or now
        disable_if_failing(endpoint, now, policy.disable_after)
    db.session.commit()


def _status_error(status: int | None) -> str | None:
    if status is None:
        return None
    if 300 <= status < 400:
        return f"HTTP {status}: redirects are not followed"
    return f"HTTP {status}"


def disable_if_failing(endpoint: WebhookEndpoint, now: datetime, after: timedelta) -> bool:
    """Disable an endpoint whose every attempt has failed for `after`, saying why."""
    since = endpoint.failing_since
    if not endpoint.enabled or since is None or now - since < after:
        return False
    days = after / timedelta(days=1)
    disable_endpoint(
        endpoint,
        f"Disabled automatically on {now:%Y-%m-%d %H:%M} UTC: every delivery has failed "
        f"since {since:%Y-%m-%d %H:%M} UTC ({days:g} days or more).",
        actor=Actor.system("webhook-failing"),
    )
    return True


def disable_failing(now: datetime, after: timedelta) -> int:
    """Disable every enabled endpoint failing for `after` or longer; commits; how many."""
    endpoints = db.session.scalars(
        locked(
            select(WebhookEndpoint).where(
                WebhookEndpoint.enabled.is_(True),
                WebhookEndpoint.failing_since <= now - after,
            )
        )
    )
    disabled = sum(disable_if_failing(endpoint, now, after) for endpoint in endpoints)
    db.session.commit()
    return disabled
