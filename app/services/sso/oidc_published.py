"""What an OpenID provider publishes: its discovery document and its signing keys, each
kept per process for an hour. A token signed with a key id the kept keys lack fetches them
once more (the provider rotated its keys), at most once a minute. Every fetch goes through
the outbound guard (`app/services/outbound/fetch.py`: public addresses only, the connection
pinned to the address checked, short timeouts), and every way one fails is the one
`ProviderSilent`: a provider that does not answer never holds a worker, and an address the
provider's document names tells nobody whether it is open."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from app.services.outbound import fetch
from app.services.sso.identity import SignInRefused

DOCUMENT_LIMIT = 1_000_000  # bytes: more is no provider's document
CACHE_SECONDS = 3600
# Tokens with made-up key ids cannot turn the service into a flood of requests to the provider.
REFETCH_SECONDS = 60


class ProviderUnavailable(SignInRefused):
    """The identity provider did not answer, or not with what the protocol asks for."""


class ProviderSilent(ProviderUnavailable):
    """Nothing usable came from the provider's address (refused, silent, an error, no JSON
    object): one message, whatever the reason (which goes to the log)."""

    def __init__(self) -> None:
        super().__init__("Your identity provider did not answer. Try again in a moment.")


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


def get_json(url: str, headers: Mapping[str, str] | None = None) -> dict:
    """The JSON object at `url`, through the outbound guard; ProviderSilent otherwise."""
    try:
        body = fetch.get(url, headers={"Accept": "application/json", **(headers or {})},
                         limit=DOCUMENT_LIMIT)  # fmt: skip
        document = json.loads(body)
    except (fetch.FetchFailed, ValueError):
        raise ProviderSilent() from None
    if not isinstance(document, dict):
        raise ProviderSilent()
    return document


def discovery_url(issuer: str) -> str:
    return issuer.rstrip("/") + "/.well-known/openid-configuration"


def discovery(issuer: str, *, fresh: bool = False) -> dict:
    """The issuer's discovery document, kept for an hour (`fresh`: fetched now)."""
    kept = _discovered.get(issuer)
    if kept is None or fresh or kept.until < time.monotonic():
        document = get_json(discovery_url(issuer))
        if not isinstance(document.get("issuer"), str):
            raise ProviderSilent()  # no discovery document at all
        if document["issuer"] != issuer:
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
        except (JoseError, ValueError, TypeError, KeyError):
            raise ProviderSilent() from None  # as unreadable as no answer
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
