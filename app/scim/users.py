"""/Users: list (filter, paging, attributes), search, read, create, replace, patch and
delete the tenant's users, each through the services of the User Provisioning API
(app/services/people), in one transaction per request.

- `userName` is the loginUserId: unique without regard to case (409 `uniqueness`), and it
  cannot change once created (400 `mutability`), as an Amazon Connect username cannot.
- A create takes its user template from the enterprise extension's `department` when that
  names one of the tenant's templates, else the tenant's provisioning template; it creates
  the user in the contact-centre instance too when the tenant says so.
- `active: false` deactivates the user (no sign-in, desk sessions ended, its task and
  callbacks back to the queue); `true` lets it work again.
- Every answer carries the resource's version as its ETag; `If-Match` (PUT, PATCH,
  DELETE) refuses a stale one with 412, `If-None-Match` on a read answers 304.
"""

from __future__ import annotations

from flask import request
from scim2_models import (
    Context,
    MutabilityException,
    NotFoundException,
    PatchOp,
    ResponseParameters,
    SearchRequest,
    UniquenessException,
)
from sqlalchemy import Select, func, select

from app.extensions import db
from app.models import User
from app.scim import resources
from app.scim.access import (
    POLICY,
    actor,
    answer,
    base_url,
    body,
    bp,
    run,
    same_version,
    tenant,
    unchanged_since,
)
from app.scim.filters import user_condition
from app.scim.resources import ScimUser, user_resource, version_of
from app.scim.search_pages import listed, paged
from app.services.errors import InvalidInput
from app.services.fields import USER_TEMPLATE
from app.services.people import user_changes, users
from app.services.tenants.setup import find_user_template


def _user(resource_id: str) -> User:
    found = db.session.scalar(
        select(User).where(User.tenant_id == tenant().id, User.resource_id == resource_id)
    )
    if found is None:
        raise NotFoundException(detail=f"No user {resource_id}.")
    return found


def _shown(user: User, context: Context, status: int = 200):
    parameters = ResponseParameters[ScimUser].model_validate(
        {
            "attributes": request.args.get("attributes"),
            "excludedAttributes": request.args.get("excludedAttributes"),
        }
    )
    found = user_resource(user, base_url())
    headers = {"ETag": version_of(user), "Location": found.meta.location}
    dumped = found.model_dump(scim_ctx=context, response_parameters=parameters)
    return answer(dumped, status, headers)


def users_where(found) -> Select:
    """The tenant's users a filter selects (all without one), oldest first."""
    query = select(User).where(User.tenant_id == tenant().id).order_by(User.id)
    return query if found is None else query.where(user_condition(found))


def _search(parameters: dict):
    wanted = SearchRequest[ScimUser].model_validate(parameters, scim_ctx=Context.SEARCH_REQUEST)
    total, page = paged(users_where(wanted.filter), wanted)
    return listed(ScimUser, total, wanted, [user_resource(u, base_url()) for u in page])


@bp.get("/Users")
def list_users():
    return _search(request.args.to_dict())


@bp.post("/Users/.search")
def search_users():
    return _search(body())


@bp.get("/Users/<resource_id>")
def get_user(resource_id: str):
    user = _user(resource_id)
    if unchanged_since(version_of(user)):
        return answer(None, 304, {"ETag": version_of(user)})
    return _shown(user, Context.RESOURCE_QUERY_RESPONSE)


def _taken(login: str, but: User | None = None) -> bool:
    query = select(User.id).where(
        User.tenant_id == tenant().id, func.lower(User.login_user_id) == login.lower()
    )
    if but is not None:
        query = query.where(User.id != but.id)
    return db.session.scalar(query.limit(1)) is not None


def _template_for(profile: user_changes.Profile) -> str:
    """The template a new user is made from: its department's, else the tenant's."""
    if profile.department and find_user_template(tenant(), profile.department):
        return profile.department
    if tenant().provisioning_template:
        return tenant().provisioning_template
    raise InvalidInput(
        "no user template: the tenant has no provisioning template (its Sign-in page, or "
        "flask --app wsgi scim template) and the enterprise extension's department names none",
        field=USER_TEMPLATE,
    )


@bp.post("/Users")
def create_user():
    sent = ScimUser.model_validate(body(), scim_ctx=Context.RESOURCE_CREATION_REQUEST,
                                   scim_policy=POLICY)  # fmt: skip
    if _taken(sent.user_name):
        raise UniquenessException(detail=f"userName '{sent.user_name}' is taken.")
    profile = resources.profile_from(sent)

    def create() -> User:
        checked = user_changes.check_profile(tenant(), sent.user_name, _template_for(profile),
                                             profile)  # fmt: skip
        new = users.NewUser(
            **{
                **checked.__dict__,
                "create_in_instance": tenant().provisioning_in_instance,
                "active": resources.active_from(sent),
            }  # fmt: skip
        )
        return users.add_user(tenant(), new, actor=actor())

    user, refusal = run(create)
    return refusal or _shown(user, Context.RESOURCE_CREATION_RESPONSE, 201)


def _apply(user: User, resource: ScimUser) -> None:
    """Make the user what `resource` says (its userName unchanged)."""
    if resource.user_name is not None and resource.user_name != user.login_user_id:
        raise MutabilityException(
            detail="userName cannot change: delete the user and create it again."
        )
    user_changes.update_user(tenant(), user, resources.profile_from(resource), actor=actor())
    user_changes.set_active(user, resources.active_from(resource), actor=actor())


@bp.put("/Users/<resource_id>")
def replace_user(resource_id: str):
    user = _user(resource_id)
    same_version(version_of(user))
    sent = ScimUser.model_validate(body(), scim_ctx=Context.RESOURCE_REPLACEMENT_REQUEST,
                                   scim_policy=POLICY)  # fmt: skip
    _, refusal = run(lambda: _apply(user, sent))
    return refusal or _shown(user, Context.RESOURCE_REPLACEMENT_RESPONSE)


@bp.patch("/Users/<resource_id>")
def patch_user(resource_id: str):
    user = _user(resource_id)
    same_version(version_of(user))
    operations = PatchOp[ScimUser].model_validate(
        body(), scim_ctx=Context.RESOURCE_PATCH_REQUEST, scim_policy=POLICY
    )
    resource = user_resource(user, base_url())
    operations.patch(resource, scim_policy=POLICY)
    _, refusal = run(lambda: _apply(user, resource))
    return refusal or _shown(user, Context.RESOURCE_PATCH_RESPONSE)


@bp.delete("/Users/<resource_id>")
def delete_user(resource_id: str):
    user = _user(resource_id)
    same_version(version_of(user))
    login = user.login_user_id
    _, refusal = run(lambda: users.delete_user(tenant(), login, actor=actor()))
    return refusal or answer(None, 204)
