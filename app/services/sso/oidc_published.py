"""What an OpenID provider publishes: its discovery document and its signing keys, each
kept per process for an hour. A token signed with a key id the kept keys lack fetches them
once more (the provider rotated its keys), at most once a minute. Every call has short
timeouts: a provider that does not answer never holds a worker."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import requests
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from app.services.sso.identity import SignInRefused

TIMEOUT = (3, 5)  # seconds: connect, read
CACHE_SECONDS = 3600
# Tokens with made-up key ids cannot turn the service into a flood of requests to the provider.
REFETCH_SECONDS = 60


class ProviderUnavailable(SignInRefused):
    """The identity provider did not answer, or not with what the protocol asks for."""


@dataclass
class _Kept:
    value: Any
    until: float
    fetched: float = 0.0


_discovered: dict[str, _Kept] = {}
_key_sets: dict[str, _Kept] = {}


def forget_cached() -> None:
    """Drop every kept discovery document and key set (a changed provider, or tests)."""
    _discovered.clear()
    _key_sets.clear()


def get_json(url: str) -> dict:
    try:
        answer = requests.get(url, timeout=TIMEOUT, headers={"Accept": "application/json"})
        answer.raise_for_status()
        document = answer.json()
    except (requests.RequestException, ValueError) as failure:
        raise ProviderUnavailable(
            "Your identity provider did not answer. Try again in a moment."
        ) from failure
    if not isinstance(document, dict):
        raise ProviderUnavailable("Your identity provider's answer was not understood.")
    return document


def discovery_url(issuer: str) -> str:
    return issuer.rstrip("/") + "/.well-known/openid-configuration"


def discovery(issuer: str, *, fresh: bool = False) -> dict:
    """The issuer's discovery document, kept for an hour (`fresh`: fetched now)."""
    kept = _discovered.get(issuer)
    if kept is None or fresh or kept.until < time.monotonic():
        document = get_json(discovery_url(issuer))
        if document.get("issuer") != issuer:
            raise ProviderUnavailable("Your identity provider names another issuer than its own.")
        kept = _discovered[issuer] = _Kept(document, time.monotonic() + CACHE_SECONDS)
    return kept.value


def _fetched_keys(issuer: str, *, fresh: bool = False) -> KeySet:
    kept = _key_sets.get(issuer)
    if kept is None or fresh or kept.until < time.monotonic():
        jwks_uri = discovery(issuer).get("jwks_uri")
        if not jwks_uri:
            raise ProviderUnavailable("Your identity provider publishes no signing keys.")
        try:
            keys = KeySet.import_key_set(get_json(jwks_uri))
        except (JoseError, ValueError, TypeError, KeyError) as failure:
            raise ProviderUnavailable("Your identity provider's keys are unreadable.") from failure
        now = time.monotonic()
        kept = _key_sets[issuer] = _Kept(keys, now + CACHE_SECONDS, now)
    return kept.value


def _rotated(issuer: str) -> bool:
    """Whether the kept key set is old enough to be fetched again for an unknown key id."""
    kept = _key_sets.get(issuer)
    return kept is None or kept.fetched + REFETCH_SECONDS < time.monotonic()


def key_set(issuer: str, kid: str | None) -> KeySet:
    """The provider's signing keys, fetched again when they lack `kid` (the provider
    rotated its keys) unless they were fetched less than `REFETCH_SECONDS` ago."""
    keys = _fetched_keys(issuer)
    if kid is not None and not any(k.kid == kid for k in keys.keys) and _rotated(issuer):
        keys = _fetched_keys(issuer, fresh=True)
    return keys
