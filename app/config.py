"""Settings, read from environment variables, with the test settings beside them."""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Callable
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


def defaults() -> dict[str, Any]:
    """Every setting but the secret key and the database, from the environment."""
    env = os.environ
    return {
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
        "PLATFORM_CODE": env.get("PLATFORM_CODE", "AWS Connect"),
        "KEY_GRACE_SECONDS": int(env.get("KEY_GRACE_SECONDS", 2 * 3600)),
        "SQLITE_BUSY_TIMEOUT_MS": int(env.get("SQLITE_BUSY_TIMEOUT_MS", 15000)),
        "SQLITE_CACHE_KIB": int(env.get("SQLITE_CACHE_KIB", 65536)),
        "MAX_CONTENT_LENGTH": int(env.get("MAX_CONTENT_LENGTH", 2 * 1024 * 1024)),
        "SEARCH_MAX_RECORDS": int(env.get("SEARCH_MAX_RECORDS", 10000)),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": env.get("SESSION_COOKIE_SECURE", "") == "1",
        "REMEMBER_COOKIE_HTTPONLY": True,
        "REMEMBER_COOKIE_SAMESITE": "Lax",
        "LOGIN_RATE_LIMIT": env.get("LOGIN_RATE_LIMIT", "10 per minute;50 per hour"),
        "RATELIMIT_STORAGE_URI": env.get("RATELIMIT_STORAGE_URI", "memory://"),
        "RATELIMIT_HEADERS_ENABLED": True,
        "PAGE_SIZE": int(env.get("PAGE_SIZE", 50)),
        "TRUST_PROXY": env.get("TRUST_PROXY", "") == "1",
        "INTAKE_DROP_FOLDER": env.get("INTAKE_DROP_FOLDER"),
        "INTAKE_MAX_UPLOAD_BYTES": int(env.get("INTAKE_MAX_UPLOAD_BYTES", 512 * 1024 * 1024)),
    }


def from_environment() -> dict[str, Any]:
    """Production settings."""
    return {
        **defaults(),
        "SECRET_KEY": _secret_key(INSTANCE_PATH),
        "SQLALCHEMY_DATABASE_URI": database_url(os.environ.get("DATABASE_URL")),
    }


def test_settings(database_uri: str, **overrides: Any) -> dict[str, Any]:
    """Settings for the test suite: a given database, a fixed key, CSRF off unless asked for."""
    return {
        **defaults(),
        "TESTING": True,
        "SECRET_KEY": "test-secret-key",
        "SQLALCHEMY_DATABASE_URI": database_url(database_uri),
        "WTF_CSRF_ENABLED": False,
        "RATELIMIT_ENABLED": False,
        **overrides,
    }
