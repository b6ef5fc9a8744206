"""The embedded instance: users kept in the service's own database, no set-up needed."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from app.extensions import db
from app.models import LocalInstanceUser, Tenant
from app.services.contact_centre.interface import (
    ContactState,
    InstanceError,
    InstanceUser,
    InstanceUserInfo,
    OutboundCall,
)


class LocalInstance:
    def __init__(self, tenant: Tenant) -> None:
        self.tenant = tenant

    def _find(self, user_id: str) -> LocalInstanceUser | None:
        return db.session.scalar(
            select(LocalInstanceUser).filter_by(tenant_id=self.tenant.id, user_id=user_id)
        )

    def create_user(self, user: InstanceUser) -> str:
        taken = db.session.scalar(
            select(LocalInstanceUser.id).filter_by(tenant_id=self.tenant.id, username=user.username)
        )
        if taken:
            raise InstanceError(f"the instance already has a user named '{user.username}'")
        row = LocalInstanceUser(
            tenant_id=self.tenant.id,
            user_id=str(uuid.uuid4()),
            username=user.username,
            first_name=user.first_name,
            last_name=user.last_name,
            email=user.email,
            security_profile_ids=list(user.template.security_profile_ids or []),
            routing_profile_id=user.template.routing_profile_id,
        )
        db.session.add(row)
        db.session.flush()
        return row.user_id

    def describe_user(self, user_id: str) -> InstanceUserInfo | None:
        row = self._find(user_id)
        return None if row is None else InstanceUserInfo(row.user_id, row.username)

    def delete_user(self, user_id: str) -> bool:
        row = self._find(user_id)
        if row is None:
            return False
        db.session.delete(row)
        db.session.flush()
        return True

    def start_outbound_call(self, call: OutboundCall) -> str:
        raise InstanceError(
            "the embedded instance places no calls: the desk dials (a softphone or tel: link)"
        )

    def describe_contact(self, contact_id: str) -> ContactState | None:
        return None
