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

from scim2_models import MutabilityException, UniquenessException
from sqlalchemy import Select, func, select

from app.extensions import db
from app.models import User
from app.scim import resources
from app.scim.access import actor, tenant
from app.scim.filters import user_condition
from app.scim.kinds import Kind, serve
from app.scim.resources import ScimUser, user_resource, version_of
from app.services.errors import InvalidInput
from app.services.fields import USER_TEMPLATE
from app.services.people import user_changes, users
from app.services.tenants.setup import find_user_template


def _find(resource_id: str) -> User | None:
    return db.session.scalar(
        select(User).where(User.tenant_id == tenant().id, User.resource_id == resource_id)
    )


def users_where(found) -> Select:
    """The tenant's users a filter selects (all without one), oldest first."""
    query = select(User).where(User.tenant_id == tenant().id).order_by(User.id)
    return query if found is None else query.where(user_condition(found))


def _taken(login: str) -> bool:
    query = select(User.id).where(
        User.tenant_id == tenant().id, func.lower(User.login_user_id) == login.lower()
    )
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


def _create(sent: ScimUser) -> User:
    if _taken(sent.user_name):
        raise UniquenessException(detail=f"userName '{sent.user_name}' is taken.")
    profile = resources.profile_from(sent)
    checked = user_changes.check_profile(tenant(), sent.user_name, _template_for(profile),
                                         profile)  # fmt: skip
    new = users.NewUser(
        **{
            **checked.__dict__,
            "create_in_instance": tenant().provisioning_in_instance,
            "active": resources.active_from(sent),
        }
    )
    return users.add_user(tenant(), new, actor=actor())


def _apply(user: User, resource: ScimUser) -> None:
    """Make the user what `resource` says (its userName unchanged)."""
    if resource.user_name is not None and resource.user_name != user.login_user_id:
        raise MutabilityException(
            detail="userName cannot change: delete the user and create it again."
        )
    user_changes.update_user(tenant(), user, resources.profile_from(resource), actor=actor())
    user_changes.set_active(user, resources.active_from(resource), actor=actor())


def _delete(user: User) -> None:
    users.delete_user(tenant(), user.login_user_id, actor=actor())


USERS = Kind(
    path="Users",
    singular="user",
    model=ScimUser,
    find=_find,
    version=version_of,
    shown=user_resource,
    where=users_where,
    create=_create,
    apply=_apply,
    delete=_delete,
)
serve(USERS)
