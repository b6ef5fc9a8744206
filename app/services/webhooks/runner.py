"""One round of webhook work, for the worker to call on a schedule: dispatch new events,
attempt due deliveries, disable endpoints failing for too long.

    from app.services.webhooks import run_once
    with app.app_context():
        run_once()          # every few seconds; safe to run in several workers at once
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from flask import current_app

from app.models.types import utcnow
from app.services.webhooks.destinations import allowed_networks
from app.services.webhooks.dispatch import dispatch_events
from app.services.webhooks.due_deliveries import Policy, deliver_due, disable_failing
from app.services.webhooks.sending import HttpSender, Sender

_senders: dict[tuple, HttpSender] = {}


def policy() -> Policy:
    """The delivery settings of the current app (WEBHOOK_*)."""
    config = current_app.config
    return Policy(
        lease=timedelta(seconds=config["WEBHOOK_LEASE_SECONDS"]),
        disable_after=timedelta(days=config["WEBHOOK_DISABLE_AFTER_DAYS"]),
        per_endpoint=config["WEBHOOK_PER_ENDPOINT"],
        concurrency=config["WEBHOOK_CONCURRENCY"],
        lane_seconds=config["WEBHOOK_LANE_SECONDS"],
    )


def http_sender() -> HttpSender:
    """The app's HTTP sender (its timeouts and the networks it may reach beyond public ones)."""
    config = current_app.config
    key = (config["WEBHOOK_CONNECT_TIMEOUT"], config["WEBHOOK_READ_TIMEOUT"], allowed_networks())
    if key not in _senders:
        _senders[key] = HttpSender(*key)
    return _senders[key]


def run_once(
    now: datetime | None = None,
    *,
    sender: Sender | None = None,
    clock: Callable[[], datetime] = utcnow,
    rand: Callable[[], float] = random.random,
) -> dict[str, Any]:
    """Dispatch, deliver and disable once; counts of each. Needs an app context."""
    now = now or utcnow()
    rules = policy()
    dispatched = dispatch_events(now)
    attempted = deliver_due(
        now,
        current_app.config["WEBHOOK_BATCH"],
        sender=sender or http_sender(),
        policy=rules,
        clock=clock,
        rand=rand,
    )
    disabled = disable_failing(now, rules.disable_after)
    return {"dispatched": dispatched, "attempted": attempted, "disabled": disabled}
