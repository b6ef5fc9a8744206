"""The tenant's API keys: their age and state, and rotation (asked for on a page of its
own, since the current key then stops working after its grace) that shows the new key once,
on the keys page its redirect leads to."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app, flash, make_response, redirect, render_template, request, url_for

from app.admin.access import attempt, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.prg import hold, shown_once
from app.models import Tenant
from app.models.types import utcnow
from app.services import shown_once as held_values
from app.services.audit.reading import paged_tenant_history
from app.services.tenants import api_keys as key_service


def _slot(tenant: Tenant) -> str:
    return f"api_key:{tenant.id}"


def _page(tenant: Tenant, new_key: str | None = None):
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
    """The tenant's keys with their age and state; a key just issued, this once."""
    tenant = tenant_or_404(tenant_id)
    return _page(tenant, new_key=shown_once(_slot(tenant)))


@bp.get("/tenants/<int:tenant_id>/keys/rotate")
def confirm_rotate_key(tenant_id: int):
    """Ask before rotating: say what becomes of the current key."""
    tenant = tenant_or_404(tenant_id)
    return render_template(
        "admin/key_rotate.html", tenant=tenant, form=ConfirmForm(), grace=grace_hours()
    )


@bp.post("/tenants/<int:tenant_id>/keys/rotate")
def rotate_key(tenant_id: int):
    """Issue a new key, then redirect to the keys page, which shows it once; the previous
    key works until its grace ends."""
    tenant = tenant_or_404(tenant_id)
    if not ConfirmForm().validate_on_submit():
        return redirect(url_for("admin.confirm_rotate_key", tenant_id=tenant.id))
    grace = timedelta(seconds=current_app.config["KEY_GRACE_SECONDS"])
    actor = supervisor()

    def rotate() -> held_values.Claim:
        key = key_service.rotate_key(tenant, grace, actor=actor)
        return held_values.keep(key, secret=True, now=utcnow())

    claim, error = attempt(rotate)
    if error:
        flash(error)
    else:
        hold(_slot(tenant), claim)
    return redirect(url_for("admin.keys", tenant_id=tenant.id), 303)
