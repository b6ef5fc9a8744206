"""Agents signing in through their company's identity provider (app/web/sso_flow): the
button on the tenant's own sign-in page starts it; the provider's answer signs in the
provisioned agent it names, and nobody else."""

from __future__ import annotations

from flask import current_app, redirect, render_template, request, url_for

from app.desk import bp
from app.desk.forms import DeskButtonForm
from app.extensions import limiter
from app.models import Tenant
from app.services.sso.providers import provider_for
from app.services.tenants.setup import find_tenant
from app.web import sso_flow
from app.web.security import local_path


def realm_of(tenant: Tenant) -> sso_flow.Realm:
    def url(name: str) -> str:
        return url_for(
            f"desk.sso_{name}",
            company=tenant.company_code,
            environment=tenant.environment,
            _external=True,
        )

    return sso_flow.Realm(tenant=tenant, url=url, home=url_for("desk.home"))


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
