"""Password hashes of supervisors and agents: made with the configured method
(`PASSWORD_HASH_METHOD`, scrypt by default), checked in constant time, and a sign-in for an
unknown account checked against a stand-in hash of the same method, so that it costs as long
as a wrong password."""

from __future__ import annotations

from functools import cache

from flask import current_app
from werkzeug.security import check_password_hash, generate_password_hash


def _method() -> str:
    return current_app.config["PASSWORD_HASH_METHOD"]


def hash_password(password: str) -> str:
    return generate_password_hash(password, method=_method())


@cache
def _stand_in(method: str) -> str:
    return generate_password_hash("not a password of anyone", method=method)


def password_matches(stored: str | None, password: str) -> bool:
    """Whether `password` is the one `stored` was made from; with nothing stored (no such
    account, or no password yet) always False, after the same work as a wrong password."""
    valid = check_password_hash(stored or _stand_in(_method()), password)
    return bool(stored) and valid
