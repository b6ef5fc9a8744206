"""Agents signing in through their company's identity provider (app/web/sso_flow): the
button on the tenant's own sign-in page starts it; the provider's answer signs in the
provisioned agent it names, and nobody else."""

from __future__ import annotations

from flask import current_app, redirect, render_template, request, session, url_for

from app.desk import auth, bp
from app.desk.forms import DeskButtonForm
from app.extensions import db, limiter
from app.models import ProviderKind, Tenant
from app.services.sso.identity import Identity, SignInRefused, agent_for
from app.services.sso.providers import provider_for
from app.services.tenants.setup import find_tenant
from app.web import oidc_flow, sso_flow
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
