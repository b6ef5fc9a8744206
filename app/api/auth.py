"""Header authentication shared by both APIs: the five X-sc- headers and the tenant's key,
then the tenant's request rate."""

from __future__ import annotations

import math
import re
import time
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache

from flask import current_app, request
from limits import RateLimitItem, parse_many
from werkzeug.exceptions import TooManyRequests, Unauthorized

from app.extensions import db, limiter
from app.models import Tenant
from app.models.tenants import AWS_REGION
from app.services import keys
from app.services.actors import Actor
from app.storage import reading

HEADERS = (
    "X-sc-platform-code",
    "X-sc-company-code",
    "X-sc-company-environment",
    "X-sc-secrets-region",
    "X-sc-company-api-key",
)
_PRINTABLE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
MAX_HEADER = 256


@dataclass(frozen=True)
class Caller:
    """The authenticated tenant, the identity its headers claimed, and the key's id."""

    tenant: Tenant
    platform: str
    company_code: str
    environment: str
    key_id: int

    @property
    def actor(self) -> Actor:
        """Who acts in the trail: the tenant's key, by its id (never the key itself)."""
        return Actor.api_key(self.key_id)

    def mismatch(self, platform: str, company_code: str, environment: str) -> str | None:
        """Which identity field of a body differs from the authenticated headers, if any."""
        for field, sent, header, expected in (
            ("platform", platform, "X-sc-platform-code", self.platform),
            ("companyCode", company_code, "X-sc-company-code", self.company_code),
            ("environment", environment, "X-sc-company-environment", self.environment),
        ):
            if sent != expected:
                return f"{field} '{sent}' in the body does not match the {header} header"
        return None


def _header(name: str) -> str:
    value = request.headers.get(name)
    if value is None or value == "":
        raise Unauthorized(f"The {name} header is missing.")
    if len(value) > MAX_HEADER or not _PRINTABLE.fullmatch(value):
        raise Unauthorized(f"The {name} header is malformed.")
    return value


def authenticate() -> Caller:
    """The caller's tenant, or 401 when a header is missing, malformed or the key is wrong."""
    platform, company, environment, region, key = (_header(name) for name in HEADERS)
    if not AWS_REGION.fullmatch(region):
        raise Unauthorized("The X-sc-secrets-region header is not a cloud region name.")
    # Another platform's name finds no tenant, with the same work as a wrong key.
    known_platform = platform == current_app.config["PLATFORM_CODE"]
    rule = current_app.config.get("API_RATE_LIMIT") if limiter.enabled else None
    # The count is kept on a connection of its own (app/aside.py), so the key check gives
    # the request's connection back first: on SQLite the count would otherwise wait on the
    # request's write lock, and on any database every busy thread would hold one pooled
    # connection while waiting for a second.
    with reading(db.session) if rule else nullcontext():
        found = keys.identify(platform if known_platform else "", company, environment, key)
        # One message for an unknown tenant and a wrong key, so neither can be probed.
        if found is None:
            raise Unauthorized("The API key is not valid for this company and environment.")
        tenant, key_id = found
        tenant_id = tenant.id  # read now: on SQLite the tenant reloads after `reading`
    if rule:
        _count_request(tenant_id, rule)
    return Caller(tenant, platform, company, environment, key_id)


@cache
def _limits(rule: str) -> tuple[RateLimitItem, ...]:
    return tuple(parse_many(rule))


def _count_request(tenant_id: int, rule: str) -> None:
    """Count the request against API_RATE_LIMIT for its tenant (company and environment):
    one call to the limiter's storage per limit; 429 with Retry-After past it."""
    strategy, key = limiter.limiter, str(tenant_id)
    for item in _limits(rule):
        try:
            within = strategy.hit(item, "api", key)
        except Exception:  # the storage is down: serve, when RATELIMIT_SWALLOW_ERRORS says so
            if not current_app.config.get("RATELIMIT_SWALLOW_ERRORS"):
                raise
            current_app.logger.exception("The rate-limit storage failed; request not counted")
            return
        if not within:
            reset = strategy.get_window_stats(item, "api", key).reset_time
            raise TooManyRequests(
                f"The API requests of this company and environment are limited to {item}; "
                "retry after the seconds in the Retry-After header.",
                retry_after=max(1, math.ceil(reset - time.time())),
            )
