"""Leases: a job that must not run twice at once (an intake load) holds one while it runs,
kept fresh by a heartbeat, in the queue's own storage (SQLite or Redis).

A lease is dead when its heartbeat is older than its length, or at once when it was held
by a process of this machine that no longer exists (a worker killed with SIGKILL), so a
restarted worker takes up what a killed one left without waiting.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import current_app

from app.jobs.queue import QUEUE_ERRORS, huey

HOST = socket.gethostname()
log = logging.getLogger(__name__)


def _key(name: str) -> str:
    return f"lease.{name}"


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def alive(lease: dict[str, Any] | None, now: float) -> bool:
    """Whether a lease still binds: fresh, and its process not known to be gone."""
    if not lease or lease["until"] < now:
        return False
    return lease["host"] != HOST or _process_exists(lease["pid"])


def current(name: str) -> dict[str, Any] | None:
    return huey.get(_key(name), peek=True)


def is_held(name: str, now: float | None = None) -> bool:
    return alive(current(name), time.time() if now is None else now)


def _beat(name: str, mine: dict[str, Any], seconds: float, stop: threading.Event) -> None:
    # The queue's storage gone for a while (Redis restarting) must not end the heartbeat:
    # the lease would then lapse while its job runs on, and another worker take it over.
    failing = False
    while not stop.wait(seconds / 3):
        try:
            huey.put(_key(name), {**mine, "until": time.time() + seconds})
        except QUEUE_ERRORS as error:
            if not failing:
                log.warning("Lease %s: heartbeat not stored (%s); trying on", name, error)
            failing = True
        else:
            if failing:
                log.warning("Lease %s: heartbeat stored again", name)
            failing = False


@contextmanager
def held(name: str, seconds: float) -> Iterator[bool]:
    """Hold the lease `name` for the block: True when taken (a dead holder's lease is
    taken over), False when a live holder has it and the job must not run."""
    mine = {"host": HOST, "pid": os.getpid(), "token": uuid.uuid4().hex}
    lease = {**mine, "until": time.time() + seconds}
    if not huey.put_if_empty(_key(name), lease):
        if alive(current(name), time.time()):
            yield False
            return
        huey.put(_key(name), lease)  # its holder died
        if (current(name) or {}).get("token") != mine["token"]:  # another took it first
            yield False
            return
    stop = threading.Event()
    heartbeat = None
    if not huey.immediate:  # in the caller nothing else can take it over
        heartbeat = threading.Thread(
            target=_beat, args=(name, mine, seconds, stop), name=f"lease-{name}", daemon=True
        )
        heartbeat.start()
    try:
        yield True
    finally:
        stop.set()
        if heartbeat is not None:
            heartbeat.join()
        try:
            huey.delete(_key(name))
        except QUEUE_ERRORS as error:  # the job is done; the lease lapses after `seconds`
            log.warning("Lease %s: not released (%s)", name, error)


# A queued job waits behind other jobs; after this many lease lengths without a worker
# taking it up it is taken to be lost (dequeued by a worker that then died).
QUEUED_PATIENCE = 10


def lease_seconds() -> float:
    return current_app.config["WORKER_LEASE_SECONDS"]


@dataclass(frozen=True)
class Unfinished:
    """A job's work that has not ended: the lease it runs under, the id its job takes,
    whether it still waits in the queue, and since when."""

    name: str
    id: Any
    queued: bool
    created_at: datetime


def requeue_unheld(
    unfinished: Iterable[Unfinished], run: Callable[[Any], object], now: datetime
) -> int:
    """Queue again (`run`) the work no live worker holds: cut off mid-run, or queued so long
    ago that its job must have been lost. How many were queued again."""
    wall, patience = time.time(), QUEUED_PATIENCE * lease_seconds()
    requeued = 0
    for work in unfinished:
        if is_held(work.name, wall):
            continue
        if work.queued and (now - work.created_at).total_seconds() < patience:
            continue  # most likely still in the queue, behind other jobs
        run(work.id)
        requeued += 1
    return requeued
