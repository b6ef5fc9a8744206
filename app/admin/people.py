"""The tenant's provisioned users and user templates."""

from __future__ import annotations

from flask import current_app, flash, redirect, render_template, request, url_for

from app.admin import bp
from app.admin.access import attempt, submit, tenant_or_404
from app.admin.forms import ConfirmForm, TemplateForm, UserForm
from app.models import Tenant
from app.services import tenants as tenant_service
from app.services import users as user_service


def _user_form(tenant: Tenant) -> UserForm:
    form = UserForm(prefix="user")
    form.template.choices = [t.name for t in tenant_service.list_user_templates(tenant)]
    return form


def _page(tenant: Tenant, user_form=None, template_form=None, error=None):
    size = current_app.config["PAGE_SIZE"]
    pages = max(1, -(-user_service.count_users(tenant) // size))
    page = min(max(request.args.get("page", 1, type=int), 1), pages)
    users = user_service.list_users(tenant, size, (page - 1) * size)
    return render_template(
        "admin/users.html",
        tenant=tenant,
        users=user_service.user_statuses(tenant, users),
        page=page,
        pages=pages,
        templates=tenant_service.list_user_templates(tenant),
        user_form=user_form or _user_form(tenant),
        template_form=template_form or TemplateForm(prefix="template"),
        delete_form=ConfirmForm(),
        error=error,
    ), (422 if error else 200)


@bp.get("/tenants/<int:tenant_id>/users")
def users(tenant_id: int):
    """Provisioned users with their instance status, and user templates."""
    return _page(tenant_or_404(tenant_id))


@bp.post("/tenants/<int:tenant_id>/users")
def add_user(tenant_id: int):
    """Add a user, with the rules of add-user."""
    tenant = tenant_or_404(tenant_id)
    form = _user_form(tenant)
    return submit(
        form,
        lambda: user_service.add_user(
            tenant,
            user_service.NewUser(
                login_user_id=form.login_user_id.data,
                first_name=form.first_name.data,
                last_name=form.last_name.data,
                user_template_name=form.template.data,
                primary_email=form.primary_email.data or None,
                secondary_email=form.secondary_email.data or None,
                create_in_instance=form.create_in_instance.data,
            ),
        ),
        lambda error: _page(tenant, user_form=form, error=error),
        lambda user: f"User '{user.login_user_id}' added.",
        url_for("admin.users", tenant_id=tenant.id),
    )


@bp.post("/tenants/<int:tenant_id>/users/<int:user_id>/delete")
def delete_user(tenant_id: int, user_id: int):
    """Delete a user from the service and the instance."""
    tenant = tenant_or_404(tenant_id)
    user = next((u for u in user_service.list_users(tenant) if u.id == user_id), None)
    if user is not None and ConfirmForm().validate_on_submit():
        login = user.login_user_id
        _, error = attempt(lambda: user_service.delete_user(tenant, login))
        flash(error or f"User '{login}' deleted.")
    return redirect(url_for("admin.users", tenant_id=tenant.id))


@bp.post("/tenants/<int:tenant_id>/templates")
def create_template(tenant_id: int):
    """Create a user template."""
    tenant = tenant_or_404(tenant_id)
    form = TemplateForm(prefix="template")

    def create():
        profiles = (form.security_profile_ids.data or "").split(",")
        settings = tenant_service.TemplateSettings(
            security_profile_ids=[p.strip() for p in profiles if p.strip()],
            routing_profile_id=form.routing_profile_id.data or None,
            hierarchy_group_id=form.hierarchy_group_id.data or None,
            phone_type=form.phone_type.data,
            auto_accept=form.auto_accept.data,
            after_contact_work_seconds=form.after_contact_work_seconds.data or 0,
            desk_phone_number=form.desk_phone_number.data or None,
        )
        return tenant_service.create_user_template(tenant, form.name.data, settings)

    return submit(
        form,
        create,
        lambda error: _page(tenant, template_form=form, error=error),
        lambda template: f"User template '{template.name}' created.",
        url_for("admin.users", tenant_id=tenant.id),
    )
