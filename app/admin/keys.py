"""The tenant's API keys: their age and state, and rotation (asked for on a page of its
own, since the current key then stops working after its grace) that shows the new key once."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app, make_response, redirect, render_template, request, url_for

from app.admin import bp
from app.admin.access import attempt, supervisor, tenant_or_404
from app.admin.forms import ConfirmForm
from app.models import Tenant
from app.services import keys as key_service
from app.services.audit import paged_tenant_history


def _page(tenant: Tenant, new_key: str | None = None, error: str | None = None):
    response = make_response(
        render_template(
            "admin/keys.html",
            tenant=tenant,
            keys=key_service.key_states(tenant),
            form=ConfirmForm(),
            new_key=new_key,
            grace=grace_hours(),
            history=paged_tenant_history(
                tenant.id,
                ("api_key",),
                request.args.get("history", 1, type=int),
                current_app.config["PAGE_SIZE"],
            ),
            error=error,
        )
    )
    # A page showing a new key is never stored by the browser or a proxy.
    response.headers["Cache-Control"] = "no-store"
    return response


def grace_hours() -> str:
    """KEY_GRACE_SECONDS in hours, as the pages say it: "2 hours", "1 hour", "0.5 hours"."""
    hours = current_app.config["KEY_GRACE_SECONDS"] / 3600
    shown = f"{hours:g}" if hours >= 0.1 else f"{hours:.2g}"
    return f"{shown} hour" + ("" if shown == "1" else "s")


@bp.get("/tenants/<int:tenant_id>/keys")
def keys(tenant_id: int):
    """The tenant's keys with their age and state."""
    return _page(tenant_or_404(tenant_id))


@bp.get("/tenants/<int:tenant_id>/keys/rotate")
def confirm_rotate_key(tenant_id: int):
    """Ask before rotating: say what becomes of the current key."""
    tenant = tenant_or_404(tenant_id)
    return render_template(
        "admin/key_rotate.html", tenant=tenant, form=ConfirmForm(), grace=grace_hours()
    )


@bp.post("/tenants/<int:tenant_id>/keys/rotate")
def rotate_key(tenant_id: int):
    """Issue a new key and show it once; the previous one works until its grace ends."""
    tenant = tenant_or_404(tenant_id)
    if not ConfirmForm().validate_on_submit():
        return redirect(url_for("admin.confirm_rotate_key", tenant_id=tenant.id))
    grace = timedelta(seconds=current_app.config["KEY_GRACE_SECONDS"])
    actor = supervisor()
    key, error = attempt(lambda: key_service.rotate_key(tenant, grace, actor=actor))
    return _page(tenant, new_key=key, error=error)
