"""A JSON door's API-key authentication, shared by the JSON APIs and the Desk API: the five
X-sc- headers and the tenant's key, then the tenant's request rate."""

from __future__ import annotations

import dataclasses
import math
import re
import time
from dataclasses import dataclass
from functools import cache

from flask import current_app, request
from limits import RateLimitItem, parse_many
from werkzeug.exceptions import TooManyRequests, Unauthorized

from app.extensions import db, limiter
from app.models import Tenant
from app.models.tenants import AWS_REGION
from app.services.actors import Actor
from app.services.tenants import api_keys as keys
from app.web.rate_limit_failover import api_counts

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
    """The authenticated tenant (its id and region), the identity its headers claimed, and
    the key's id."""

    tenant_id: int
    region: str
    platform: str
    company_code: str
    environment: str
    key_id: int
    # Not functools.cached_property: before Python 3.12 it holds one lock for every caller
    # while it reads, and a thread holding SQLite's write lock could wait on that lock.
    _models: dict[str, Tenant] = dataclasses.field(default_factory=dict, repr=False, compare=False)

    @property
    def tenant(self) -> Tenant:
        """The tenant as a model, read once, when an action needs more of it than its id."""
        if "tenant" not in self._models:
            self._models["tenant"] = db.session.get(Tenant, self.tenant_id)
        return self._models["tenant"]

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
    """The caller's tenant, or 401 when a header is missing, malformed or the key is wrong;
    429 past the tenant's API_RATE_LIMIT."""
    platform, company, environment, region, key = (_header(name) for name in HEADERS)
    if not AWS_REGION.fullmatch(region):
        raise Unauthorized("The X-sc-secrets-region header is not a cloud region name.")
    # Another platform's name finds no tenant, with the same work as a wrong key.
    known_platform = platform == current_app.config["PLATFORM_CODE"]
    found = keys.identify(platform if known_platform else "", company, environment, key)
    # One message for an unknown tenant and a wrong key, so neither can be probed.
    if found is None:
        raise Unauthorized("The API key is not valid for this company and environment.")
    if limiter.enabled and (rule := current_app.config.get("API_RATE_LIMIT")):
        _count_request(found.tenant_id, rule)
    return Caller(found.tenant_id, found.region, platform, company, environment, found.key_id)


@cache
def _limits(rule: str) -> tuple[RateLimitItem, ...]:
    return tuple(parse_many(rule))


def _count_request(tenant_id: int, rule: str) -> None:
    """Count the request against API_RATE_LIMIT for its tenant (company and environment),
    from this process's lease of each limit's window (app/web/rate_limits.py): most requests
    write nothing. 429 with Retry-After past a limit.

    While the shared storage cannot be reached, the process counts by itself
    (app/web/rate_limit_failover.py): the API keeps answering.

    A lease is written on a connection of its own, so the request's connection is given
    back first: on SQLite the lease would otherwise wait on the request's write lock, and
    on any database every busy thread would hold one pooled connection waiting for a second.
    """
    counts, key = api_counts(current_app), str(tenant_id)
    for item in _limits(rule):
        within, ends_at = counts.hit(
            limiter.storage, item, "api", key, before_writing=db.session.rollback
        )
        if not within:
            raise TooManyRequests(
                f"The API requests of this company and environment are limited to {item}; "
                "retry after the seconds in the Retry-After header.",
                retry_after=max(1, math.ceil(ends_at - time.time())),
            )
