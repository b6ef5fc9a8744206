"""The tenant's API keys: their age and state, and rotation that shows the new key once."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app, make_response, redirect, render_template, url_for

from app.admin import bp
from app.admin.access import attempt, tenant_or_404
from app.admin.forms import ConfirmForm
from app.models import Tenant
from app.services import keys as key_service


def _page(tenant: Tenant, new_key: str | None = None, error: str | None = None):
    response = make_response(
        render_template(
            "admin/keys.html",
            tenant=tenant,
            keys=key_service.key_states(tenant),
            form=ConfirmForm(),
            new_key=new_key,
            grace=timedelta(seconds=current_app.config["KEY_GRACE_SECONDS"]),
            error=error,
        )
    )
    # A page showing a new key is never stored by the browser or a proxy.
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/tenants/<int:tenant_id>/keys")
def keys(tenant_id: int):
    """The tenant's keys with their age and state."""
    return _page(tenant_or_404(tenant_id))


@bp.post("/tenants/<int:tenant_id>/keys/rotate")
def rotate_key(tenant_id: int):
    """Issue a new key and show it once; the previous one works until its grace ends."""
    tenant = tenant_or_404(tenant_id)
    if not ConfirmForm().validate_on_submit():
        return redirect(url_for("admin.keys", tenant_id=tenant.id))
    grace = timedelta(seconds=current_app.config["KEY_GRACE_SECONDS"])
    key, error = attempt(lambda: key_service.rotate_key(tenant, grace))
    return _page(tenant, new_key=key, error=error)
