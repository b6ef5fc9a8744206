"""Clock-driven work of the worker.

- Every tick (`WORKER_TICK_SECONDS`, 2 s): webhook events are dispatched and due
  deliveries sent, so an event leaves seconds after its change commits.
- Every `CALL_FOLLOW_SECONDS` (5 s, on the tick): the calls a contact flow placed are
  asked about (connected, ended and their result).
- Every minute: the tick is checked (started again when it stopped) and intake loads no
  live worker holds are queued again.
- Every day: audit records past their retention are pruned, and the contact limits' marks
  older than the longest window a limit may have.

huey's periodic tasks run at most once a minute, so the tick is a job that queues itself
again. Each chain of ticks carries a token; starting a chain (at worker start, or when the
minute check finds no recent tick) replaces the token, and an older chain stops at its next
tick, so there is only ever one. A worker killed mid-tick loses nothing: deliveries are
rows of the database, sent again by the next tick of the next worker.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from flask import current_app
from huey import crontab

from app.extensions import db
from app.jobs.bulk import sweep_bulk
from app.jobs.full_disk import say_job_failed
from app.jobs.intake import sweep_intake
from app.jobs.queue import huey, job, periodic
from app.models.types import utcnow
from app.services.audit.reading import prune_audit
from app.services.contact_limits.counts import prune_marks
from app.services.delivery.sweeps import expire_holds, expire_reservations
from app.services.dialer.contact_flow import follow_calls
from app.services.webhooks import run_once

CHAIN, BEAT, FOLLOWED = "clock.chain", "clock.beat", "clock.calls-followed"

Work = Callable[[datetime], Any]


# One tick goes on while there is webhook work, up to this long: after a large intake
# load tens of thousands of events wait, and one round takes only a batch of them.
DRAIN_SECONDS = 10.0


def deliver_webhooks(now: datetime) -> dict[str, int]:
    """Dispatch new events to endpoints and send the deliveries that are due, round after
    round while there is work, for up to DRAIN_SECONDS."""
    totals: dict[str, int] = {}
    deadline = time.monotonic() + DRAIN_SECONDS
    while True:
        done = run_once(now)
        for name, count in done.items():
            totals[name] = totals.get(name, 0) + count
        if not (done.get("dispatched") or done.get("attempted")) or time.monotonic() > deadline:
            return totals
        now = utcnow()


def prune_audit_records(now: datetime) -> Any:
    """Delete the audit records older than AUDIT_RETENTION_DAYS."""
    return prune_audit(now)


def expire_desk_timeouts(now: datetime) -> dict[str, int]:
    """End preferred-agent holds and lapsed reservations (silent desks go offline)."""
    done = {"holds": expire_holds(now), "reservations": expire_reservations(now)}
    db.session.commit()
    return done


def follow_placed_calls(now: datetime) -> dict[str, int] | None:
    """Ask the contact centre how the calls its contact flow placed went, once every
    CALL_FOLLOW_SECONDS (None on the ticks in between)."""
    wall = time.time()
    last = huey.get(FOLLOWED, peek=True)
    if last is not None and 0 <= wall - last < current_app.config["CALL_FOLLOW_SECONDS"]:
        return None
    huey.put(FOLLOWED, wall)
    return follow_calls(now)


# The agent desk's clock-driven work (preferred-agent holds and reservations that expire)
# joins these lists: EVERY_TICK for what must happen within seconds, else EVERY_MINUTE.
EVERY_TICK: list[Work] = [follow_placed_calls, deliver_webhooks, expire_desk_timeouts]
EVERY_MINUTE: list[Work] = [sweep_intake, sweep_bulk]
EVERY_DAY: list[Work] = [prune_audit_records, prune_marks]


def run_all(works: list[Work], now: datetime) -> dict[str, Any]:
    """Run each piece of work; one that fails is logged and does not stop the others."""
    done = {}
    for work in works:
        try:
            done[work.__name__] = work(now)
        except Exception as error:
            db.session.rollback()
            say_job_failed(current_app._get_current_object(), work.__name__, error)
    return done


def start_clock() -> str:
    """Start a new chain of ticks; any older chain stops at its next tick."""
    chain = uuid.uuid4().hex
    huey.put(CHAIN, chain)
    tick(chain)
    return chain


def tick_age(now: float | None = None) -> float | None:
    """Seconds since the last tick ran, None when none has."""
    beat = huey.get(BEAT, peek=True)
    return None if beat is None else (time.time() if now is None else now) - beat


@job("clock.tick")
def tick(chain: str) -> None:
    """Run the tick's work, then queue the next tick of this chain."""
    if huey.get(CHAIN, peek=True) != chain:
        return  # a newer chain took over
    try:
        run_all(EVERY_TICK, utcnow())
    finally:
        huey.put(BEAT, time.time())
        if not huey.immediate:
            tick.schedule(args=(chain,), delay=current_app.config["WORKER_TICK_SECONDS"])


@periodic("clock.minute", crontab())
def every_minute() -> None:
    """Restart the tick when it stopped; then the minute's work."""
    age = tick_age()
    if age is None or age > max(30.0, 10 * current_app.config["WORKER_TICK_SECONDS"]):
        start_clock()
    run_all(EVERY_MINUTE, utcnow())


@periodic("clock.day", crontab(minute="17", hour="3"))
def every_day() -> None:
    run_all(EVERY_DAY, utcnow())
