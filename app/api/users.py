"""The User Provisioning API: add-user, query-existence and delete-user."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from flask import Blueprint
from pydantic import ConfigDict, StringConstraints
from werkzeug.exceptions import Unauthorized

from app.api.fields import refusal_message
from app.db.transactions import read_only
from app.services.actors import Actor
from app.services.contact_centre import InstanceError
from app.services.errors import Conflict, InvalidInput, NotFound, ServiceError
from app.services.people import users
from app.web.api_keys import Caller
from app.web.json_actions import json_action
from app.web.schemas import Strict, published

PREFIX = "/service-admin/api"

bp = Blueprint("users", __name__, url_prefix=PREFIX)

Text = Annotated[str, StringConstraints(max_length=320)]

RESULT_OF: tuple[tuple[type[ServiceError], str], ...] = (
    (users.NotSupported, "NOT_SUPPORTED"),
    (users.UserNotFound, "NOT_FOUND"),
    (Conflict, "ALREADY_EXISTS"),
    (InvalidInput, "INVALID_ARGUMENTS"),
    (NotFound, "INVALID_ARGUMENTS"),
    (InstanceError, "FAIL"),
)

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


def _run(schema: type[UserRequest], operation: Callable[[Any, Any, Actor], dict], **empty: Any):
    """Validate, then run the operation as the caller's key (see json_action)."""

    def act(caller: Caller, body: dict[str, Any]) -> dict:
        users.check_supported(caller.tenant)
        return operation(caller.tenant, schema.model_validate(body), caller.actor)

    return json_action(act, RESULT_OF, "FAIL", empty, said=refusal_message)


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
