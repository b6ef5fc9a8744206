"""Supervisors signing in to the console through its identity provider (app/web/sso_flow):
the groups the provider gives decide who is a supervisor and which tenants they see; local
passwords are then for break-glass accounts only (app/services/people/supervisors)."""

from __future__ import annotations

from flask import current_app, redirect, render_template, request, session, url_for

from app.admin.auth import console_realm, safe_next
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.sessions import current_token, sign_in
from app.extensions import db, limiter
from app.models import IdentityProvider, ProviderKind
from app.services.people import sessions
from app.services.sso.identity import Identity, SignInRefused, supervisor_for
from app.services.sso.providers import provider_for
from app.web import oidc_flow, sso_flow


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
