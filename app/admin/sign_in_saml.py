"""The Sign-in page's SAML 2.0 section: agents sign in through the tenant's SAML identity
provider (app/services/sso/saml), set from its metadata, uploaded or read from its URL. The
page shows the desk's service-provider metadata URL to give the provider."""

from __future__ import annotations

from flask import flash, redirect, request, url_for

from app.admin.access import attempt, supervisor, tenant_or_404
from app.admin.forms import OUT_OF_DATE, ConfirmForm
from app.admin.prg import form_post
from app.admin.sign_in import sign_in_page
from app.models import ProviderKind
from app.services.sso import providers, saml


def _uploaded_metadata() -> str | None:
    """The uploaded metadata file's text, None when none was chosen."""
    upload = request.files.get("metadata_file")
    if upload is None or not upload.filename:
        return None
    body = upload.read(saml.METADATA_LIMIT + 1)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return "\x00"  # refused below as not metadata, without echoing the bytes


@form_post("/tenants/<int:tenant_id>/sign-in/saml", "admin.sign_in")
def sign_in_saml(tenant_id: int):
    """Sign the tenant's agents in through a SAML identity provider, in place of any
    provider it had."""
    tenant = tenant_or_404(tenant_id)
    if not ConfirmForm().validate_on_submit():
        return sign_in_page(tenant, errors={"saml": OUT_OF_DATE}, values=request.form)
    form = request.form
    uploaded = _uploaded_metadata()
    actor = supervisor()

    def save():
        settings = saml.settings_from(
            uploaded,
            None if uploaded else form.get("metadata_url", ""),
            form.get("login_attribute", ""),
            allow_sha1=form.get("allow_sha1") == "1",
        )
        return providers.set_provider(tenant, ProviderKind.SAML, settings, actor=actor)

    _, error = attempt(save)
    if error:
        return sign_in_page(tenant, errors={"saml": error}, values=form)
    flash("Agents now sign in through the SAML identity provider.")
    return redirect(url_for("admin.sign_in", tenant_id=tenant.id), 303)
