"""Who calls the tenant's SCIM endpoints, and how an answer or a refusal is sent.

Every request carries `Authorization: Bearer <token>`, the tenant's SCIM token (made on
the Sign-in page or by `flask --app wsgi scim token`; stored hashed, compared in constant
time, rotated with a grace period like API keys). No token, a wrong one, an API key or
another tenant's token is 401 with a SCIM error, the same answer whichever it is.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, g, request
from pydantic import ValidationError
from scim2_models import Context, Error, PreconditionFailedException, SCIMException, ScimPolicy
from werkzeug.exceptions import HTTPException

from app.db.transactions import in_one_transaction
from app.extensions import db
from app.models import Tenant
from app.services.actors import Actor
from app.services.contact_centre import InstanceError
from app.services.errors import Conflict, InvalidInput, NotFound, ServiceError
from app.services.people.users import NotSupported
from app.services.tenants import api_keys

SCIM_JSON = "application/scim+json"
# What the identity providers send: Entra's `Remove` of a member by value, a value filter
# that matches nothing yet on an add (it makes the entry), attributes of schemas not kept.
POLICY = ScimPolicy(
    unknown=ScimPolicy.Unknown.ignore,
    remove_value_as_filter=ScimPolicy.RemoveValue.apply,
    unmatched_path_filter=ScimPolicy.UnmatchedPathFilter.create,
)
bp = Blueprint("scim", __name__, url_prefix="/scim/v2/<company>/<environment>")


def tenant() -> Tenant:
    return g.scim_tenant


def actor() -> Actor:
    return Actor.identity_provider(g.scim_token_id)


def base_url() -> str:
    """The tenant's SCIM base, as the request reached it."""
    return request.url_root.rstrip("/") + bp.url_prefix.replace(
        "<company>", g.scim_company
    ).replace("<environment>", g.scim_environment)


def answer(body: dict[str, Any] | None, status: int = 200, headers: dict | None = None):
    if body is None:
        return Response(status=status, headers=headers or {})
    text = json.dumps(body, separators=(",", ":"), default=str)
    return Response(text, status=status, mimetype=SCIM_JSON, headers=headers or {})


def error(status: int, detail: str, scim_type: str | None = None):
    body = Error(status=status, scim_type=scim_type, detail=detail)
    return answer(body.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE), status)


@bp.url_value_preprocessor
def _tenant_of_path(_endpoint, values):
    g.scim_company = values.pop("company")
    g.scim_environment = values.pop("environment")


@bp.url_defaults
def _tenant_in_urls(_endpoint, values):
    """Within a SCIM request, its own tenant's URLs need no company and environment."""
    if "scim_company" in g:
        values.setdefault("company", g.scim_company)
        values.setdefault("environment", g.scim_environment)


@bp.before_request
def _authenticate():
    presented = request.headers.get("Authorization", "")
    scheme, _, token = presented.partition(" ")
    platform = current_app.config["PLATFORM_CODE"]
    owner = None
    if scheme.lower() == "bearer" and token.strip():
        owner = api_keys.identify(
            platform, g.scim_company, g.scim_environment, token.strip(), api_keys.SCIM
        )
    if owner is None:
        response = error(401, "A valid SCIM bearer token of this tenant is required.")
        response.headers["WWW-Authenticate"] = 'Bearer realm="SCIM"'
        return response
    g.scim_tenant = db.session.get(Tenant, owner.tenant_id)
    g.scim_token_id = owner.key_id
    return None


def body() -> dict[str, Any]:
    """The request's JSON object (`application/scim+json` or `application/json`)."""
    if request.mimetype not in (SCIM_JSON, "application/json"):
        raise _Refusal(415, "Send application/scim+json or application/json.", None)
    found = request.get_json(silent=True, force=True)
    if not isinstance(found, dict):
        raise _Refusal(400, "The body is not a JSON object.", "invalidSyntax")
    return found


class _Refusal(Exception):
    def __init__(self, status: int, detail: str, scim_type: str | None):
        self.status, self.detail, self.scim_type = status, detail, scim_type


# A service's refusal, as SCIM says it: the HTTP status and its scimType.
_STATUS_OF: tuple[tuple[type[ServiceError], int, str | None], ...] = (
    (NotSupported, 403, None),
    (Conflict, 409, "uniqueness"),
    (NotFound, 404, None),
    (InvalidInput, 400, "invalidValue"),
    (InstanceError, 502, None),
)


def refused(refusal: ServiceError):
    """A service's refusal as a SCIM error (its message is written for people)."""
    for kind, status, scim_type in _STATUS_OF:
        if isinstance(refusal, kind):
            return error(status, refusal.message, scim_type)
    return error(400, refusal.message, "invalidValue")


@bp.errorhandler(_Refusal)
def _refusal(found: _Refusal):
    return error(found.status, found.detail, found.scim_type)


@bp.errorhandler(SCIMException)
def _scim_refusal(found: SCIMException):
    err = found.to_error()
    return answer(err.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE), int(err.status))


@bp.errorhandler(ValidationError)
def _invalid(found: ValidationError):
    first = Error.from_validation_errors(found)[0]
    return answer(first.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE), int(first.status))


@bp.errorhandler(ServiceError)
def _service_refusal(found: ServiceError):
    db.session.rollback()
    return refused(found)


@bp.errorhandler(HTTPException)
def _http(found: HTTPException):
    return error(found.code or 500, found.description or found.name)


def tags(header: str | None) -> set[str]:
    """The entity tags of an If-Match or If-None-Match header."""
    return {tag.strip() for tag in (header or "").split(",") if tag.strip()}


def same_version(version: str) -> None:
    """Refuse (412) a change whose If-Match names another version than the resource's."""
    wanted = request.headers.get("If-Match")
    if wanted and wanted.strip() != "*" and version not in tags(wanted):
        raise PreconditionFailedException(detail=f"The resource is at version {version}.")


def unchanged_since(version: str) -> bool:
    """Whether If-None-Match names the resource's version (a read answers 304)."""
    return version in tags(request.headers.get("If-None-Match"))


def run(action):
    """The change in one transaction: (its result, None), or (None, the SCIM error of a
    service's refusal); a SCIM refusal raised inside rolls back and is answered as such."""
    done, refusal = in_one_transaction(db.session, action, refusals=ServiceError)
    if refusal is not None:
        return None, refused(refusal)
    return done, None
