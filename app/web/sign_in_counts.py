"""The sign-in pages' side of the per-account limit (app/services/people/sign_in_limits.py): the
supervisors' and the desk's sign-in count each attempt here before checking a password,
and forget an account's attempts once it has signed in."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import cache

from flask import current_app
from limits.storage import MemoryStorage, Storage

from app.extensions import db, limiter
from app.services.people import sign_in_limits
from app.services.people.sign_in_limits import AccountLimit
from app.web.rate_limit_failover import unreachable_errors

log = logging.getLogger(__name__)


@cache
def _limit(rule: str) -> AccountLimit:
    return AccountLimit.parse(rule)


def _rule() -> str | None:
    """ACCOUNT_LOGIN_LIMIT, unless rate limits are off (RATELIMIT_ENABLED=0) or it is empty."""
    return current_app.config.get("ACCOUNT_LOGIN_LIMIT") if limiter.enabled else None


def count_sign_in(account: str) -> None:
    """Count an attempt at the account; AccountLocked when it has no attempts left. The
    count is written on a connection of its own, before this request takes SQLite's write
    lock, so the request's transaction is ended first."""
    if not (rule := _rule()):
        return
    db.session.rollback()
    _counted(lambda storage: sign_in_limits.count_attempt(storage, account, _limit(rule)))


def forget_sign_ins(account: str) -> None:
    """The account signed in (and the request committed): its attempts count no more."""
    if _rule():
        _counted(lambda storage: sign_in_limits.forget_attempts(storage, account))


# While the shared storage cannot be reached, attempts are counted in this process: sign-in
# keeps working and a guesser is still held back (per process). Said once per outage.
_local = MemoryStorage()
_outage = threading.Event()


def _counted(action: Callable[[Storage], None]) -> None:
    storage = limiter.storage
    try:
        action(storage)
    except unreachable_errors(storage):
        if not _outage.is_set():
            _outage.set()
            log.warning(
                "The rate-limit storage cannot be reached: sign-in attempts are counted "
                "per process until it answers again"
            )
        action(_local)
        return
    if _outage.is_set():
        _outage.clear()
        log.warning("The rate-limit storage answers again: sign-in attempts are counted there")
