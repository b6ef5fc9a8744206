"""The live wallboard, and the live answers the Agents page and the Progress panel poll.

Each live fragment is answered with the tenant's change token as its ETag: a viewer that
sends it back in If-None-Match while nothing changed gets 304 Not Modified after one index
probe, with nothing counted or rendered (docs/decisions.md says why polling, not a stream).
"""

from __future__ import annotations

from collections.abc import Callable

from flask import make_response, render_template, request

from app.admin.access import tenant_or_404
from app.admin.blueprint import bp
from app.models import Tenant
from app.models.types import utcnow
from app.services.reports import live

# How often the pages ask, in milliseconds: within the 2 seconds a change must show in.
POLL_MS = 1000


def live_answer(tenant: Tenant, render: Callable[[str], str]):
    """304 when the viewer's ETag is the tenant's change token; else `render(token)`,
    tagged with it."""
    token = live.change_token(tenant, utcnow())
    etag = f'"{token}"'
    if etag in request.if_none_match or token in request.if_none_match:
        response = make_response("", 304)
    else:
        response = make_response(render(token))
    response.headers["ETag"] = etag
    return response


@bp.get("/tenants/<int:tenant_id>/wallboard")
def wallboard(tenant_id: int):
    """Agents by state, each queue's open tasks, attempts and contacts: for a wall screen."""
    tenant = tenant_or_404(tenant_id)
    return render_template(
        "admin/wallboard.html", tenant=tenant, board=live.wallboard(tenant), poll_ms=POLL_MS
    )


@bp.get("/tenants/<int:tenant_id>/wallboard/live")
def wallboard_live(tenant_id: int):
    """The wallboard's figures alone, or 304 when nothing changed since the viewer's ETag."""
    tenant = tenant_or_404(tenant_id)
    return live_answer(
        tenant,
        lambda token: render_template(
            "admin/_wallboard.html", tenant=tenant, board=live.wallboard(tenant, token=token)
        ),
    )
