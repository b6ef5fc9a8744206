"""Agents signing in through their company's identity provider (app/web/sso_flow): the
button on the tenant's own sign-in page starts it; the provider's answer signs in the
provisioned agent it names, and nobody else."""

from __future__ import annotations

from flask import current_app, flash, redirect, render_template, request, session, url_for

from app.desk import auth, bp
from app.desk.forms import DeskButtonForm
from app.extensions import csrf, db, limiter
from app.models import ProviderKind, Tenant
from app.services.sso.identity import Identity, SignInRefused, agent_for
from app.services.sso.providers import provider_for
from app.services.tenants.setup import find_tenant
from app.web import oidc_flow, saml_flow, sso_flow
from app.web.security import local_path

realm_of = auth.sso_realm


def _tenant_and_provider(company: str, environment: str):
    tenant = find_tenant(current_app.config["PLATFORM_CODE"], company, environment)
    provider = provider_for(tenant) if tenant is not None else None
    return tenant, provider


@bp.route("/sso/<company>/<environment>/start", methods=["GET", "POST"])
@limiter.limit(lambda: current_app.config["LOGIN_RATE_LIMIT"], methods=["POST"])
def sso_start(company: str, environment: str):
    """Send the agent to the tenant's identity provider (a POST with its CSRF token; a GET,
    such as a reload, goes back to the tenant's sign-in page)."""
    tenant, provider = _tenant_and_provider(company, environment)
    if tenant is None:
        return render_template("desk/tenant_unknown.html"), 404
    if request.method == "GET" or provider is None or not DeskButtonForm().validate_on_submit():
        return redirect(url_for("desk.tenant_login", company=company, environment=environment))
    return sso_flow.begin(provider, realm_of(tenant), local_path(request.args.get("next"), "/desk"))


def finish(tenant: Tenant, identity: Identity, next_path: str | None):
    """Sign in the tenant's provisioned agent the provider vouched for, or say clearly why
    not (nothing is created for anyone else)."""
    try:
        agent = agent_for(tenant, identity)
    except SignInRefused as refused:
        db.session.rollback()
        page = render_template("desk/sso_refused.html", tenant=tenant, message=refused.message)
        return page, 403
    auth.sign_in(agent)
    session[sso_flow.LOGOUT_KEY] = sso_flow.logout_state(identity)
    db.session.commit()
    response = redirect(local_path(next_path, "/desk") or url_for("desk.home"))
    return auth.remember_tenant(response, tenant)


# SAML 2.0 (app/web/saml_flow): our metadata, the provider's answer, its sign-out's return.


def _saml_tenant(company: str, environment: str):
    """The tenant and its SAML provider, or the response that says there is none."""
    tenant, provider = _tenant_and_provider(company, environment)
    if tenant is None:
        return None, None, (render_template("desk/tenant_unknown.html"), 404)
    if provider is None or provider.kind != ProviderKind.SAML:
        return tenant, None, redirect(auth.tenant_login_url(tenant))
    return tenant, provider, None


@bp.get("/sso/<company>/<environment>/saml/metadata")
def sso_metadata(company: str, environment: str):
    """The desk's SAML service-provider metadata for the tenant (give its URL to the
    identity provider, before or after the tenant has one here); its URL is also the
    service provider's entity id."""
    tenant, _ = _tenant_and_provider(company, environment)
    if tenant is None:
        return render_template("desk/tenant_unknown.html"), 404
    return saml_flow.metadata(realm_of(tenant))


@bp.route("/sso/<company>/<environment>/saml/acs", methods=["GET", "POST"])
@limiter.limit(lambda: current_app.config["LOGIN_RATE_LIMIT"], methods=["POST"])
@csrf.exempt  # the identity provider's own form posts here, with RelayState as its check
def sso_acs(company: str, environment: str):
    """The identity provider's answer (HTTP-POST): the agent it vouches for is signed in,
    or a page says why not; a GET goes back to the tenant's sign-in page."""
    tenant, provider, other = _saml_tenant(company, environment)
    if other is not None:
        return other
    if request.method == "GET":
        return redirect(auth.tenant_login_url(tenant))
    try:
        identity, next_path = saml_flow.accept(provider, realm_of(tenant))
    except SignInRefused as refused:
        db.session.rollback()
        page = render_template("desk/sso_refused.html", tenant=tenant, message=refused.message)
        return page, 400
    return finish(tenant, identity, next_path)


@bp.get("/sso/<company>/<environment>/saml/slo")
def sso_slo(company: str, environment: str):
    """Where the identity provider's single logout returns: the tenant's sign-in page,
    saying the agent is signed out there too when its answer says so."""
    tenant, provider, other = _saml_tenant(company, environment)
    if other is not None:
        return other
    if saml_flow.signed_out(provider, realm_of(tenant)):
        flash("You are signed out at your identity provider too.")
    return redirect(auth.tenant_login_url(tenant))


@bp.get("/sso/<company>/<environment>/oidc/callback")
def sso_oidc_callback(company: str, environment: str):
    """The OpenID provider's answer (app/web/oidc_flow): the agent it vouches for is signed
    in, or a clear page says why not."""
    tenant, provider = _tenant_and_provider(company, environment)
    if tenant is None:
        return render_template("desk/tenant_unknown.html"), 404
    if provider is None or provider.kind != ProviderKind.OIDC:
        return redirect(url_for("desk.tenant_login", company=company, environment=environment))
    answer = oidc_flow.accept(provider, realm_of(tenant))
    if not isinstance(answer, oidc_flow.Accepted):
        return answer
    return finish(tenant, answer.identity, answer.next_path)
