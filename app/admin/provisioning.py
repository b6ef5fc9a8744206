"""Provisioning by the tenant's identity provider (SCIM), on its Sign-in page: the SCIM base
URL, its bearer tokens (a new one shown once, on the page its redirect leads to; the one it
replaces works for the grace period, like an API key), the template and instance of the
users it creates, and the skill queue each of its group names gives the group's members."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app, flash, redirect, request, url_for

from app.admin.access import attempt, supervisor, tenant_or_404
from app.admin.forms import OUT_OF_DATE, ConfirmForm
from app.admin.prg import form_post, hold
from app.admin.sign_in import scim_slot, sign_in_page
from app.models import Role, Tenant
from app.models.types import utcnow
from app.services import shown_once as held_values
from app.services.people import directory_groups
from app.services.tenants import api_keys, provisioning


def _back(tenant: Tenant):
    return redirect(url_for("admin.sign_in", tenant_id=tenant.id, _anchor="scim-title"), 303)


@form_post("/tenants/<int:tenant_id>/sign-in/scim-token", "admin.sign_in")
def make_scim_token(tenant_id: int):
    """A new SCIM token, shown once on the Sign-in page; the current one works for the
    grace period, then stops."""
    tenant = tenant_or_404(tenant_id)
    if not ConfirmForm().validate_on_submit():
        return sign_in_page(tenant, errors={"scim": OUT_OF_DATE})
    grace = timedelta(seconds=current_app.config["KEY_GRACE_SECONDS"])
    actor = supervisor()

    def make() -> held_values.Claim:
        token = api_keys.rotate_key(tenant, grace, actor=actor, purpose=api_keys.SCIM)
        return held_values.keep(token, secret=True, now=utcnow())

    claim, error = attempt(make)
    if error:
        return sign_in_page(tenant, errors={"scim": error})
    hold(scim_slot(tenant), claim)
    return _back(tenant)


@form_post("/tenants/<int:tenant_id>/sign-in/provisioning", "admin.sign_in")
def set_provisioning(tenant_id: int):
    """The template of users the identity provider creates without naming one, and whether
    they are created in the instance too."""
    tenant = tenant_or_404(tenant_id)
    values = {"template": request.form.get("template", ""),
              "in_instance": request.form.get("in_instance") == "on"}  # fmt: skip
    if not ConfirmForm().validate_on_submit():
        return sign_in_page(tenant, errors={"provisioning": OUT_OF_DATE}, values=values)
    actor = supervisor()
    _, error = attempt(
        lambda: provisioning.set_provisioning(
            tenant, values["template"], values["in_instance"], actor=actor
        )
    )
    if error:
        return sign_in_page(tenant, errors={"provisioning": error}, values=values)
    template = values["template"] or "the one they name (department)"
    flash(f"Users the identity provider creates are made from {template}.")
    return _back(tenant)


@form_post("/tenants/<int:tenant_id>/sign-in/group-mapping", "admin.sign_in")
def map_group(tenant_id: int):
    """Map a group name of the identity provider to a skill queue or a console role (or to
    neither)."""
    tenant = tenant_or_404(tenant_id)
    values = {name: request.form.get(name, "") for name in ("group", "queue", "role")}
    if not ConfirmForm().validate_on_submit():
        return sign_in_page(tenant, errors={"mapping": OUT_OF_DATE}, values=values)
    if values["role"] and values["role"] not in set(Role):
        return sign_in_page(tenant, errors={"mapping": "choose a role of the list"}, values=values)
    actor = supervisor()
    role = Role(values["role"]) if values["role"] else None
    _, error = attempt(
        lambda: directory_groups.map_group(
            tenant, values["group"], values["queue"] or None, role=role, actor=actor
        )
    )
    if error:
        return sign_in_page(tenant, errors={"mapping": error}, values=values)
    if values["queue"]:
        flash(f"The members of group '{values['group']}' work skill queue {values['queue']}.")
    elif role:
        flash(f"The members of group '{values['group']}' are {role.value}s of this console.")
    else:
        flash(f"Group '{values['group']}' gives no skill queue.")
    return _back(tenant)
