"""The live wallboard, and the live parts of the Agents page and the Progress panel.

A page follows its live part by a stream of server-sent events (`live_stream`): the part is
rendered once per change for all the viewers of a process (app/web/broadcast.py) and sent
tagged with an ETag signed from the tenant's change token. Where a stream cannot be had (no
EventSource, a proxy in the way, the process's streams all taken) the page polls instead:
a viewer that sends its ETag back in If-None-Match while nothing changed gets 304 Not
Modified from `UnchangedFirst`, before Flask loads a session or a supervisor, the current
ETag of each tenant being read at most every LIVE_TOKEN_SECONDS per process (one index
probe). Any other poll, and every stream's start, reaches a view, which checks who asks as
every page does (docs/decisions.md says why).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
import time
from collections.abc import Callable

from flask import (
    Flask,
    Response,
    current_app,
    make_response,
    render_template,
    request,
)

from app.admin.access import tenant_or_404
from app.admin.blueprint import bp
from app.admin.sessions import current_token, session_limits
from app.db.transactions import transaction_mode
from app.extensions import db
from app.models import Tenant
from app.models.types import utcnow
from app.services.people import sessions
from app.services.reports import live
from app.web.broadcast import TOKEN_SECONDS, Viewer, stream_response

# How often the pages ask, in milliseconds: within the 2 seconds a change must show in.
POLL_MS = 1000
# Headers of a stream: never cached, never held back by a proxy that buffers answers.
LIVE_PATH = re.compile(r"/tenants/(\d+)/(?:wallboard/live|agents/live|campaigns/\d+/progress)")


def etag_of(token: str, secret: str) -> str:
    """The ETag of a change token: signed, so that it cannot be guessed from the outside
    (a 304 tells only whoever already holds the ETag that nothing changed)."""
    return hmac.new(secret.encode(), token.encode(), hashlib.sha256).hexdigest()[:32]


def live_answer(tenant: Tenant, render: Callable[[str], str]):
    """304 when the viewer's ETag is the tenant's current one; else `render(token)`,
    tagged with it."""
    token = live.change_token(tenant, utcnow())
    etag = etag_of(token, current_app.config["SECRET_KEY"])
    if etag in request.if_none_match:
        response = make_response("", 304)
    else:
        response = make_response(render(token))
    response.headers["ETag"] = f'"{etag}"'
    return response


def page_etag(tenant: Tenant) -> str:
    """The ETag a page starts its polls with (read before its figures: a change meanwhile
    shows at the first poll)."""
    return f'"{etag_of(live.change_token(tenant, utcnow()), current_app.config["SECRET_KEY"])}"'


class UnchangedFirst:
    """WSGI middleware: a live poll whose ETag is the tenant's current one is answered 304
    at once; every other request goes on to the app."""

    def __init__(self, app: Flask, wsgi_app) -> None:
        self.app, self.wsgi_app = app, wsgi_app
        self.lock = threading.Lock()
        self.known: dict[int, tuple[float, str | None]] = {}

    def __call__(self, request_env, start_response):
        sent = request_env.get("HTTP_IF_NONE_MATCH", "")
        found = LIVE_PATH.fullmatch(request_env.get("PATH_INFO", "")) if sent else None
        if found and request_env.get("REQUEST_METHOD") == "GET":
            etag = self.current(int(found.group(1)))
            if etag is not None and sent.strip() == f'"{etag}"':
                headers = [("ETag", f'"{etag}"'), ("Cache-Control", "no-store")]
                start_response("304 Not Modified", headers)
                return [b""]
        return self.wsgi_app(request_env, start_response)

    def current(self, tenant_id: int) -> str | None:
        """The tenant's current ETag, read again when older than LIVE_TOKEN_SECONDS."""
        fresh_for = self.app.config.get("LIVE_TOKEN_SECONDS", TOKEN_SECONDS)
        now = time.monotonic()
        with self.lock:
            known = self.known.get(tenant_id)
        if known is not None and now - known[0] < fresh_for:
            return known[1]
        with self.app.app_context(), transaction_mode(read_only=True):
            try:
                token = live.change_token(tenant_id) if db.session.get(Tenant, tenant_id) else None
            finally:
                db.session.remove()
        etag = None if token is None else etag_of(token, self.app.config["SECRET_KEY"])
        with self.lock:
            self.known[tenant_id] = (now, etag)
        return etag


def answer_unchanged_first(app) -> None:
    """Answer a live page's conditional GET before the app runs (`UnchangedFirst`); the
    app factory installs it."""
    app.wsgi_app = UnchangedFirst(app, app.wsgi_app)


def no_csrf_token() -> str:
    """A part rendered once for every viewer holds no one's CSRF token: static/live.js puts
    the page's own in its forms."""
    return ""


def live_stream(
    tenant: Tenant, render: Callable[[Tenant], str | None], query: dict[str, str] | None = None
) -> Response:
    """The stream of the live part at this request's path (and `query`, the only arguments
    it depends on) of `tenant`, for the supervisor who asks, already authorized:
    `render(tenant)` renders it once per change for every viewer of the process, in a
    request context of its own (None: it is gone). It ends once the supervisor may no
    longer watch (signed out, removed, the tenant no longer theirs). Refused when the
    process serves its most streams (of all, of this session, of this tenant): the page
    then polls."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    secret, tenant_id, query = app.config["SECRET_KEY"], tenant.id, query or {}
    token, limits = current_token() or "", session_limits()
    viewer = Viewer(
        sessions.session_key(token),
        tenant_id,
        lambda: sessions.why_watching_ends(token, limits, tenant_id),
    )
    base_url, path = request.host_url + request.script_root.lstrip("/"), request.path

    def probe() -> str | None:
        if db.session.get(Tenant, tenant_id) is None:
            return None
        return f'"{etag_of(live.change_token(tenant_id, utcnow()), secret)}"'

    def rendered() -> str | None:
        with app.test_request_context(path, base_url=base_url, query_string=query):
            found = db.session.get(Tenant, tenant_id)
            return render(found) if found is not None else None

    key = (path, tuple(sorted(query.items())))  # the path names the tenant and the part
    return stream_response(key, probe, rendered, viewer=viewer)


@bp.get("/tenants/<int:tenant_id>/wallboard")
def wallboard(tenant_id: int):
    """Agents by state, each queue's open tasks, attempts and contacts: for a wall screen."""
    tenant = tenant_or_404(tenant_id)
    etag = page_etag(tenant)
    return render_template(
        "admin/wallboard.html",
        tenant=tenant,
        board=live.wallboard(tenant),
        poll_ms=POLL_MS,
        live_etag=etag,
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


@bp.get("/tenants/<int:tenant_id>/wallboard/stream")
def wallboard_stream(tenant_id: int):
    """The wallboard's figures as server-sent events: sent again whenever they change."""
    return live_stream(
        tenant_or_404(tenant_id),
        lambda tenant: render_template(
            "admin/_wallboard.html", tenant=tenant, board=live.wallboard(tenant)
        ),
    )
