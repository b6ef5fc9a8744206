"""Response headers and cookies that keep the browser side safe by default."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, request
from flask.sessions import SecureCookieSessionInterface
from flask_login import current_user

from app.web.api_paths import is_api_path

# No inline script or style anywhere: every asset is a file served by the app.
POLICY_DIRECTIVES = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)
CONTENT_SECURITY_POLICY = "; ".join(POLICY_DIRECTIVES)


def web_origin(url: str | None) -> str | None:
    """The origin (scheme://host[:port]) of an http or https URL; None for anything else
    (another scheme, no host, a host with spaces, quotes or semicolons that would break
    out of a policy)."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        return None
    if any(ch in host for ch in " ;,'\"\\") or not host.isascii():
        return None
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def framing_policy(origin: str) -> str:
    """The policy of a page that embeds one other site's frame (the desk's Contact Control
    Panel): the same as every page's, plus that origin, and only it, for frames and for
    the connections its library makes."""
    extra = (f"frame-src {origin}", f"connect-src 'self' {origin}")
    return "; ".join((*POLICY_DIRECTIVES, *extra))


# Browsers that once reached the service over HTTPS never try plain HTTP again for a year.
STRICT_TRANSPORT_SECURITY = "max-age=31536000; includeSubDomains"


class SessionInterface(SecureCookieSessionInterface):
    """The session cookie is Secure whenever the request came over HTTPS. The JSON APIs
    authenticate by headers alone: on their paths the cookie is neither read (an empty
    session) nor written."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)

    def open_session(self, app: Flask, request):
        if is_api_path(request.path):
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app: Flask, session, response) -> None:
        if not is_api_path(request.path):
            super().save_session(app, session, response)


def register_security(app: Flask) -> None:
    app.session_interface = SessionInterface()

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if response.mimetype == "text/html":
            response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            response.headers.setdefault("X-Frame-Options", "DENY")
        if request.is_secure:  # behind a proxy, once TRUST_PROXY lets its header say so
            response.headers.setdefault("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY)
        if _shows_tenant_data():
            response.headers["Cache-Control"] = "no-store"
        return response


def _shows_tenant_data() -> bool:
    """Every JSON API answer (tasks, people's names and numbers; its errors too, which
    cost nothing to leave uncached) and every page a signed-in supervisor gets shows some
    tenant's data: none may stay in a browser's or proxy's cache. Static assets, the API
    document and the sign-in page may. (The desk's pages say so themselves.)"""
    if is_api_path(request.path):
        return True
    return request.blueprint == "admin" and current_user.is_authenticated


def local_path(target: str | None, prefix: str = "/") -> str | None:
    """`target` when it is a path on this site under `prefix` (a safe `next`), else None."""
    if not target:
        return None
    parts = urlsplit(target)
    if (
        not parts.scheme
        and not parts.netloc
        and target.startswith(prefix)
        and not target.startswith("//")
        and "\\" not in target
    ):
        return target
    return None
