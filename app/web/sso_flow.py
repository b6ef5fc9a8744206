"""The browser's side of signing in through an identity provider, shared by the desk and
the console: where the provider sends the browser back (a `Realm`), starting a sign-in
(`begin`) and signing out there too (`provider_logout`), each by the provider's protocol
(`saml_flow`, `oidc_flow`, whose `accept` reads the provider's answer into an `Identity`).
The door that asked then signs its own kind of person in.

What a sign-in waits for (the SAML request's id, OpenID's state, nonce and PKCE verifier)
is kept in the signed session cookie under `PENDING_KEY`, one sign-in at a time per
browser, and used once.
"""

from __future__ import annotations

from flask import Response, abort

from app.models import IdentityProvider, ProviderKind
from app.web import oidc_flow, saml_flow
from app.web.sso_realm import LOGOUT_KEY, PENDING_KEY, Realm

# The protocols' flows import these from app.web.sso_realm (this module dispatches to them).
__all__ = ["LOGOUT_KEY", "PENDING_KEY", "Realm", "begin", "logout_state", "provider_logout"]


def begin(provider: IdentityProvider, realm: Realm, next_path: str | None = None) -> Response:
    """Send the browser to the provider (SAML or OpenID Connect)."""
    if provider.kind == ProviderKind.SAML:
        return saml_flow.begin(provider, realm, next_path)
    if provider.kind == ProviderKind.OIDC:
        return oidc_flow.begin(provider, realm, next_path)
    abort(404)


def logout_state(identity) -> dict:
    """What the session keeps for a later sign-out at the provider (no secret)."""
    return {
        "kind": identity.kind,
        "issuer": identity.issuer,
        "subject": identity.subject,
        "session_index": identity.session_index,
        "logout_url": identity.logout_url,
    }


def provider_logout(provider: IdentityProvider | None, realm: Realm, state: dict | None):
    """Where to send the browser to sign out at the provider too, when the person signed in
    through it and it offers a sign-out (SAML single logout, OpenID's end-session
    endpoint); None otherwise. The session here has already ended."""
    if provider is None or not state or state.get("kind") != provider.kind:
        return None
    if provider.kind == ProviderKind.SAML:
        return saml_flow.logout(provider, realm, state)
    if provider.kind == ProviderKind.OIDC:
        return oidc_flow.logout(provider, realm, state)
    return None
