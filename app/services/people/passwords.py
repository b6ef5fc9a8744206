"""Passwords of supervisors and agents: the rules a new one must follow, and its hash.

Passwords follow ASVS 2.1: at least 12 characters, any characters, no composition rules,
and refused when zxcvbn finds them among the passwords of its breach corpora (or a close
variant of one: l33t, reversed, a common word with digits, a keyboard walk, a repeat).
Hashes are made with the configured method (`PASSWORD_HASH_METHOD`, scrypt by default) and
checked in constant time; a sign-in for an unknown account is checked against a stand-in
hash of the same method, so that it costs as long as a wrong password."""

from __future__ import annotations

from functools import cache

from flask import current_app
from werkzeug.security import check_password_hash, generate_password_hash
from zxcvbn import zxcvbn

from app.services.errors import InvalidInput

MIN_PASSWORD = 12
MAX_PASSWORD = 1024
# zxcvbn's score 3 means at least 10^8 guesses; below it the password is a common or
# breached one or built from them.
MIN_SCORE = 3
# zxcvbn refuses longer input; its first 72 characters already decide a weak password.
_ZXCVBN_MAX = 72


def check_password(password: str) -> None:
    """Refuse a password that is too short, too long, or common or breached."""
    if len(password) < MIN_PASSWORD:
        raise InvalidInput(f"the password must be at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise InvalidInput(f"the password must be at most {MAX_PASSWORD} characters")
    verdict = zxcvbn(password[:_ZXCVBN_MAX])
    if verdict["score"] < MIN_SCORE:
        why = verdict["feedback"]["warning"]
        raise InvalidInput(
            "the password is a common or breached password, or too close to one"
            + (f" ({why.rstrip('.')})" if why else "")
            + ": choose another"
        )


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
