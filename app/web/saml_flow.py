"""The browser's side of SAML 2.0 sign-in (app/services/sso/saml), for the desk and the
console alike.

The provider answers with a cross-site POST, which carries no SameSite=Lax session cookie:
what the answer must match (our request's id, the realm, where to go next) therefore
travels in RelayState as a token signed with SECRET_KEY and good for a few minutes, never
in the session.
"""

from __future__ import annotations

import secrets

from flask import Response, current_app, make_response, render_template, request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.models import IdentityProvider
from app.services.sso import saml
from app.services.sso.identity import Identity, SignInRefused
from app.web.sso_realm import Realm

RELAY_MAX_AGE = 600  # seconds a sign-in (or sign-out) at the provider may take
SIGN_IN, SIGN_OUT = "in", "out"


def _relay() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="saml-relay-state")


def endpoints(realm: Realm) -> saml.Endpoints:
    return saml.Endpoints(realm.url("metadata"), realm.url("acs"), realm.url("slo"))


def _request_id() -> str:
    return "id-" + secrets.token_hex(16)  # an xs:ID starts with a letter


def begin(provider: IdentityProvider, realm: Realm, next_path: str | None) -> Response:
    """Send the browser to the provider with our AuthnRequest (HTTP-Redirect)."""
    request_id = _request_id()
    relay = _relay().dumps([SIGN_IN, request_id, realm.key, next_path or ""])
    address = saml.sign_in_url(provider.settings, endpoints(realm), request_id, relay)
    return _onward(address, "Signing you in")


def metadata(realm: Realm) -> Response:
    """Our service provider's metadata for the realm (what the provider is given)."""
    body = saml.metadata(endpoints(realm))
    return Response(body, mimetype="application/samlmetadata+xml")


def _relayed(realm: Realm, step: str, relay_state: str) -> tuple[str, str]:
    """The request id and next path a RelayState token carries, checked to be ours, this
    realm's and this step's, and recent."""
    try:
        found = _relay().loads(relay_state, max_age=RELAY_MAX_AGE)
        kind, request_id, realm_key, next_path = found
    except (BadSignature, TypeError, ValueError):
        raise SignInRefused(
            "The sign-in took too long or did not start here. Start it again."
        ) from None
    if kind != step or realm_key != realm.key:
        raise SignInRefused("The sign-in did not start here. Start it again.")
    return request_id, next_path


def accept(provider: IdentityProvider, realm: Realm) -> tuple[Identity, str]:
    """Who the posted answer (SAMLResponse, RelayState) signed in, and where to go next;
    SignInRefused saying why not."""
    answer = request.form.get("SAMLResponse", "")
    if not answer:
        raise SignInRefused("The identity provider's answer is missing. Start again.")
    request_id, next_path = _relayed(realm, SIGN_IN, request.form.get("RelayState", ""))
    return saml.identity_from(provider.settings, endpoints(realm), answer, request_id), next_path


def logout(provider: IdentityProvider, realm: Realm, state: dict) -> Response | None:
    """Send the browser to the provider's single logout with our LogoutRequest, when it
    offers one; None otherwise."""
    request_id = _request_id()
    relay = _relay().dumps([SIGN_OUT, request_id, realm.key, ""])
    address = saml.sign_out_url(
        provider.settings,
        endpoints(realm),
        state.get("subject") or "",
        state.get("session_index"),
        request_id,
        relay,
    )
    return _onward(address, "Signing you out") if address else None


def _onward(address: str, heading: str) -> Response:
    """A page that sends the browser on to the provider at once (templates/sso/continue)."""
    page = make_response(render_template("sso/continue.html", url=address, title=heading))
    page.headers["Cache-Control"] = "no-store"
    page.headers["Referrer-Policy"] = "no-referrer"
    return page


def signed_out(provider: IdentityProvider, realm: Realm) -> bool:
    """Whether the provider's LogoutResponse in this request answers our sign-out."""
    answer = request.args.get("SAMLResponse", "")
    try:
        request_id, _ = _relayed(realm, SIGN_OUT, request.args.get("RelayState", ""))
    except SignInRefused:
        return False
    return bool(answer) and saml.signed_out(provider.settings, endpoints(realm), answer, request_id)
