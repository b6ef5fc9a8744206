"""The Sign-in page's directory section: agents sign in with their directory's user name
and password (app/services/sso/ldap). Plain LDAP without TLS and a CA file on the servers are
the operator's to set (`flask --app wsgi sso ldap`), never a supervisor's."""

from __future__ import annotations

from flask import flash, redirect, request, url_for

from app.admin.access import attempt, supervisor, tenant_or_404
from app.admin.forms import OUT_OF_DATE, ConfirmForm
from app.admin.prg import form_post
from app.admin.sign_in import sign_in_page
from app.models import ProviderKind
from app.services.sso import ldap, providers


def _timeout(text: str | None) -> int | str | None:
    text = (text or "").strip()
    return int(text) if text.isdigit() else (text or None)


@form_post("/tenants/<int:tenant_id>/sign-in/ldap", "admin.sign_in")
def sign_in_ldap(tenant_id: int):
    """Sign the tenant's agents in with its directory, in place of any provider it had."""
    tenant = tenant_or_404(tenant_id)
    if not ConfirmForm().validate_on_submit():
        return sign_in_page(tenant, errors={"ldap": OUT_OF_DATE}, values=request.form)
    form = request.form
    current = providers.provider_for(tenant)
    # A CA file the operator set stays (the page cannot set one).
    ca_file = (
        current.settings.get("ca_file")
        if current is not None and current.kind == ProviderKind.LDAP
        else None
    )
    actor = supervisor()

    def save():
        settings = ldap.settings_from(
            form.get("url", ""),
            form.get("bind_dn_template", ""),
            form.get("start_tls") == "y",
            _timeout(form.get("timeout_seconds")),
            ca_file,
        )
        return providers.set_provider(tenant, ProviderKind.LDAP, settings, actor=actor)

    _, error = attempt(save)
    if error:
        return sign_in_page(tenant, errors={"ldap": error}, values=form)
    flash("Agents now sign in with their directory's user name and password.")
    return redirect(url_for("admin.sign_in", tenant_id=tenant.id), 303)
