"""The tenant's Sign-in settings: the address where its agents sign in, its identity
provider (shown without its secret, removed after a confirmation), the switch for agents'
own desk passwords, provisioning by SCIM (app/admin/provisioning.py), and one section per
kind of provider (`templates/admin/sign_in/_<kind>
.html`, each posting to its own route, `app/admin/sign_in_<kind>.py`)."""

from __future__ import annotations

from flask import flash, make_response, redirect, render_template, request, url_for

from app.admin.access import attempt, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import OUT_OF_DATE, ConfirmForm
from app.admin.keys import grace_hours
from app.admin.prg import form_post, shown_once
from app.models import Tenant
from app.services.people import directory_groups
from app.services.sso import desk_passwords, providers
from app.services.tenants import api_keys
from app.services.tenants.setup import list_skill_queues, list_user_templates

KINDS = ("saml", "oidc", "ldap")


def sign_in_page(tenant: Tenant, errors: dict[str, str] | None = None, values=None):
    """The Sign-in page; with `errors` (a section's name → why its form was refused) it
    answers 422 and the refused form keeps what was typed (`values`)."""
    provider = providers.provider_for(tenant)
    body = render_template(
        "admin/sign_in.html",
        tenant=tenant,
        provider=provider,
        shown=providers.describe(provider) if provider else None,
        taken=[str(kind) for kind in desk_passwords.passwords_taken(tenant, provider)],
        desk_url=url_for(
            "desk.tenant_login",
            company=tenant.company_code,
            environment=tenant.environment,
            _external=True,
        ),
        kinds=KINDS,
        scim=_scim_section(tenant),
        errors=errors or {},
        values=values or {},
    )
    return make_response(body, 422 if errors else 200)


def scim_slot(tenant: Tenant) -> str:
    """Where a SCIM token just made waits for its one showing (app/admin/provisioning.py)."""
    return f"scim_token:{tenant.id}"


def _scim_section(tenant: Tenant) -> dict:
    """What the page says of SCIM provisioning (a token just made, this once)."""
    return {
        "base": url_for("scim.list_users", company=tenant.company_code,
                        environment=tenant.environment, _external=True).removesuffix("/Users"),
        "tokens": api_keys.key_states(tenant, purpose=api_keys.SCIM),
        "new_token": shown_once(scim_slot(tenant)),
        "grace": grace_hours(),
        "templates": [t.name for t in list_user_templates(tenant)],
        "mappings": directory_groups.mappings(tenant),
        "queues": [q.name for q in list_skill_queues(tenant)],
    }  # fmt: skip


@bp.get("/tenants/<int:tenant_id>/sign-in")
def sign_in(tenant_id: int):
    """How the tenant's agents sign in, and the forms that change it."""
    return sign_in_page(tenant_or_404(tenant_id))


@form_post("/tenants/<int:tenant_id>/sign-in/passwords", "admin.sign_in")
def sign_in_passwords(tenant_id: int):
    """Switch the agents' own desk passwords on or off (off needs an identity provider)."""
    tenant = tenant_or_404(tenant_id)
    if not ConfirmForm().validate_on_submit():
        return sign_in_page(tenant, errors={"passwords": OUT_OF_DATE})
    allowed = request.form.get("allowed") == "on"
    actor = supervisor()
    _, error = attempt(lambda: providers.set_local_agent_passwords(tenant, allowed, actor=actor))
    if error:
        return sign_in_page(tenant, errors={"passwords": error})
    flash(f"Agents' own desk passwords are {'on' if allowed else 'off'}.")
    return redirect(url_for("admin.sign_in", tenant_id=tenant.id), 303)


@bp.get("/tenants/<int:tenant_id>/sign-in/remove")
def confirm_remove_provider(tenant_id: int):
    """Ask before removing the identity provider: say what becomes of sign-in."""
    tenant = tenant_or_404(tenant_id)
    provider = providers.provider_for(tenant)
    if provider is None:
        return redirect(url_for("admin.sign_in", tenant_id=tenant.id))
    return render_template(
        "admin/sign_in_remove.html", tenant=tenant, provider=provider, form=ConfirmForm()
    )


@bp.post("/tenants/<int:tenant_id>/sign-in/remove")
def remove_provider(tenant_id: int):
    """Remove the identity provider: agents sign in with desk passwords again."""
    tenant = tenant_or_404(tenant_id)
    if not ConfirmForm().validate_on_submit():
        return redirect(url_for("admin.confirm_remove_provider", tenant_id=tenant.id))
    actor = supervisor()
    _, error = attempt(lambda: providers.remove_provider(tenant, actor=actor))
    flash(error or "Identity provider removed: agents sign in with desk passwords again.")
    return redirect(url_for("admin.sign_in", tenant_id=tenant.id), 303)
