"""Rate-limit counters in the app's own database, shared by every worker and host.

`database://` is a storage of the `limits` library (which Flask-Limiter counts with) for its
fixed-window strategy. Each hit is one atomic upsert (INSERT … ON CONFLICT DO UPDATE …
RETURNING, on SQLite 3.35+ and PostgreSQL alike) in a short transaction of its own, so it
counts whether the request's transaction commits or not, and two workers hitting the same
key at once both count. The storage knows nothing of what it limits: any key works.
Importing this module registers the scheme.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from limits.storage import Storage
from sqlalchemy import case, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from app.db.side_transactions import own_transaction
from app.extensions import db
from app.models import RateLimitCounter

_TABLE = RateLimitCounter.__table__


_INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


# Counters whose window ended are deleted at most this often, by whichever hit comes next.
PRUNE_EVERY_SECONDS = 60.0


class DatabaseStorage(Storage):
    """Fixed-window counters in the `rate_limits` table of the current app's database."""

    STORAGE_SCHEME = ["database"]

    def __init__(
        self,
        uri: str | None = None,
        wrap_exceptions: bool = False,
        clock: Callable[[], float] = time.time,
        **options: float | str | bool,
    ) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.clock = clock
        self._pruned_at = float("-inf")

    @property
    def base_exceptions(self) -> type[Exception]:
        return SQLAlchemyError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        """Add `amount` to the key's count, starting a new window of `expiry` seconds when
        the last one ended; the count after this hit."""
        return self.incr_window(key, expiry, amount)[0]

    def incr_window(self, key: str, expiry: float, amount: int = 1) -> tuple[int, float]:
        """`incr`, and when the window counted in ends (epoch seconds): one statement."""
        now = self.clock()
        table = _TABLE
        insert = _INSERTS[db.engine.dialect.name](table).values(
            key=key, count=amount, expires_at=now + expiry
        )
        ended = table.c.expires_at <= now  # the stored row's own values, before this hit
        upsert = insert.on_conflict_do_update(
            index_elements=[table.c.key],
            set_={
                "count": case((ended, amount), else_=table.c.count + amount),
                "expires_at": case((ended, now + expiry), else_=table.c.expires_at),
            },
        ).returning(table.c.count, table.c.expires_at)
        with own_transaction() as connection:
            if connection.dialect.name == "postgresql":
                # A count lost to a server crash is harmless; a flush to disk on every lease
                # is not (it is most of the cost of counting).
                connection.exec_driver_sql("SET LOCAL synchronous_commit = off")
            count, ends_at = connection.execute(upsert).one()
        self._prune(now)
        return count, ends_at

    def get(self, key: str) -> int:
        """The key's count in its current window (0 when it has none)."""
        with own_transaction(write=False) as connection:
            count = connection.scalar(
                select(_TABLE.c.count).where(
                    _TABLE.c.key == key, _TABLE.c.expires_at > self.clock()
                )
            )
        return count or 0

    def get_expiry(self, key: str) -> float:
        """When the key's current window ends (epoch seconds; now when it has none)."""
        now = self.clock()
        with own_transaction(write=False) as connection:
            expires_at = connection.scalar(
                select(_TABLE.c.expires_at).where(_TABLE.c.key == key, _TABLE.c.expires_at > now)
            )
        return expires_at if expires_at is not None else now

    def check(self) -> bool:
        try:
            with own_transaction(write=False) as connection:
                connection.scalar(select(func.count()).select_from(_TABLE).limit(1))
        except SQLAlchemyError:
            return False
        return True

    def reset(self) -> int | None:
        """Forget every counter; how many there were."""
        with own_transaction() as connection:
            return connection.execute(delete(_TABLE)).rowcount

    def clear(self, key: str) -> None:
        with own_transaction() as connection:
            connection.execute(delete(_TABLE).where(_TABLE.c.key == key))

    def _prune(self, now: float) -> None:
        # Each key's row is reused window after window; keys not hit again (a client gone)
        # would stay for ever without this.
        if now - self._pruned_at < PRUNE_EVERY_SECONDS:
            return
        self._pruned_at = now
        with own_transaction() as connection:
            connection.execute(delete(_TABLE).where(_TABLE.c.expires_at <= now))
