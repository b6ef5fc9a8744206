"""The API's request limit, counted against storage shared by every worker and host (Redis, or
the app's database: app/db/rate_limit_counters.py).

The API's limit is counted from leases (`Leases`): a process takes a block of a window's
hits in one write and counts its requests against it in memory, so that a request seldom
writes, yet all workers and hosts together never admit more than the limit. On Redis a
lease is one round trip too (a Lua script). When the storage cannot be reached, the API
counts per process instead (app/web/rate_limit_failover.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from limits import RateLimitItem
from limits.storage import RedisStorage, Storage

# --- Leases -------------------------------------------------------------------------------

# A lease is at most this share of the limit, and of what its window has left.
LEASE_OF_LIMIT = 100
LEASE_OF_REMAINING = 8


@dataclass
class _Lease:
    ends_at: float  # when the window it was taken from ends (the storage's clock)
    left: int  # its hits not counted yet
    count: int  # the shared count after it was taken


class Leases:
    """Hits of a limit counted from leases: blocks of a window's hits that a process takes
    from the shared count in one write, then counts down in memory.

    Every worker and host takes its leases from the same count and none is granted past
    the limit, so all together admit at most the limit per window. A lease is at most
    1/LEASE_OF_LIMIT of the limit and 1/LEASE_OF_REMAINING of what the window has left: far
    from the limit a process writes once per hundredth of it, and the last hits before the
    limit are leased one at a time. A lease a process does not use up before its window
    ends (an idle worker, a restart) is lost to that window, so the limit may refuse a few
    hits early, never one late. A window known to be used up refuses without a write.
    """

    def __init__(self) -> None:
        self._leases: dict[str, _Lease] = {}
        self._lock = threading.Lock()

    def hit(
        self,
        storage: Storage,
        item: RateLimitItem,
        *identifiers: str,
        before_writing: Callable[[], object] = lambda: None,
    ) -> tuple[bool, float]:
        """Count one hit of `item` for `identifiers`: whether it is within the limit, and
        when its window ends. `before_writing` runs first when a lease must be taken."""
        key = item.key_for(*identifiers)
        clock = getattr(storage, "clock", time.time)
        with self._lock:
            lease = self._leases.get(key)
            if lease is not None and clock() < lease.ends_at:
                if lease.left:
                    lease.left -= 1
                    return True, lease.ends_at
                if lease.count >= item.amount:
                    return False, lease.ends_at
            else:
                lease = None
        remaining = item.amount - (lease.count if lease else 0)
        size = max(1, min(item.amount // LEASE_OF_LIMIT, remaining // LEASE_OF_REMAINING))
        before_writing()
        expiry = item.get_expiry()
        count, ends_at = _take(storage, key, expiry, size)
        granted = max(0, min(size, item.amount - (count - size)))
        with self._lock:
            current = self._leases.get(key)
            if current is not None and same_window(current.ends_at, ends_at, expiry):
                current.left += max(0, granted - 1)
                current.count = max(current.count, count)
                current.ends_at = min(current.ends_at, ends_at)
            elif current is None or current.ends_at < ends_at:
                self._leases[key] = _Lease(ends_at, max(0, granted - 1), count)
        return granted > 0, ends_at


def same_window(ends_at: float, other_ends_at: float, expiry: float) -> bool:
    """Whether two ends told for a key's window are the same window's.

    A storage that counts down a window's time to live (Redis) tells its end a little
    differently at every hit; a key's next window starts when its last one ended, so the
    ends of two of its windows are at least `expiry` apart.
    """
    return abs(ends_at - other_ends_at) < expiry / 2


def _take(storage: Storage, key: str, expiry: int, amount: int) -> tuple[int, float]:
    """Add `amount` hits to the shared count: the count after them, and when its window ends,
    in one write where the storage allows (the database, Redis)."""
    if incr_window := getattr(storage, "incr_window", None):
        return incr_window(key, expiry, amount)
    if isinstance(storage, RedisStorage):
        return _redis_incr_window(storage, key, expiry, amount)
    count = storage.incr(key, expiry, amount=amount)
    return count, storage.get_expiry(key)


# One round trip: the count after the hits, and the window's time to live in milliseconds
# (the `limits` library's own incr then ttl takes two, in whole seconds, and a window that
# ends between them reads as ended).
_REDIS_INCR_WINDOW = """
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
"""
_redis_scripts: WeakKeyDictionary[RedisStorage, Any] = WeakKeyDictionary()


def _redis_incr_window(
    storage: RedisStorage, key: str, expiry: int, amount: int
) -> tuple[int, float]:
    script = _redis_scripts.get(storage)
    if script is None:
        script = _redis_scripts[storage] = storage.get_connection().register_script(
            _REDIS_INCR_WINDOW
        )
    count, ttl_ms = script([storage.prefixed_key(key)], [expiry * 1000, amount])
    return int(count), time.time() + int(ttl_ms) / 1000
