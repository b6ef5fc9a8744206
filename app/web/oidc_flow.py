"""The browser's side of OpenID Connect, for the desk and the console alike: `begin` sends
the browser to the provider, `accept` reads the provider's answer at the callback into an
`Identity`, `logout` sends a signed-out person to the provider's end-session endpoint.

What the answer must match (state, nonce, PKCE verifier) waits in the signed session cookie
under `PENDING_KEY`; the callback is a top-level GET, so the cookie (SameSite=Lax) comes
back with it. It is taken out at the first answer, whatever that answer is: used once.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import Response, render_template, request, session, url_for

from app.extensions import db
from app.models import IdentityProvider
from app.models.types import utcnow
from app.services.errors import ServiceError
from app.services.sso import oidc, providers
from app.services.sso.identity import Identity, SignInRefused
from app.web.sso_realm import PENDING_KEY, Realm

# How long a started sign-in waits for the provider's answer.
PENDING_FOR = timedelta(minutes=10)
START_AGAIN = "This sign-in has expired or was already used. Please start again."


@dataclass(frozen=True)
class Accepted:
    """A provider's answer that signs someone in: who, and where they were going."""

    identity: Identity
    next_path: str | None


def _refused(realm: Realm, message: str, status: int = 403) -> Response:
    if realm.tenant is None:
        page = render_template("auth/sso_refused.html", message=message)
    else:
        page = render_template("desk/sso_refused.html", tenant=realm.tenant, message=message)
    return Response(page, status)


def begin(provider: IdentityProvider, realm: Realm, next_path: str | None = None) -> Response:
    """Send the browser to the provider's authorization endpoint (code flow, PKCE)."""
    try:
        url, pending = oidc.authorization_request(provider.settings, realm.url("oidc_callback"))
    except SignInRefused as refused:
        return _refused(realm, refused.message, 424)
    session[PENDING_KEY] = {
        **pending,
        "kind": "oidc",
        "realm": realm.key,
        "provider": provider.id,
        "next": next_path,
        "started": utcnow().isoformat(),
    }
    return onward(url, "Signing you in")


def accept(provider: IdentityProvider, realm: Realm) -> Accepted | Response:
    """The provider's answer at the callback: the person it vouches for, or a clear page
    saying why nobody is signed in (nothing is changed then)."""
    pending = session.pop(PENDING_KEY, None)
    if not _waiting(pending, provider, realm):
        return _refused(realm, START_AGAIN, 400)
    state = request.args.get("state", "")
    if not secrets.compare_digest(state.encode(), pending["state"].encode()):
        return _refused(realm, START_AGAIN, 400)
    # RFC 9207: a provider that names itself in its answer must name the one asked.
    if request.args.get("iss", provider.settings["issuer"]) != provider.settings["issuer"]:
        return _refused(realm, "The answer came from another identity provider.")
    if error := request.args.get("error"):
        described = (request.args.get("error_description") or error)[:300]
        return _refused(realm, f"Your identity provider did not sign you in: {described}")
    code = request.args.get("code")
    if not code:
        return _refused(realm, "Your identity provider's answer has no authorization code.", 400)
    try:
        identity = oidc.identity_from(
            provider.settings, providers.secret_of(provider), code, pending, utcnow()
        )
    except oidc.ProviderUnavailable as down:
        db.session.rollback()
        return _refused(realm, down.message, 424)
    except ServiceError as refused:
        db.session.rollback()
        return _refused(realm, refused.message)
    return Accepted(identity, pending.get("next"))


def _waiting(pending, provider: IdentityProvider, realm: Realm) -> bool:
    if not isinstance(pending, dict) or pending.get("kind") != "oidc":
        return False
    if pending.get("realm") != realm.key or pending.get("provider") != provider.id:
        return False
    try:
        started = datetime.fromisoformat(pending["started"])
    except (KeyError, TypeError, ValueError):
        return False
    return started + PENDING_FOR >= utcnow()


def logout(provider: IdentityProvider, realm: Realm, state: dict) -> Response | None:
    """The provider's end-session endpoint, coming back to the realm's sign-in page, when
    the provider advertised one at sign-in; None otherwise."""
    logout_url = state.get("logout_url")
    if not logout_url or state.get("issuer") != provider.settings.get("issuer"):
        return None
    after = signed_out_url(realm)
    return onward(
        oidc.end_session_url(logout_url, provider.settings["client_id"], after), "Signing out"
    )


def onward(url: str, title: str) -> Response:
    """A page that sends the browser on to the provider at once. Not a redirect: the
    buttons that lead here are forms, and a form may lead only to this site (the pages'
    form-action 'self'), through redirects too."""
    response = Response(render_template("sso/continue.html", url=url, title=title))
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def signed_out_url(realm: Realm) -> str:
    """Where the provider sends the browser after signing out there: the realm's sign-in
    page (register it at the provider as a post-logout redirect URI)."""
    if realm.tenant is None:
        return url_for("admin.login", _external=True)
    return url_for(
        "desk.tenant_login",
        company=realm.tenant.company_code,
        environment=realm.tenant.environment,
        _external=True,
    )
