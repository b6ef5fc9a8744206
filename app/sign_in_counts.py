"""The sign-in pages' side of the per-account limit (app/services/sign_in_limits.py): the
supervisors' and the desk's sign-in count each attempt here before checking a password,
and forget an account's attempts once it has signed in."""

from __future__ import annotations

from functools import cache

from flask import current_app

from app.extensions import db, limiter
from app.services import sign_in_limits
from app.services.sign_in_limits import AccountLimit


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
    try:
        sign_in_limits.count_attempt(limiter.storage, account, _limit(rule))
    except sign_in_limits.AccountLocked:
        raise
    except Exception:  # the storage is down: go on, when RATELIMIT_SWALLOW_ERRORS says so
        if not current_app.config.get("RATELIMIT_SWALLOW_ERRORS"):
            raise
        current_app.logger.exception("The rate-limit storage failed; sign-in not counted")


def forget_sign_ins(account: str) -> None:
    """The account signed in (and the request committed): its attempts count no more."""
    if not _rule():
        return
    try:
        sign_in_limits.forget_attempts(limiter.storage, account)
    except Exception:
        if not current_app.config.get("RATELIMIT_SWALLOW_ERRORS"):
            raise
        current_app.logger.exception("The rate-limit storage failed; sign-ins not forgotten")
