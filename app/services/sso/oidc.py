"""OpenID Connect relying party: a provider's settings checked against its discovery
document, the authorization request (code flow, PKCE S256, state, nonce), and the provider's
answer (the code exchanged at its token endpoint, the ID token's signature and claims
checked) turned into an `Identity`.

What the provider publishes (its discovery document, its keys) comes from `oidc_published`.
Every call to a provider, to the addresses it publishes too (token, user info), goes
through the outbound guard (`app/services/outbound/fetch.py`): public addresses only, the
connection pinned to the address checked, short timeouts, no redirect for the token (the
client secret goes to the checked token endpoint or nowhere).
"""

from __future__ import annotations

import base64
import json
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import requests
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.errors import JoseError

from app.services.errors import InvalidInput
from app.services.fields import OIDC_CLIENT_ID, OIDC_ISSUER, OIDC_LOGIN_CLAIM
from app.services.outbound import fetch
from app.services.sso import replays
from app.services.sso.identity import Identity, SignInRefused
from app.services.sso.oidc_published import (
    ProviderSilent,
    ProviderUnavailable,
    discovery,
    discovery_url,
    get_json,
    key_set,
)

# How this module's refusals name their fields.
CLIENT_ID = OIDC_CLIENT_ID.said_as("client_id")
ISSUER = OIDC_ISSUER.said_as("issuer")
LOGIN_CLAIM = OIDC_LOGIN_CLAIM.said_as("login_claim")

SKEW = timedelta(seconds=60)
LOGIN_CLAIMS = ("email", "preferred_username")
# Signatures by the provider's published (public) keys only: never `none`, never an HMAC
# that a public key could be made to verify.
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
              "EdDSA")  # fmt: skip
SCOPES = ("openid", "email", "profile")
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


# --- settings ----------------------------------------------------------------------------


def _checked_issuer(issuer: str) -> str:
    issuer = (issuer or "").strip()
    parts = urlsplit(issuer)
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.query or parts.fragment:
        raise InvalidInput("issuer must be an https:// URL", field=ISSUER)
    # Plain http only on this machine's own addresses (a provider run beside the service).
    if parts.scheme == "http" and parts.hostname not in LOOPBACK:
        raise InvalidInput("issuer must be an https:// URL", field=ISSUER)
    return issuer


def settings_from(
    issuer: str,
    client_id: str,
    login_claim: str = "email",
    console: dict | None = None,
) -> dict:
    """Checked settings of an OpenID provider: the issuer's discovery document is fetched
    and must name exactly this issuer and offer the code flow with keys to sign ID tokens;
    `console` is the console's group mapping (None for a tenant's provider)."""
    issuer = _checked_issuer(issuer)
    client_id = (client_id or "").strip()
    if not client_id or len(client_id) > 255:
        raise InvalidInput("client_id must be 1 to 255 characters", field=CLIENT_ID)
    if login_claim not in LOGIN_CLAIMS:
        raise InvalidInput(
            f"login_claim must be one of {', '.join(LOGIN_CLAIMS)}", field=LOGIN_CLAIM
        )
    try:
        document = discovery(issuer, fresh=True)
    except ProviderSilent:
        raise InvalidInput(
            "issuer could not be read: the address did not answer with an OpenID provider's"
            f" discovery document ({discovery_url(issuer)})",
            field=ISSUER,
        ) from None
    except ProviderUnavailable as failure:
        raise InvalidInput(
            f"issuer: {failure.message} ({discovery_url(issuer)})",
            field=ISSUER,
        ) from None
    for needed in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        if not document.get(needed):
            raise InvalidInput(f"issuer: the provider advertises no {needed}", field=ISSUER)
    if "code" not in document.get("response_types_supported", ["code"]):
        raise InvalidInput("issuer: the provider does not offer the code flow", field=ISSUER)
    pkce = document.get("code_challenge_methods_supported")
    if pkce is not None and "S256" not in pkce:
        raise InvalidInput("issuer: the provider does not offer PKCE with S256", field=ISSUER)
    signing = document.get("id_token_signing_alg_values_supported", ["RS256"])
    if not set(signing) & set(ALGORITHMS):
        raise InvalidInput(
            "issuer: the provider signs ID tokens with no public-key algorithm", field=ISSUER
        )
    methods = document.get("token_endpoint_auth_methods_supported", ["client_secret_basic"])
    method = next((m for m in ("client_secret_basic", "client_secret_post") if m in methods), None)
    if method is None:
        raise InvalidInput(
            "issuer: the provider takes neither client_secret_basic nor client_secret_post",
            field=ISSUER,
        )
    scopes = list(SCOPES)
    groups_claim = (console or {}).get("groups_claim")
    if groups_claim and groups_claim in document.get("scopes_supported", []):
        scopes.append(groups_claim)
    return {
        "issuer": issuer,
        "client_id": client_id,
        "login_claim": login_claim,
        "scopes": scopes,
        "token_auth_method": method,
        **(console or {}),
    }


# --- the authorization request -----------------------------------------------------------


def authorization_request(settings: dict, redirect_uri: str) -> tuple[str, dict]:
    """Where to send the browser, and what its answer must then match (state, nonce, the
    PKCE verifier; kept by the caller until the answer, used once)."""
    document = discovery(settings["issuer"])
    pending = {
        "state": secrets.token_urlsafe(32),
        "nonce": secrets.token_urlsafe(32),
        "verifier": secrets.token_urlsafe(48),
        "redirect_uri": redirect_uri,
    }
    query = {
        "response_type": "code",
        "client_id": settings["client_id"],
        "redirect_uri": redirect_uri,
        "scope": " ".join(settings.get("scopes", SCOPES)),
        "state": pending["state"],
        "nonce": pending["nonce"],
        "code_challenge": create_s256_code_challenge(pending["verifier"]),
        "code_challenge_method": "S256",
    }
    endpoint = document["authorization_endpoint"]
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{urlencode(query)}", pending


# --- the answer --------------------------------------------------------------------------


def exchange_code(settings: dict, secret: str | None, code: str, pending: dict) -> dict:
    """The provider's tokens for the authorization code (client authentication as the
    provider advertised it, the PKCE verifier)."""
    document = discovery(settings["issuer"])
    session = fetch.guard(
        OAuth2Session(
            settings["client_id"],
            secret,
            token_endpoint_auth_method=settings.get("token_auth_method", "client_secret_basic"),
            redirect_uri=pending["redirect_uri"],
        )
    )
    try:
        tokens = session.fetch_token(
            document["token_endpoint"],
            grant_type="authorization_code",
            code=code,
            code_verifier=pending["verifier"],
            timeout=fetch.timeouts(),
        )
    except requests.RequestException as failure:
        fetch.log.info("the token endpoint gave nothing usable: %s", type(failure).__name__)
        raise ProviderSilent() from None
    except (AuthlibBaseError, ValueError) as failure:  # an error answer, or an unreadable one
        error = getattr(failure, "error", None) or "an unreadable answer"
        raise SignInRefused(f"Your identity provider refused the sign-in ({error}).") from None
    finally:
        session.close()
    if not isinstance(tokens, dict) or not isinstance(tokens.get("id_token"), str):
        raise SignInRefused("Your identity provider gave no ID token.")
    return dict(tokens)


def _decode(token: str, issuer: str) -> dict:
    try:
        header = json.loads(_b64(token.split(".")[0]))
    except ValueError:
        header = None
    if not isinstance(header, dict):
        raise SignInRefused("The identity provider's ID token is unreadable.")
    if header.get("alg") not in ALGORITHMS:
        raise SignInRefused("The identity provider's ID token is not signed with its keys.")
    keys = key_set(issuer, header.get("kid"))
    try:
        return dict(jwt.decode(token, keys, algorithms=list(ALGORITHMS)).claims)
    except (JoseError, ValueError) as failure:
        raise SignInRefused(
            "The identity provider's ID token is not signed with its keys."
        ) from failure


def _b64(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def _instant(claims: dict, name: str) -> datetime:
    value = claims.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SignInRefused(f"The identity provider's ID token has no valid '{name}'.")
    return datetime.fromtimestamp(value, UTC)


def id_token_claims(settings: dict, token: str, nonce: str, now: datetime) -> dict:
    """The ID token's claims once its signature (the provider's keys), issuer, audience
    (and authorized party), lifetime (with `SKEW` either side of `now`) and nonce are
    checked."""
    issuer = settings["issuer"]
    claims = _decode(token, issuer)
    if claims.get("iss") != issuer:
        raise SignInRefused("The ID token was issued by another identity provider.")
    audience = claims.get("aud")
    audiences = [audience] if isinstance(audience, str) else audience
    if not isinstance(audiences, list) or settings["client_id"] not in audiences:
        raise SignInRefused("The ID token was issued for another application.")
    if (len(audiences) > 1 or "azp" in claims) and claims.get("azp") != settings["client_id"]:
        raise SignInRefused("The ID token was issued for another application.")
    if _instant(claims, "exp") + SKEW < now:
        raise SignInRefused("The sign-in took too long and expired. Please start again.")
    if _instant(claims, "iat") - SKEW > now:
        raise SignInRefused("The ID token was issued in the future; check the clocks.")
    if not isinstance(claims.get("nonce"), str) or not secrets.compare_digest(
        claims["nonce"], nonce
    ):
        raise SignInRefused("The ID token does not belong to this sign-in.")
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise SignInRefused("The ID token names nobody.")
    return claims


def _userinfo(settings: dict, access_token: str | None, subject: str) -> dict:
    endpoint = discovery(settings["issuer"]).get("userinfo_endpoint")
    if not endpoint or not access_token:
        return {}
    info = get_json(endpoint, {"Authorization": f"Bearer {access_token}"})
    # Userinfo about anyone else than the ID token's subject is ignored (OpenID Core 5.3.2).
    return info if isinstance(info, dict) and info.get("sub") == subject else {}


def _login(settings: dict, claims: dict) -> str:
    name = settings.get("login_claim", "email")
    value = claims.get(name)
    if name == "email" and claims.get("email_verified") is False:
        raise SignInRefused("Your identity provider has not verified your e-mail address.")
    if not isinstance(value, str) or not value.strip():
        raise SignInRefused(f"Your identity provider gave no '{name}' to sign you in with.")
    return value.strip()


def _groups(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(v) for v in value if isinstance(v, str | int))
    return ()


def identity_from(
    settings: dict, secret: str | None, code: str, pending: dict, now: datetime
) -> Identity:
    """The person the provider's answer vouches for: the code exchanged, the ID token
    checked and accepted once (its `jti`, else its nonce), the login from the configured
    claim, the console's groups from the ID token or else from userinfo."""
    return identity_of(settings, exchange_code(settings, secret, code, pending), pending, now)


def identity_of(settings: dict, tokens: dict, pending: dict, now: datetime) -> Identity:
    """The person the token endpoint's answer names, once its ID token is checked and
    accepted for the first time."""
    claims = id_token_claims(settings, tokens["id_token"], pending["nonce"], now)
    issuer = settings["issuer"]
    login = _login(settings, claims)
    jti = claims.get("jti")
    once = f"jti:{jti}" if isinstance(jti, str) else f"nonce:{claims['nonce']}"
    if not replays.first_use(issuer, once, _instant(claims, "exp") + SKEW, now):
        raise SignInRefused("This sign-in was already used. Please start again.")
    groups: tuple[str, ...] = ()
    if groups_claim := settings.get("groups_claim"):
        if groups_claim in claims:
            groups = _groups(claims[groups_claim])
        else:
            info = _userinfo(settings, tokens.get("access_token"), claims["sub"])
            groups = _groups(info.get(groups_claim))
    return Identity(
        kind="oidc",
        issuer=issuer,
        subject=claims["sub"],
        login=login,
        groups=groups,
        logout_url=discovery(issuer).get("end_session_endpoint"),
        email_verified=settings.get("login_claim", "email") == "email"
        and claims.get("email_verified") is True,
    )


def end_session_url(logout_url: str, client_id: str, after: str) -> str:
    """The provider's end-session endpoint, asked to come back to `after` (RP-initiated
    logout, with the client id in place of the ID token, which is not kept)."""
    query = urlencode({"client_id": client_id, "post_logout_redirect_uri": after})
    return f"{logout_url}{'&' if '?' in logout_url else '?'}{query}"
