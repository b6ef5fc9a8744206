"""A tenant's OpenID Connect provider, set on the tenant's Sign-in settings page
(app/admin/sign_in; its form is templates/admin/sign_in/_oidc.html). The console's provider
is set from the shell only (`flask sso oidc --console`)."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from werkzeug.datastructures import MultiDict

from app.admin.access import attempt, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.sign_in import sign_in_page
from app.models import ProviderKind, Tenant
from app.services.errors import InvalidInput
from app.services.fields import OIDC_CLIENT_SECRET
from app.services.sso import oidc, providers


@bp.route("/tenants/<int:tenant_id>/sign-in/oidc", methods=["GET", "POST"])
def sign_in_oidc(tenant_id: int):
    """Sign the tenant's agents in through this OpenID provider (its discovery document is
    checked now); a blank secret keeps the one set. A GET shows the settings page."""
    tenant = tenant_or_404(tenant_id)
    if request.method == "GET" or not ConfirmForm().validate_on_submit():
        return redirect(url_for("admin.sign_in", tenant_id=tenant.id))
    _, error = attempt(lambda: _set(tenant, request.form))
    if error:
        sent = request.form.items(multi=True)
        values = MultiDict((k, v) for k, v in sent if k != "client_secret")  # never echoed
        return sign_in_page(tenant, errors={"oidc": error}, values=values)
    flash(f"{tenant.label}'s agents now sign in through OpenID Connect.")
    return redirect(url_for("admin.sign_in", tenant_id=tenant.id), 303)


def _set(tenant: Tenant, form) -> None:
    current = providers.provider_for(tenant)
    secret = form.get("client_secret", "").strip() or None
    keeps = current is not None and current.kind == ProviderKind.OIDC and current.sealed_secret
    if secret is None and not keeps:
        raise InvalidInput("the client secret is required", field=OIDC_CLIENT_SECRET)
    settings = oidc.settings_from(
        form.get("issuer", ""), form.get("client_id", ""), form.get("login_claim", "email")
    )
    providers.set_provider(tenant, ProviderKind.OIDC, settings, secret=secret, actor=supervisor())
