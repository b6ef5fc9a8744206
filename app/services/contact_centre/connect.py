"""Amazon Connect as the tenant's instance: CreateUser, DescribeUser and DeleteUser via boto3.

boto3 is an optional extra (`pip install -e '.[connect]'`). The client comes from the
CONNECT_CLIENT_FACTORY setting, a callable taking the region, so tests can hand in a
client wired to botocore's Stubber.
"""

from __future__ import annotations

from typing import Any

from flask import current_app

from app.models import PhoneType, Tenant
from app.services.contact_centre.interface import InstanceError, InstanceUser, InstanceUserInfo


def default_client_factory(region: str) -> Any:
    try:
        import boto3
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise InstanceError(
            "Amazon Connect support needs boto3: pip install -e '.[connect]'"
        ) from None
    from botocore.config import Config

    # A slow instance must not hold a request (and, on SQLite, the write lock) for minutes.
    config = Config(connect_timeout=3, read_timeout=10, retries={"max_attempts": 2})
    return boto3.client("connect", region_name=region, config=config)


def _snake(operation: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation).lstrip("_")


class AmazonConnect:
    def __init__(self, tenant: Tenant) -> None:
        if not tenant.connect_instance_id or not tenant.connect_region:
            raise InstanceError(
                f"tenant {tenant.label} has no Amazon Connect instance id and region configured"
            )
        self.instance_id = tenant.connect_instance_id
        factory = current_app.config.get("CONNECT_CLIENT_FACTORY") or default_client_factory
        self.client = factory(tenant.connect_region)

    def _call(self, operation: str, **params: Any) -> dict | None:
        """Call the operation; None when Connect answers ResourceNotFoundException."""
        from botocore.exceptions import BotoCoreError, ClientError

        method = getattr(self.client, _snake(operation))
        try:
            return method(InstanceId=self.instance_id, **params)
        except ClientError as error:
            detail = error.response.get("Error", {})
            if detail.get("Code") == "ResourceNotFoundException" and operation != "CreateUser":
                return None
            raise InstanceError(
                f"Amazon Connect refused {operation}: {detail.get('Code')}: {detail.get('Message')}"
            ) from None
        except BotoCoreError as error:
            raise InstanceError(
                f"Amazon Connect could not be reached for {operation}: {error}"
            ) from None

    def create_user(self, user: InstanceUser) -> str:
        template = user.template
        if not template.security_profile_ids or not template.routing_profile_id:
            raise InstanceError(
                f"user template '{template.name}' names no security profile and routing profile "
                "for Amazon Connect"
            )
        identity = {"FirstName": user.first_name, "LastName": user.last_name}
        if user.email:
            identity["Email"] = user.email
        if user.secondary_email:
            identity["SecondaryEmail"] = user.secondary_email
        phone: dict[str, Any] = {
            "PhoneType": template.phone_type,
            "AutoAccept": template.auto_accept,
            "AfterContactWorkTimeLimit": template.after_contact_work_seconds,
        }
        if template.phone_type == PhoneType.DESK_PHONE and template.desk_phone_number:
            phone["DeskPhoneNumber"] = template.desk_phone_number
        params: dict[str, Any] = {
            "Username": user.username,
            "IdentityInfo": identity,
            "PhoneConfig": phone,
            "SecurityProfileIds": list(template.security_profile_ids),
            "RoutingProfileId": template.routing_profile_id,
        }
        if template.hierarchy_group_id:
            params["HierarchyGroupId"] = template.hierarchy_group_id
        return self._call("CreateUser", **params)["UserId"]

    def describe_user(self, user_id: str) -> InstanceUserInfo | None:
        answer = self._call("DescribeUser", UserId=user_id)
        if answer is None:
            return None
        return InstanceUserInfo(answer["User"]["Id"], answer["User"]["Username"])

    def delete_user(self, user_id: str) -> bool:
        return self._call("DeleteUser", UserId=user_id) is not None
