"""Where the JSON APIs live: a request under one of these paths is answered in JSON, by its
headers alone (no cookie session), and counts its own rate limit."""

from __future__ import annotations

from flask import request

PREVIEW_PREFIX = "/service-previewcontact-service/"
USERS_PREFIX = "/service-admin/api/"
DESK_PREFIX = "/desk-api/"
REPORTS_PREFIX = "/reports-api/"
# The tenants' SCIM endpoints (app/scim/): JSON too, their errors in SCIM's shape.
SCIM_PREFIX = "/scim/v2/"
API_PREFIXES = (PREVIEW_PREFIX, USERS_PREFIX, DESK_PREFIX, REPORTS_PREFIX, SCIM_PREFIX)


def is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIXES)


def wants_json() -> bool:
    return is_api_path(request.path)
