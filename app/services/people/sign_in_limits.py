"""A limit on sign-in attempts per account, beside the limit per client address (ASVS 2.2.1).

Attempts at one account (a supervisor's e-mail address; an agent's tenant and login user
id), from whatever addresses they come, are counted in a fixed window (`ACCOUNT_LOGIN_LIMIT`,
10 per 15 minutes). Past the limit the account's sign-ins are refused, the right password
too, until the window ends: a lockout ends by itself within minutes, so whoever guesses can
keep a user out for one window at a time, never for hours, and tries at most 50 passwords in
any hour on an account, however many addresses they use. A successful sign-in forgets the
count.

Attempts are counted before the password is checked, so guesses sent in parallel cannot
slip past the limit. Every account name is counted alike, whether or not such an account
exists, and the refusal names none: the limit tells nothing about which accounts exist.
Counters are kept under a hash of the account's name, in the rate-limit storage.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from limits import parse
from limits.storage import Storage

from app.models import Tenant
from app.services.errors import ServiceError


@dataclass(frozen=True)
class AccountLimit:
    """`attempts` sign-ins per account in a window of `window_seconds`."""

    attempts: int
    window_seconds: int

    @classmethod
    def parse(cls, rule: str) -> AccountLimit:
        """From `limits` notation: `10 per 15 minutes`, `5/minute`."""
        item = parse(rule)
        return cls(item.amount, item.get_expiry())


class AccountLocked(ServiceError):
    """The account has used up its sign-in attempts for now."""

    def __init__(self, retry_after: int) -> None:
        minutes = max(1, math.ceil(retry_after / 60))
        when = "1 minute" if minutes == 1 else f"{minutes} minutes"
        super().__init__(f"Too many sign-in attempts for this account. Try again in {when}.")
        self.retry_after = retry_after


def _account(*parts: str) -> str:
    return "sign-in/" + hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def supervisor_account(email: str) -> str:
    """The counter of a supervisor's sign-ins: the address as sign-in reads it."""
    return _account("supervisor", email.strip().lower())


def agent_account(tenant: Tenant | None, company: str, environment: str, login: str) -> str:
    """The counter of an agent's sign-ins: the tenant found (whatever spelling found it) and
    the login user id, which is case-sensitive; the names as typed when no tenant has them."""
    where = str(tenant.id) if tenant is not None else f"?{company}\x00{environment}"
    return _account("agent", where, login)


def count_attempt(storage: Storage, account: str, limit: AccountLimit) -> None:
    """Count one sign-in attempt at the account; AccountLocked when it is past the limit,
    and the password must then go unchecked."""
    if incr_window := getattr(storage, "incr_window", None):  # one statement (ratelimit.py)
        count, ends_at = incr_window(account, limit.window_seconds)
    else:
        count = storage.incr(account, limit.window_seconds)
        ends_at = storage.get_expiry(account)
    if count > limit.attempts:
        now = getattr(storage, "clock", time.time)()
        raise AccountLocked(max(1, math.ceil(ends_at - now)))


def forget_attempts(storage: Storage, account: str) -> None:
    """The account signed in: its earlier attempts count no more."""
    storage.clear(account)
