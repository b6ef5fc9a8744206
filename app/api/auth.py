"""Header authentication shared by both APIs: the five X-sc- headers and the tenant's key."""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import current_app, request
from werkzeug.exceptions import Unauthorized

from app.models import Tenant
from app.models.tenants import AWS_REGION
from app.services import keys

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
    """The authenticated tenant and the identity its headers claimed."""

    tenant: Tenant
    platform: str
    company_code: str
    environment: str

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
    tenant = keys.authenticate(platform if known_platform else "", company, environment, key)
    # One message for an unknown tenant and a wrong key, so neither can be probed.
    if tenant is None:
        raise Unauthorized("The API key is not valid for this company and environment.")
    return Caller(tenant, platform, company, environment)
