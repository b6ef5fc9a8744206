"""The User Provisioning API: add-user, query-existence and delete-user."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from flask import Blueprint, jsonify
from pydantic import ConfigDict, StringConstraints, ValidationError
from werkzeug.exceptions import Unauthorized

from app.db.transactions import read_only
from app.extensions import db
from app.services.actors import Actor
from app.services.contact_centre import InstanceError
from app.services.errors import Conflict, InvalidInput, NotFound, ServiceError
from app.services.people import users
from app.web.api_keys import Caller, authenticate
from app.web.bodies import json_object, receive
from app.web.schemas import Strict, describe, published

PREFIX = "/service-admin/api"

bp = Blueprint("users", __name__, url_prefix=PREFIX)

Text = Annotated[str, StringConstraints(max_length=320)]

SUCCESS = "SUCCESS"
RESULT_OF: tuple[tuple[type[ServiceError], str], ...] = (
    (users.NotSupported, "NOT_SUPPORTED"),
    (users.UserNotFound, "NOT_FOUND"),
    (Conflict, "ALREADY_EXISTS"),
    (InvalidInput, "INVALID_ARGUMENTS"),
    (NotFound, "INVALID_ARGUMENTS"),
    (InstanceError, "FAIL"),
)


class TenantRef(Strict):
    platform: Annotated[str, StringConstraints(min_length=1, max_length=255)]
    companyCode: Annotated[str, StringConstraints(min_length=1, max_length=255)]
    environment: Annotated[str, StringConstraints(min_length=1, max_length=255)]


# What the service checks itself, stated in the published document (app/api/openapi.py).
NOT_BLANK = {"minLength": 1}
EMAIL = {"format": "email"}


class UserRequest(Strict):
    model_config = ConfigDict(json_schema_extra=published(loginUserId=NOT_BLANK))

    loginUserId: Text


class AddUserRequest(UserRequest):
    model_config = ConfigDict(
        json_schema_extra=published(
            **dict.fromkeys(
                ("loginUserId", "firstName", "lastName", "userTemplateName"), NOT_BLANK
            ),
            primaryEmailAddr=EMAIL,
            secondaryEmailAddr=EMAIL,
        )
    )

    firstName: Text
    lastName: Text
    primaryEmailAddr: Text | None = None
    secondaryEmailAddr: Text | None = None
    userTemplateName: Text
    createInAmazonConnect: bool = False

    def new_user(self) -> users.NewUser:
        return users.NewUser(
            login_user_id=self.loginUserId,
            first_name=self.firstName,
            last_name=self.lastName,
            user_template_name=self.userTemplateName,
            primary_email=self.primaryEmailAddr,
            secondary_email=self.secondaryEmailAddr,
            create_in_instance=self.createInAmazonConnect,
        )


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
):
    """Authenticate, check the body's tenant, then `act` on the body in the request's
    transaction; answer HTTP 200 with result/message (and `empty`'s fields when refused):
    a refusal's result is that of the first of `results` it is, else `otherwise`.
    The skeleton of the JSON doors that answer this way (this API, the Desk API)."""
    receive()
    caller = authenticate()
    body = json_object()
    try:
        _check_tenant(caller, body)
        answer = act(caller, body)
        db.session.commit()
    except RefusedTenant as refused:
        return jsonify({"result": refused.result, "message": refused.message, **empty})
    except ValidationError as error:
        db.session.rollback()
        return jsonify({"result": "INVALID_ARGUMENTS", "message": describe(error), **empty})
    except ServiceError as error:
        db.session.rollback()
        result = next((name for kind, name in results if isinstance(error, kind)), otherwise)
        return jsonify({"result": result, "message": error.message, **empty})
    return jsonify({"result": SUCCESS, **answer})


def _run(schema: type[UserRequest], operation: Callable[[Any, Any, Actor], dict], **empty: Any):
    """Validate, then run the operation as the caller's key (see json_action)."""

    def act(caller: Caller, body: dict[str, Any]) -> dict:
        users.check_supported(caller.tenant)
        return operation(caller.tenant, schema.model_validate(body), caller.actor)

    return json_action(act, RESULT_OF, "FAIL", empty)


@bp.post("/users/add-user", provide_automatic_options=False)
def add_user():
    """Create a user in the service and, optionally, in the contact-centre instance."""

    def operation(tenant, request: AddUserRequest, actor: Actor) -> dict:
        user = users.add_user(tenant, request.new_user(), actor=actor)
        where = " and in the instance" if user.connect_user_id else ""
        return {
            "message": f"user '{user.login_user_id}' created in the service{where}",
            "connectUserId": user.connect_user_id,
        }

    return _run(AddUserRequest, operation, connectUserId=None)


@bp.post("/users/query-existence", provide_automatic_options=False)
@read_only
def query_existence():
    """Tell whether a user exists in the service and in the instance."""

    def operation(tenant, request: UserRequest, _actor: Actor) -> dict:
        status = users.user_status(tenant, request.loginUserId)
        where = "the service and the instance" if status.connect_user_id else "the service only"
        return {
            "message": f"user '{request.loginUserId}' exists in {where}",
            "amazonConnectStatus": status.instance_status,
            "connectUserId": status.connect_user_id,
        }

    return _run(UserRequest, operation, amazonConnectStatus=None, connectUserId=None)


@bp.post("/users/delete-user", provide_automatic_options=False)
def delete_user():
    """Delete a user from the service and, where it exists there, from the instance."""

    def operation(tenant, request: UserRequest, actor: Actor) -> dict:
        users.delete_user(tenant, request.loginUserId, actor=actor)
        return {"message": f"user '{request.loginUserId}' deleted"}

    return _run(UserRequest, operation)


@bp.post("/<path:unknown>", provide_automatic_options=False)
def unknown_operation(unknown: str):
    """The spec answers an invalid endpoint URL with 401, like invalid headers."""
    raise Unauthorized(f"The endpoint URL is not valid: {PREFIX}/{unknown}")
