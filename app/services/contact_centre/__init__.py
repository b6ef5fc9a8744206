"""The tenant's contact-centre instance, behind one small interface (`interface`).

Two implementations: the embedded local instance (`local`: rows in the service's own
database, so it commits or rolls back with the request) and Amazon Connect through boto3
(`connect`).
"""

from __future__ import annotations

from app.models import InstanceKind, Tenant
from app.services.contact_centre.connect import AmazonConnect
from app.services.contact_centre.interface import (
    ContactCentre,
    ContactState,
    InstanceError,
    InstanceUser,
    InstanceUserInfo,
    OutboundCall,
)
from app.services.contact_centre.local import LocalInstance

__all__ = [
    "ContactCentre",
    "ContactState",
    "InstanceError",
    "InstanceUser",
    "InstanceUserInfo",
    "OutboundCall",
    "instance_for",
]


def instance_for(tenant: Tenant) -> ContactCentre:
    """The tenant's instance, as its configuration names it."""
    if tenant.instance_kind == InstanceKind.AMAZON_CONNECT:
        return AmazonConnect(tenant)
    return LocalInstance(tenant)
