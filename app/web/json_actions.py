"""The skeleton of the JSON doors that answer HTTP 200 with `result` and `message` (the User
Provisioning API, the Desk API): authenticate, read the body, check the tenant it names,
act in the request's transaction, and answer the outcome."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from flask import jsonify
from pydantic import StringConstraints, ValidationError

from app.db.transactions import in_one_transaction
from app.extensions import db
from app.services.errors import ServiceError
from app.web.api_keys import Caller, authenticate
from app.web.bodies import json_object, receive
from app.web.schemas import Strict, describe

SUCCESS = "SUCCESS"


class TenantRef(Strict):
    platform: Annotated[str, StringConstraints(min_length=1, max_length=255)]
    companyCode: Annotated[str, StringConstraints(min_length=1, max_length=255)]
    environment: Annotated[str, StringConstraints(min_length=1, max_length=255)]


class RefusedTenant(Exception):
    def __init__(self, result: str, message: str) -> None:
        super().__init__(message)
        self.result, self.message = result, message


def _check_tenant(caller: Caller, body: dict[str, Any]) -> None:
    """INVALID_TENANT for a missing or malformed `tenant`, UNAUTHORIZED for another tenant."""
    raw = body.get("tenant")
    if not isinstance(raw, dict):
        shape = "an object with platform, companyCode and environment strings"
        problem = "is required:" if raw is None else "must be"
        raise RefusedTenant("INVALID_TENANT", f"tenant {problem} {shape}")
    try:
        tenant = TenantRef.model_validate(raw)
    except ValidationError as error:
        raise RefusedTenant("INVALID_TENANT", describe(error, within="tenant")) from None
    if problem := caller.mismatch(tenant.platform, tenant.companyCode, tenant.environment):
        raise RefusedTenant("UNAUTHORIZED", "tenant." + problem)


def json_action(
    act: Callable[[Caller, dict[str, Any]], dict],
    results: tuple[tuple[type[ServiceError], str], ...],
    otherwise: str,
    empty: dict[str, Any],
    refused_fields: Callable[[ServiceError], dict[str, Any]] | None = None,
    said: Callable[[ServiceError], str] = lambda refused: refused.message,
):
    """Authenticate, check the body's tenant, then `act` on the body in the request's
    transaction; answer HTTP 200 with result/message (and `empty`'s fields when refused,
    with those `refused_fields` tells of the refusal): a refusal's result is that of the
    first of `results` it is, else `otherwise`, and its message what `said` makes of it
    (the APIs name its field by the spec's name)."""
    receive()
    caller = authenticate()
    body = json_object()

    def checked_act() -> dict:
        _check_tenant(caller, body)
        return act(caller, body)

    answer, refused = in_one_transaction(
        db.session, checked_act, refusals=(RefusedTenant, ValidationError, ServiceError)
    )
    if isinstance(refused, RefusedTenant):
        return jsonify({"result": refused.result, "message": refused.message, **empty})
    if isinstance(refused, ValidationError):
        return jsonify({"result": "INVALID_ARGUMENTS", "message": describe(refused), **empty})
    if refused is not None:
        result = next((name for kind, name in results if isinstance(refused, kind)), otherwise)
        told = refused_fields(refused) if refused_fields is not None else {}
        return jsonify({"result": result, "message": said(refused), **empty, **told})
    return jsonify({"result": SUCCESS, **answer})
