"""Supervisors signing in to the console through its identity provider (app/web/sso_flow):
the groups the provider gives decide who is a supervisor and which tenants they see; local
passwords are then for break-glass accounts only (app/services/people/supervisors)."""

from __future__ import annotations

from flask import current_app, flash, redirect, render_template, request, session, url_for

from app.admin.auth import console_realm, safe_next
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.sessions import current_token, sign_in
from app.extensions import csrf, db, limiter
from app.models import IdentityProvider, ProviderKind
from app.services.people import sessions
from app.services.sso.identity import Identity, SignInRefused, supervisor_for
from app.services.sso.providers import provider_for
from app.web import oidc_flow, saml_flow, sso_flow


@bp.route("/sso/start", methods=["GET", "POST"])
@limiter.limit(lambda: current_app.config["LOGIN_RATE_LIMIT"], methods=["POST"])
def sso_start():
    """Send the supervisor to the console's identity provider (a POST with its CSRF token;
    a GET, such as a reload, goes back to the sign-in page)."""
    provider = provider_for(None)
    if request.method == "GET" or provider is None or not ConfirmForm().validate_on_submit():
        return redirect(url_for("admin.login"))
    return sso_flow.begin(provider, console_realm(), request.args.get("next"))


def finish(provider: IdentityProvider, identity: Identity, next_path: str | None):
    """Sign in the supervisor the provider vouched for, or say clearly why not (nothing is
    created for a person whose groups grant nothing)."""
    try:
        supervisor = supervisor_for(provider, identity)
    except SignInRefused as refused:
        db.session.rollback()
        return render_template("auth/sso_refused.html", message=refused.message), 403
    sessions.end_session(current_token())
    sign_in(supervisor)
    session[sso_flow.LOGOUT_KEY] = sso_flow.logout_state(identity)
    db.session.commit()
    return redirect(safe_next(next_path))


# SAML 2.0 (app/web/saml_flow): our metadata, the provider's answer, its sign-out's return.


def _saml_provider() -> IdentityProvider | None:
    provider = provider_for(None)
    return provider if provider is not None and provider.kind == ProviderKind.SAML else None


@bp.get("/sso/saml/metadata")
def sso_metadata():
    """The console's SAML service-provider metadata (give its URL to the identity
    provider); its URL is also the service provider's entity id."""
    return saml_flow.metadata(console_realm())


@bp.route("/sso/saml/acs", methods=["GET", "POST"])
@limiter.limit(lambda: current_app.config["LOGIN_RATE_LIMIT"], methods=["POST"])
@csrf.exempt  # the identity provider's own form posts here, with RelayState as its check
def sso_acs():
    """The identity provider's answer (HTTP-POST): the supervisor it vouches for is signed
    in, or a page says why not; a GET goes back to the sign-in page."""
    provider = _saml_provider()
    if request.method == "GET" or provider is None:
        return redirect(url_for("admin.login"))
    try:
        identity, next_path = saml_flow.accept(provider, console_realm())
    except SignInRefused as refused:
        db.session.rollback()
        return render_template("auth/sso_refused.html", message=refused.message), 400
    return finish(provider, identity, next_path)


@bp.get("/sso/saml/slo")
def sso_slo():
    """Where the identity provider's single logout returns: the sign-in page, saying the
    supervisor is signed out there too when its answer says so."""
    provider = _saml_provider()
    if provider is not None and saml_flow.signed_out(provider, console_realm()):
        flash("You are signed out at your identity provider too.")
    return redirect(url_for("admin.login"))


@bp.get("/sso/oidc/callback")
def sso_oidc_callback():
    """The OpenID provider's answer (app/web/oidc_flow): the supervisor its groups make is
    signed in, or a clear page says why not."""
    provider = provider_for(None)
    if provider is None or provider.kind != ProviderKind.OIDC:
        return redirect(url_for("admin.login"))
    answer = oidc_flow.accept(provider, console_realm())
    if not isinstance(answer, oidc_flow.Accepted):
        return answer
    return finish(provider, answer.identity, answer.next_path)
