"""How a tenant's identity provider provisions users (SCIM): the user template of a user it
creates without naming one, and whether that user is created in the contact-centre
instance too. (Its bearer token is a key of the SCIM purpose: app/services/tenants/api_keys.py.)"""

from __future__ import annotations

from app.models import Tenant
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import InvalidInput
from app.services.fields import TENANT_PROVISIONING_TEMPLATE
from app.services.tenants.setup import find_user_template


def set_provisioning(
    tenant: Tenant, template: str | None, in_instance: bool, *, actor: Actor
) -> bool:
    """Set the provisioning template (one of the tenant's; empty: none, so a user the
    provider creates must name one) and whether new users go to the instance; False when
    it already was so (nothing recorded)."""
    template = (template or "").strip() or None
    if template is not None and find_user_template(tenant, template) is None:
        raise InvalidInput(
            f"user template '{template}' is not one of {tenant.label}",
            field=TENANT_PROVISIONING_TEMPLATE,
        )
    before = {
        "template": tenant.provisioning_template,
        "inInstance": tenant.provisioning_in_instance,
    }
    after = {"template": template, "inInstance": in_instance}
    if before == after:
        return False
    tenant.provisioning_template, tenant.provisioning_in_instance = template, in_instance
    record(actor, Change("tenant.provisioning_set", "tenant", str(tenant.id), tenant.id,
                         before=before, after=after))  # fmt: skip
    return True
