"""The tenant's People page: who may open its console and with what role, and the form
with which an administrator gives, changes or takes away a role (app/admin/roles.py says
what each role reaches; app/services/people/supervisors.py keeps the rules)."""

from __future__ import annotations

from typing import ClassVar

from flask import render_template, url_for
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length

from app.admin.access import submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.prg import form_post
from app.models import Role, Tenant
from app.services.people import supervisors
from app.web.error_summary import ErrorSummary

PEOPLE = "/tenants/<int:tenant_id>/people"
NO_ACCESS = "none"
ROLE_CHOICES = [
    SelectChoice(Role.ANALYST.value, "Analyst: reads campaigns, tasks, reports, the wallboard"),
    SelectChoice(Role.SUPERVISOR.value, "Supervisor: runs campaigns, tasks, intake and agents"),
    SelectChoice(Role.ADMINISTRATOR.value, "Administrator: also keys, sign-in, webhooks, people"),
    SelectChoice(NO_ACCESS, "No access: takes the tenant away"),
]


class RoleForm(FlaskForm):
    refusal_subject: ClassVar = "supervisor"
    email = StringField("E-mail address", validators=[DataRequired(), Length(max=255)])
    role = SelectField("Role", choices=ROLE_CHOICES, default=Role.SUPERVISOR.value)


def _page(tenant: Tenant, form: RoleForm | None = None, error: ErrorSummary | None = None):
    return render_template(
        "admin/people.html",
        tenant=tenant,
        people=supervisors.people_of(tenant),
        form=form or RoleForm(prefix="grant"),
        row_form=RoleForm(prefix="grant"),
        error=error,
    ), (422 if error else 200)


@bp.get(PEOPLE)
def people(tenant_id: int):
    """Everyone who may open the tenant's console, with their role."""
    return _page(tenant_or_404(tenant_id))


@form_post(PEOPLE, "admin.people")
def grant_role(tenant_id: int):
    """Give an account a role in the tenant, change it, or take the tenant away."""
    tenant = tenant_or_404(tenant_id)
    form = RoleForm(prefix="grant")

    def role() -> Role | None:
        return None if form.role.data == NO_ACCESS else Role(form.role.data)

    def done(changed: bool) -> str:
        email = form.email.data.strip().lower()
        if not changed:
            return f"Nothing changed: {email} already had that access."
        if role() is None:
            return f"{email} no longer sees {tenant.label}."
        return f"{email} is now {role().value} of {tenant.label}."

    return submit(
        form,
        lambda: supervisors.grant_role_to(tenant, form.email.data, role(), actor=supervisor()),
        lambda error: _page(tenant, form, error),
        done,
        url_for("admin.people", tenant_id=tenant.id),
    )
