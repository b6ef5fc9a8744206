"""What a SCIM resource means here, and what the tenant's endpoints publish of themselves.

A SCIM User is a user of the contract: `userName` is its `loginUserId`, `name.givenName`
and `name.familyName` its first and last names, `emails` its e-mail addresses (the one
marked primary is its `primaryEmailAddr`, the first other one its `secondaryEmailAddr`),
`externalId` the provider's id for it, `active` whether it may work, and the enterprise
extension's `department` the user template it is created from (when it names one; else the
tenant's provisioning template). `displayName` is read only: the two names. A SCIM Group is
a group of the tenant's users (`displayName`, `externalId`, `members` by their ids), whose
name may give its members a skill queue (app/services/people/directory_groups.py). The
published schemas hold only these attributes; the others a provider sends (phone numbers,
titles, addresses…) are accepted and not kept.
"""

from __future__ import annotations

from scim2_models import (
    AuthenticationScheme,
    Bulk,
    ChangePassword,
    Email,
    EnterpriseUser,
    ETag,
    Filter,
    Group,
    GroupMember,
    Meta,
    Mutability,
    Name,
    Patch,
    Required,
    ResourceType,
    Schema,
    ServiceProviderConfig,
    Sort,
    User,
)

from app.models import DirectoryGroup
from app.models import User as Agent
from app.services.people.user_changes import Email as Address
from app.services.people.user_changes import Profile, emails_of

ScimUser = User[EnterpriseUser]
ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
# A page of a list holds at most this many resources (`count` asks for fewer).
MAX_RESULTS = 200


# The attributes each schema publishes (and the sub-attributes of a complex one).
USER_ATTRIBUTES = {
    "userName": None,
    "name": ("givenName", "familyName"),
    "displayName": None,
    "active": None,
    "emails": ("value", "type", "primary"),
}
ENTERPRISE_ATTRIBUTES = {"department": None}
GROUP_ATTRIBUTES = {"displayName": None, "members": ("value", "$ref", "type")}


def version_of(user: Agent) -> str:
    return f'W/"{user.version}"'


def user_resource(user: Agent, base: str) -> ScimUser:
    """The user as its SCIM resource."""
    found = ScimUser(
        id=user.resource_id,
        user_name=user.login_user_id,
        external_id=user.external_id,
        name=Name(given_name=user.first_name, family_name=user.last_name),
        display_name=f"{user.first_name} {user.last_name}",
        active=user.active,
        emails=[Email(value=e.value, type=e.type, primary=e.primary) for e in emails_of(user)]
        or None,
    )
    if user.department:
        found[EnterpriseUser] = EnterpriseUser(department=user.department)
    found.meta = Meta(
        resource_type="User",
        created=user.created_at,
        last_modified=user.updated_at or user.created_at,
        location=f"{base}/Users/{user.resource_id}",
        version=version_of(user),
    )
    return found


def group_resource(group: DirectoryGroup, base: str) -> Group:
    """The group as its SCIM resource: its members by their resource ids."""
    found = Group(
        id=group.resource_id,
        display_name=group.display_name,
        external_id=group.external_id,
        members=[
            GroupMember(value=u.resource_id, ref=f"{base}/Users/{u.resource_id}", type="User")
            for u in group.members
        ]
        or None,
    )
    found.meta = Meta(
        resource_type="Group",
        created=group.created_at,
        last_modified=group.updated_at,
        location=f"{base}/Groups/{group.resource_id}",
        version=f'W/"{group.version}"',
    )
    return found


def member_ids(resource: Group) -> list[str]:
    """The resource ids a group resource names as its members."""
    return [str(m.value) for m in resource.members or () if m.value]


def profile_from(resource: ScimUser) -> Profile:
    """What a resource (sent whole, or patched) says of the user, for the services."""
    name = resource.name or Name()
    emails = tuple(
        Address(str(e.value), str(e.type.value if hasattr(e.type, "value") else e.type)
                if e.type else None, e.primary)
        for e in resource.emails or ()
        if e.value
    )  # fmt: skip
    extension = resource[EnterpriseUser]
    department = extension.department if extension is not None else None
    return Profile(
        name.given_name or "",
        name.family_name or "",
        emails,
        resource.external_id,
        department or None,
    )


def active_from(resource: ScimUser) -> bool:
    return resource.active is not False


def config() -> ServiceProviderConfig:
    return ServiceProviderConfig(
        patch=Patch(supported=True),
        bulk=Bulk(supported=False, max_operations=0, max_payload_size=0),
        filter=Filter(supported=True, max_results=MAX_RESULTS),
        change_password=ChangePassword(supported=False),
        sort=Sort(supported=False),
        etag=ETag(supported=True),
        authentication_schemes=[
            AuthenticationScheme(
                type="oauthbearertoken",
                name="Bearer token",
                description="The tenant's SCIM token, made on its Sign-in page.",
                primary=True,
            )
        ],
    )


def resource_types() -> list[ResourceType]:
    return [ResourceType.from_resource(ScimUser), ResourceType.from_resource(Group)]


def _trimmed(schema: Schema, kept: dict) -> Schema:
    schema = schema.model_copy(deep=True)
    attributes = []
    for attribute in schema.attributes or ():
        if attribute.name not in kept:
            continue
        subs = kept[attribute.name]
        if subs is not None:
            attribute.sub_attributes = [a for a in attribute.sub_attributes if a.name in subs]
        attributes.append(attribute)
    schema.attributes = attributes
    return schema


def schemas() -> list[Schema]:
    """The User schema and the enterprise extension, with the attributes kept here."""
    user = _trimmed(User.to_schema(), USER_ATTRIBUTES)
    for attribute in user.attributes:
        if attribute.name == "name":
            attribute.required = Required.true
            for sub in attribute.sub_attributes:
                sub.required = Required.true
        if attribute.name == "displayName":
            attribute.mutability = Mutability.read_only
        if attribute.name == "userName":  # as an Amazon Connect username
            attribute.mutability = Mutability.immutable
        if attribute.name == "active":
            attribute.required = Required.true
    extension = _trimmed(EnterpriseUser.to_schema(), ENTERPRISE_ATTRIBUTES)
    return [user, extension, _trimmed(Group.to_schema(), GROUP_ATTRIBUTES)]
