"""Settings, read from environment variables, with the test settings beside them."""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

INSTANCE_PATH = Path(
    os.environ.get("INSTANCE_PATH", Path(__file__).resolve().parent.parent / "instance")
)


def instance_secret(path: Path, make: Callable[[], str]) -> str:
    """A secret kept in a file of the instance folder (mode 0600), made once.

    The file appears whole or not at all (written aside, then linked into place), so
    processes starting together all read the same complete secret.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
        with os.fdopen(fd, "w") as handle:
            handle.write(make())
        try:
            os.link(scratch, path)
        except FileExistsError:  # another process made it first: theirs stands
            pass
        finally:
            os.unlink(scratch)
    return path.read_text().strip()


def _secret_key(instance: Path) -> str:
    """SECRET_KEY, else a key generated once into the instance folder (never committed)."""
    if key := os.environ.get("SECRET_KEY"):
        return key
    return instance_secret(instance / "secret_key", lambda: secrets.token_hex(32))


def database_url(url: str | None) -> str:
    """Normalise DATABASE_URL; SQLite in the instance folder when unset."""
    if not url:
        return f"sqlite:///{INSTANCE_PATH / 'service.db'}"
    if url.startswith(("postgres://", "postgresql://")):
        # Bare URLs name no driver; psycopg 3 is the one we ship.
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


# Settings of every PostgreSQL session: these short queries gain nothing from JIT
# compilation, which costs milliseconds whenever the planner's estimate crosses
# jit_above_cost (a search over a large campaign), nor from parallel workers: estimated
# from the values of every key at once, a count of a handful of a search's items can look
# like half a million rows, and starting workers for it costs ten times the count itself.
# A transaction left idle by a stuck request must not hold its locks for long.
POSTGRESQL_OPTIONS = (
    "-c jit=off -c max_parallel_workers_per_gather=0 -c idle_in_transaction_session_timeout=60000"
)


POSTGRESQL_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 60,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}


def engine_options(url: str, env: Mapping[str, str]) -> dict[str, Any]:
    """The engine's pool, sized for the threads that share it, and PostgreSQL's settings.

    Each of a web worker's threads holds at most one pooled connection at a time, plus a
    short one of its own for a rate-limit count or a session stamp (app/db/side_transactions.py). A
    PostgreSQL connection the server closed is found at checkout (app/db/pg_connections.py).
    """
    threads = int(env.get("GUNICORN_THREADS", 16))
    options: dict[str, Any] = {
        "pool_size": int(env.get("DB_POOL_SIZE", threads)),
        "max_overflow": int(env.get("DB_MAX_OVERFLOW", threads)),
    }
    if url.startswith("postgresql"):
        # The service's level, whatever the server's default: each statement reads what
        # was committed when it began (`autocommit_reads`, app/db/transactions.py), and an insert
        # that meets a concurrent one's row can update it instead.
        options["isolation_level"] = "READ COMMITTED"
        options["connect_args"] = {
            "options": env.get("PG_OPTIONS", POSTGRESQL_OPTIONS),
            # A peer gone without a word (a failover, a NAT that forgot the connection) is
            # found by the kernel within a minute and a half of silence.
            **POSTGRESQL_KEEPALIVES,
        }
    return options


def rate_limit_storage(env: Mapping[str, str]) -> str:
    """Where rate-limit counters live, shared by every worker and host: RATELIMIT_STORAGE_URI
    when set, else Redis at REDIS_URL when set, else the app's own database."""
    return env.get("RATELIMIT_STORAGE_URI") or env.get("REDIS_URL") or "database://"


def redis_timeout(env: Mapping[str, str]) -> float:
    """Seconds a Redis connection may take to open, or a command to answer: a Redis gone
    silent (a host down, a partition) holds a request no longer than this."""
    return float(env.get("REDIS_TIMEOUT_SECONDS", 2))


def rate_limit_storage_options(uri: str, env: Mapping[str, str]) -> dict[str, Any]:
    """Options of the rate-limit storage: Redis's timeouts (else the system's, minutes)."""
    if not uri.startswith(("redis://", "rediss://", "redis+unix://")):
        return {}
    timeout = redis_timeout(env)
    return {"socket_connect_timeout": timeout, "socket_timeout": timeout}


def live_streams_max(env: Mapping[str, str]) -> int:
    """How many live streams (server-sent events of the wallboard, the Agents page and the
    Progress panel) one gunicorn worker serves at once; each holds one of its threads."""
    return int(env.get("LIVE_STREAMS_MAX", 500))


def live_streams_per_tenant(env: Mapping[str, str]) -> int:
    """How many of a worker's live streams one tenant's viewers (its supervisors' pages and
    its agents' desks) may hold: half of LIVE_STREAMS_MAX by default, so that one tenant
    never takes them all from the others."""
    return int(env.get("LIVE_STREAMS_PER_TENANT", max(1, live_streams_max(env) // 2)))


def worker_settings(env: Mapping[str, str]) -> dict[str, Any]:
    """The background worker's queue: SQLite in the instance folder, or Redis at REDIS_URL."""
    return {
        "REDIS_URL": env.get("REDIS_URL") or None,
        "WORKER_DB": env.get("WORKER_DB") or None,  # default: instance/worker.db
        "WORKER_QUEUE_NAME": env.get("WORKER_QUEUE_NAME", "preview-service"),
        "WORKER_IMMEDIATE": env.get("WORKER_IMMEDIATE", "") == "1",
        "WORKER_CONCURRENCY": int(env.get("WORKER_CONCURRENCY", 2)),
        "WORKER_TICK_SECONDS": float(env.get("WORKER_TICK_SECONDS", 2)),
        # How often the worker asks the contact centre how the calls its contact flow
        # placed went (connected, ended and the result).
        "CALL_FOLLOW_SECONDS": float(env.get("CALL_FOLLOW_SECONDS", 5)),
        "WORKER_LEASE_SECONDS": float(env.get("WORKER_LEASE_SECONDS", 60)),
        # Tasks a bulk job changes per transaction (and per commit of its progress).
        "BULK_BATCH": int(env.get("BULK_BATCH", 1000)),
    }


_HASH_METHOD = re.compile(r"scrypt(:\d+:\d+:\d+)?|pbkdf2(:sha(256|512)(:\d+)?)?")


def webhook_allow_networks(env: Mapping[str, str], name: str = "WEBHOOK_ALLOW_NETWORKS") -> str:
    """OUTBOUND_ALLOW_NETWORKS (and WEBHOOK_ALLOW_NETWORKS, its older name for webhooks):
    networks (CIDR, comma-separated) the service may reach although not public; none by
    default. A bad one stops the start, naming it."""
    text = env.get(name, "")
    for item in filter(None, (part.strip() for part in text.split(","))):
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"{name}: {item!r} is not a network such as 10.0.0.0/8") from None
    return text


def password_hash_method(env: Mapping[str, str]) -> str:
    """How passwords are hashed, in werkzeug's notation: `scrypt` (its default cost),
    `scrypt:N:r:p`, or `pbkdf2:sha256:ITERATIONS`; anything else stops the app at start."""
    method = env.get("PASSWORD_HASH_METHOD", "scrypt")
    if not _HASH_METHOD.fullmatch(method):
        raise ValueError(
            f"PASSWORD_HASH_METHOD {method!r}: use scrypt, scrypt:N:r:p or pbkdf2:sha256:ITERATIONS"
        )
    return method


def defaults() -> dict[str, Any]:
    """Every setting but the secret key and the database, from the environment."""
    env = os.environ
    return {
        "PLATFORM_CODE": env.get("PLATFORM_CODE", "AWS Connect"),
        "KEY_GRACE_SECONDS": int(env.get("KEY_GRACE_SECONDS", 2 * 3600)),
        "SQLITE_BUSY_TIMEOUT_MS": int(env.get("SQLITE_BUSY_TIMEOUT_MS", 15000)),
        "SQLITE_CACHE_KIB": int(env.get("SQLITE_CACHE_KIB", 65536)),
        "SQLITE_MMAP_MIB": int(env.get("SQLITE_MMAP_MIB", 1024)),
        "DB_PING_IDLE_SECONDS": float(env.get("DB_PING_IDLE_SECONDS", 30)),
        "MAX_CONTENT_LENGTH": int(env.get("MAX_CONTENT_LENGTH", 2 * 1024 * 1024)),
        "SEARCH_MAX_RECORDS": int(env.get("SEARCH_MAX_RECORDS", 10000)),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": env.get("SESSION_COOKIE_SECURE", "") == "1",
        "REMEMBER_COOKIE_HTTPONLY": True,
        "REMEMBER_COOKIE_SAMESITE": "Lax",
        "LOGIN_RATE_LIMIT": env.get("LOGIN_RATE_LIMIT", "10 per minute;50 per hour"),
        "ACCOUNT_LOGIN_LIMIT": env.get("ACCOUNT_LOGIN_LIMIT", "10 per 15 minutes"),
        "PASSWORD_HASH_METHOD": password_hash_method(env),
        "API_RATE_LIMIT": env.get("API_RATE_LIMIT", "6000 per minute"),
        "RATELIMIT_STORAGE_URI": rate_limit_storage(env),
        "RATELIMIT_STORAGE_OPTIONS": rate_limit_storage_options(rate_limit_storage(env), env),
        # The storage unreachable: the pages' limits count in each process's memory, and
        # the shared count is tried again (with backoff) until it answers.
        "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
        "REDIS_TIMEOUT_SECONDS": redis_timeout(env),
        "SESSION_IDLE_MINUTES": int(env.get("SESSION_IDLE_MINUTES", 30)),
        "SESSION_MAX_HOURS": int(env.get("SESSION_MAX_HOURS", 12)),
        "RATELIMIT_HEADERS_ENABLED": True,
        "PAGE_SIZE": int(env.get("PAGE_SIZE", 50)),
        # A campaign of this many tasks or more shows Progress counts taken at most
        # PROGRESS_SNAPSHOT_SECONDS ago (counted again in the background, one process at
        # a time); a smaller one is counted exactly at every request.
        "PROGRESS_EXACT_TASKS": int(env.get("PROGRESS_EXACT_TASKS", 50_000)),
        "PROGRESS_SNAPSHOT_SECONDS": float(env.get("PROGRESS_SNAPSHOT_SECONDS", 30)),
        # The recount runs in a thread beside the request (off: in the request, to its end).
        "PROGRESS_RECOUNT_THREAD": True,
        # Live parts: streams a process serves at most (beyond, pages poll), and how long
        # one lasts before the browser connects again (and is authorized again).
        "LIVE_STREAMS_MAX": live_streams_max(env),
        # And at most this many of one signed-in session (a few tabs), of one tenant.
        "LIVE_STREAMS_PER_SESSION": int(env.get("LIVE_STREAMS_PER_SESSION", 6)),
        "LIVE_STREAMS_PER_TENANT": live_streams_per_tenant(env),
        "LIVE_STREAM_SECONDS": float(env.get("LIVE_STREAM_SECONDS", 300)),
        "TRUST_PROXY": env.get("TRUST_PROXY", "") == "1",
        "INTAKE_DROP_FOLDER": env.get("INTAKE_DROP_FOLDER"),
        "INTAKE_MAX_UPLOAD_BYTES": int(env.get("INTAKE_MAX_UPLOAD_BYTES", 512 * 1024 * 1024)),
        **worker_settings(env),
        "WEBHOOK_DISABLE_AFTER_DAYS": float(env.get("WEBHOOK_DISABLE_AFTER_DAYS", 5)),
        "WEBHOOK_CONNECT_TIMEOUT": float(env.get("WEBHOOK_CONNECT_TIMEOUT", 5)),
        "WEBHOOK_READ_TIMEOUT": float(env.get("WEBHOOK_READ_TIMEOUT", 15)),
        "WEBHOOK_LEASE_SECONDS": int(env.get("WEBHOOK_LEASE_SECONDS", 60)),
        "WEBHOOK_BATCH": int(env.get("WEBHOOK_BATCH", 50)),
        # Fairness: a round takes every waiting endpoint's oldest delivery before anyone's
        # second, at most this many of one endpoint; endpoints are sent to side by side on
        # this many connections, and a lane stops taking its next delivery once the round
        # is this old (what is left goes in the next round).
        "WEBHOOK_PER_ENDPOINT": int(env.get("WEBHOOK_PER_ENDPOINT", 50)),
        "WEBHOOK_CONCURRENCY": int(env.get("WEBHOOK_CONCURRENCY", 8)),
        "WEBHOOK_LANE_SECONDS": float(env.get("WEBHOOK_LANE_SECONDS", 2)),
        # Not public, but allowed as webhook receivers (e.g. "10.20.0.0/16"): none by default.
        "WEBHOOK_ALLOW_NETWORKS": webhook_allow_networks(env),
        # Not public, but allowed for every connection the service makes on a tenant's
        # behalf (e.g. "10.20.0.0/16"): none by default.
        "OUTBOUND_ALLOW_NETWORKS": webhook_allow_networks(env, "OUTBOUND_ALLOW_NETWORKS"),
        # Seconds a fetch on a tenant's behalf (a sign-in provider's metadata, discovery,
        # keys, token, user info) waits for its answer; the connection is taken within 3.
        "OUTBOUND_TIMEOUT_SECONDS": float(env.get("OUTBOUND_TIMEOUT_SECONDS", 5)),
        # Audit records older than this are pruned; 0 keeps them forever.
        "AUDIT_RETENTION_DAYS": int(env.get("AUDIT_RETENTION_DAYS", 365)),
        # The desk: a desk silent this long counts as offline; a delivered task untouched
        # this long returns to the queue; a preferred agent's hold lasts this long.
        "AGENT_IDLE_SECONDS": int(env.get("AGENT_IDLE_SECONDS", 120)),
        "OFFER_TIMEOUT_SECONDS": int(env.get("OFFER_TIMEOUT_SECONDS", 600)),
        # The desk warns this long before either lapse (at most half the shorter timeout).
        "DESK_WARN_SECONDS": int(env.get("DESK_WARN_SECONDS", 60)),
        "PREFERRED_AGENT_HOLD_SECONDS": int(env.get("PREFERRED_AGENT_HOLD_SECONDS", 1800)),
        "CALLBACK_HOLD_MINUTES": int(env.get("CALLBACK_HOLD_MINUTES", 30)),
        # How long Amazon Connect rings a customer on a call its contact flow places (15-60).
        "CONNECT_RING_TIMEOUT_SECONDS": min(
            60, max(15, int(env.get("CONNECT_RING_TIMEOUT_SECONDS", 30)))
        ),
        # Where agents reach the service: the base of the desk invitation links.
        "PUBLIC_BASE_URL": env.get("PUBLIC_BASE_URL", "http://localhost:9443"),
    }


def from_environment() -> dict[str, Any]:
    """Production settings."""
    url = database_url(os.environ.get("DATABASE_URL"))
    return {
        **defaults(),
        "SECRET_KEY": _secret_key(INSTANCE_PATH),
        "SQLALCHEMY_DATABASE_URI": url,
        "SQLALCHEMY_ENGINE_OPTIONS": engine_options(url, os.environ),
    }


def test_settings(database_uri: str, **overrides: Any) -> dict[str, Any]:
    """Settings for the test suite: a given database, a fixed key, CSRF off unless asked for."""
    return {
        **defaults(),
        "TESTING": True,
        "SECRET_KEY": "test-secret-key",
        "SQLALCHEMY_DATABASE_URI": database_url(database_uri),
        "SQLALCHEMY_ENGINE_OPTIONS": engine_options(database_url(database_uri), os.environ),
        "WTF_CSRF_ENABLED": False,
        "RATELIMIT_ENABLED": False,
        "WORKER_IMMEDIATE": True,  # jobs run in the caller, to their end, unless a test asks
        "PROGRESS_RECOUNT_THREAD": False,  # no thread outlives the test that started it
        # A test's passwords need no protection from guessing: one round, not scrypt's cost.
        "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1",
        **overrides,
    }
