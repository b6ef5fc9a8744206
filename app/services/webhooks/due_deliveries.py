"""Attempting due deliveries: claim, send outside any transaction, record the outcome.

At least once: a delivery is claimed (marked `sending` with a lease) and committed before
its POST, and its outcome is written after, in a transaction of its own. A worker killed
mid-send leaves it `sending`; when the lease runs out it is due again and sent again, with
the same webhook-id, so receivers drop the copy.

In order per task: a delivery waits while an earlier event of the same subject is still to
be delivered to the same endpoint. One that failed for good (dead) no longer holds back the
next, so a receiver that comes back after a long outage gets every event in order.

Fair between endpoints: a claim takes at most `per_endpoint` deliveries of each endpoint,
round-robin (every endpoint's first before anyone's second), and none of an endpoint whose
earlier claim is still in flight (one lane per endpoint across workers). Each endpoint's
claims are sent in event order by a lane of their own, lanes side by side, so a slow or
failing receiver holds back its own lane only. A lane takes no further delivery once the
round is `lane_seconds` old; what it did not send is handed back, due at once, for the next
round. A claim is leased for one `lease` whatever its place in the round, so a lost
worker's claims are all due again within one lease (the lease must outlast `lane_seconds`
plus the connect and read timeouts).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import exists, func, or_, select, update
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
    per_endpoint: int = 50  # deliveries of one endpoint per round
    concurrency: int = 8  # endpoints sent to side by side
    lane_seconds: float = 2.0  # a lane starts no send once the round is this old


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
    endpoint_id: int = 0
    # What the claim replaced, for handing an unsent claim back as it was.
    due_at: datetime | None = None
    last_attempt_at: datetime | None = None


def _due(now: datetime, *, ordered: bool = True):
    """Due deliveries of enabled endpoints with no claim in flight; `ordered`: only those
    no earlier event of the same subject holds back (the endpoints with due work are found
    without that check, which costs a probe per row)."""
    earlier = aliased(WebhookDelivery)
    held_back = exists().where(
        earlier.endpoint_id == WebhookDelivery.endpoint_id,
        earlier.subject == WebhookDelivery.subject,
        earlier.event_id < WebhookDelivery.event_id,
        earlier.status.in_(OPEN),
    )
    enabled = select(WebhookEndpoint.id).where(WebhookEndpoint.enabled.is_(True))
    # An endpoint with a claim in flight (lease not yet over) is some lane's: not twice.
    in_flight = select(WebhookDelivery.endpoint_id).where(
        WebhookDelivery.status == SENDING, WebhookDelivery.next_attempt_at > now
    )
    due = select(WebhookDelivery).where(
        WebhookDelivery.status.in_(OPEN),
        WebhookDelivery.next_attempt_at <= now,
        WebhookDelivery.endpoint_id.in_(enabled),
        WebhookDelivery.endpoint_id.not_in(in_flight),
    )
    return due.where(or_(WebhookDelivery.subject.is_(None), ~held_back)) if ordered else due


def _fair_ids(now: datetime, limit: int, per_endpoint: int) -> list[int]:
    """Up to `limit` due deliveries, at most `per_endpoint` of each endpoint, round-robin:
    every endpoint's oldest before any endpoint's second oldest. The endpoints whose oldest
    due delivery waits longest come first (at most `limit` of them in a round); one whose
    due deliveries all wait behind an earlier event (in backoff) takes no place."""
    waiting = db.session.scalars(
        _due(now, ordered=False)
        .with_only_columns(WebhookDelivery.endpoint_id)
        .group_by(WebhookDelivery.endpoint_id)
        .order_by(func.min(WebhookDelivery.event_id))
    ).all()
    lanes: list[list[int]] = []
    for endpoint_id in waiting:
        lane = db.session.scalars(
            _due(now)
            .with_only_columns(WebhookDelivery.id)
            .where(WebhookDelivery.endpoint_id == endpoint_id)
            .order_by(WebhookDelivery.event_id, WebhookDelivery.id)
            .limit(per_endpoint)
        ).all()
        if lane:
            lanes.append(lane)
            if len(lanes) >= limit:
                break
    rounds = (lane[place] for place in range(per_endpoint) for lane in lanes if place < len(lane))
    return list(rounds)[:limit]


def claim_due(
    now: datetime, limit: int, lease: timedelta, per_endpoint: int | None = None
) -> list[_Claim]:
    """Mark up to `limit` due deliveries (at most `per_endpoint` of each endpoint, round-
    robin) as in flight for one lease; commits. Claims come in event order per endpoint."""
    ids = _fair_ids(now, limit, per_endpoint or limit)
    if not ids:
        db.session.rollback()
        return []
    # Locked, and still due once locked (another worker may have claimed them meanwhile).
    due = locked(
        select(WebhookDelivery)
        .where(
            WebhookDelivery.id.in_(ids),
            WebhookDelivery.status.in_(OPEN),
            WebhookDelivery.next_attempt_at <= now,
        )
        .order_by(WebhookDelivery.event_id, WebhookDelivery.id)
    ).options(
        # In one query each, not one per row; not locked (only the deliveries are).
        selectinload(WebhookDelivery.endpoint),
        selectinload(WebhookDelivery.event),
    )
    rows = list(db.session.scalars(due))
    claims = []
    for delivery in rows:
        due_at, last_attempt_at = delivery.next_attempt_at, delivery.last_attempt_at
        delivery.status = SENDING
        delivery.attempts += 1
        delivery.last_attempt_at = now
        # One lease each, whatever its place in the round: a lost worker's claims are all
        # due again when it ends (a lane starts no send late in the round).
        delivery.next_attempt_at = now + lease
        endpoint, event = delivery.endpoint, delivery.event
        claims.append(
            _Claim(
                delivery.id,
                delivery.attempts,
                endpoint.url,
                endpoint.secret,
                event.event_id,
                event.payload,
                endpoint.id,
                due_at,
                last_attempt_at,
            )
        )
    db.session.commit()
    return claims


def release(claims: list[_Claim]) -> None:
    """Hand unsent claims back as they were before (due, attempts not counted); commits."""
    for claim in claims:
        db.session.execute(
            update(WebhookDelivery)
            .where(
                WebhookDelivery.id == claim.delivery_id,
                WebhookDelivery.status == SENDING,
                WebhookDelivery.attempts == claim.attempts,
            )
            .values(
                status=PENDING,
                attempts=claim.attempts - 1,
                next_attempt_at=claim.due_at,
                last_attempt_at=claim.last_attempt_at,
            )
        )
    db.session.commit()


def deliver_due(
    now: datetime,
    limit: int = 50,
    *,
    sender: Sender,
    policy: Policy | None = None,
    clock: Callable[[], datetime] = utcnow,
    rand: Callable[[], float] = random.random,
    ticker: Callable[[], float] = time.monotonic,
) -> int:
    """Attempt up to `limit` due deliveries, fairly between endpoints; returns how many
    were attempted (claims a lane did not reach go back, due at once).

    `now` schedules (what is due, when to retry); `clock` stamps the signature at the
    moment of sending, as receivers check it against their own clock.
    """
    policy = policy or Policy()
    claims = claim_due(now, limit, policy.lease, policy.per_endpoint)
    started = ticker()
    lanes: dict[int, list[_Claim]] = {}
    for claim in claims:  # in event order, so each lane is too
        lanes.setdefault(claim.endpoint_id, []).append(claim)

    def run_lane(lane: list[_Claim]) -> list[tuple[_Claim, Attempt]]:
        """One endpoint's claims, in order, until the round is too old; no database here."""
        done = []
        for claim in lane:
            # Its first send goes whatever the time (every lane moves on), unless the round
            # is so old that the lease might end before the answer does.
            limit = policy.lane_seconds if done else policy.lease.total_seconds() / 2
            if ticker() - started >= limit:
                break
            body = body_of(claim.payload)
            headers = signed_headers(claim.secret, claim.event_id, body, clock())
            done.append((claim, sender(claim.url, body, headers)))
        return done

    sent: list[tuple[_Claim, Attempt]] = []
    if len(lanes) <= 1 or policy.concurrency <= 1:
        for lane in lanes.values():
            for claim, attempt in run_lane(lane):
                record_attempt(claim, attempt, now, policy, rand)
                sent.append((claim, attempt))
    else:
        with ThreadPoolExecutor(min(policy.concurrency, len(lanes)), "webhook-lane") as pool:
            running = [pool.submit(run_lane, lane) for lane in lanes.values()]
            for finished in as_completed(running):  # each lane's outcomes as soon as it ends
                for claim, attempt in finished.result():
                    record_attempt(claim, attempt, now, policy, rand)
                    sent.append((claim, attempt))
    unsent = {claim.delivery_id for claim, _attempt in sent}
    release([claim for claim in claims if claim.delivery_id not in unsent])
    return len(sent)


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
