"""The tenant's provisioned users and user templates."""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, render_template, request, url_for

from app.admin.access import attempt, submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import AgentQueuesForm, AgentZoneForm, ConfirmForm, TemplateForm, UserForm
from app.admin.paging import window
from app.admin.prg import form_post, hold, shown_once
from app.extensions import db
from app.models import Tenant, User, UserTemplate
from app.models.types import utcnow
from app.services import shown_once as held_values
from app.services.audit.reading import paged_tenant_history
from app.services.people import agents as agent_service
from app.services.people import users as user_service
from app.services.tenants import setup as tenant_service
from app.services.values import time_zones

# What the Users page's history shows: its users and its user templates.
HISTORY_KINDS = ("user", "user_template")


def _user_form(templates: list[UserTemplate]) -> UserForm:
    form = UserForm(prefix="user")
    form.template.choices = [t.name for t in templates]
    return form


def _template_form(tenant: Tenant) -> TemplateForm:
    form = TemplateForm(prefix="template")
    form.skill_queues.choices = [q.name for q in tenant_service.list_skill_queues(tenant)]
    return form


def _page(tenant: Tenant, user_form=None, template_form=None, error=None):
    shown = window(user_service.count_users(tenant))
    users = user_service.list_users(tenant, shown.limit, shown.offset)
    templates = tenant_service.list_user_templates(tenant)
    history = paged_tenant_history(
        tenant.id, HISTORY_KINDS, request.args.get("history", 1, type=int), shown.limit
    )
    return render_template(
        "admin/users.html",
        tenant=tenant,
        users=user_service.user_statuses(tenant, users),
        page=shown.page,
        pages=shown.pages,
        templates=templates,
        user_form=user_form or _user_form(templates),
        template_form=template_form or _template_form(tenant),
        history=history,
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
    form = _user_form(tenant_service.list_user_templates(tenant))
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
            actor=supervisor(),
        ),
        lambda error: _page(tenant, user_form=form, error=error),
        lambda user: f"User '{user.login_user_id}' added.",
        url_for("admin.users", tenant_id=tenant.id),
    )


def _user_or_404(tenant: Tenant, user_id: int) -> User:
    user = db.session.get(User, user_id)
    if user is None or user.tenant_id != tenant.id:
        abort(404)
    return user


@bp.get("/tenants/<int:tenant_id>/users/<int:user_id>/delete")
def confirm_delete_user(tenant_id: int, user_id: int):
    """Ask before deleting: the instance user goes too, and neither comes back."""
    tenant = tenant_or_404(tenant_id)
    user = _user_or_404(tenant, user_id)
    return render_template("admin/user_delete.html", tenant=tenant, user=user, form=ConfirmForm())


@bp.post("/tenants/<int:tenant_id>/users/<int:user_id>/delete")
def delete_user(tenant_id: int, user_id: int):
    """Delete a user from the service and the instance (after the confirmation page)."""
    tenant = tenant_or_404(tenant_id)
    user = _user_or_404(tenant, user_id)
    if not ConfirmForm().validate_on_submit():
        return redirect(url_for("admin.confirm_delete_user", tenant_id=tenant.id, user_id=user.id))
    login = user.login_user_id
    _, error = attempt(lambda: user_service.delete_user(tenant, login, actor=supervisor()))
    flash(error or f"User '{login}' deleted.")
    return redirect(url_for("admin.users", tenant_id=tenant.id))


@form_post("/tenants/<int:tenant_id>/templates", "admin.users")
def create_template(tenant_id: int):
    """Create a user template."""
    tenant = tenant_or_404(tenant_id)
    form = _template_form(tenant)

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
        return tenant_service.create_user_template(
            tenant,
            form.name.data,
            settings,
            actor=supervisor(),
            skill_queues=form.skill_queues.data or [],
        )

    return submit(
        form,
        create,
        lambda error: _page(tenant, template_form=form, error=error),
        lambda template: f"User template '{template.name}' created.",
        url_for("admin.users", tenant_id=tenant.id),
    )


def _queues_form(tenant: Tenant, user: User | None = None) -> AgentQueuesForm:
    form = AgentQueuesForm(
        prefix="desk", data={"queues": agent_service.queue_names(user)} if user else None
    )
    form.queues.choices = [q.name for q in tenant_service.list_skill_queues(tenant)]
    return form


def _zone_form(user: User | None = None) -> AgentZoneForm:
    form = AgentZoneForm(prefix="zone", data={"time_zone": user.time_zone or ""} if user else None)
    form.time_zone.choices = [("", "UTC (none of its own)"), *((z, z) for z in time_zones())]
    return form


def _desk_page(tenant: Tenant, user: User, form=None, error=None, zone_form=None):
    return render_template(
        "admin/user_desk.html",
        tenant=tenant,
        user=user,
        form=form or _queues_form(tenant, user),
        zone_form=zone_form or _zone_form(user),
        invite_form=ConfirmForm(),
        error=error,
    ), (422 if error else 200)


@bp.get("/tenants/<int:tenant_id>/users/<int:user_id>/desk")
def user_desk(tenant_id: int, user_id: int):
    """The user as an agent: the skill queues worked at the desk, the invitation."""
    tenant = tenant_or_404(tenant_id)
    return _desk_page(tenant, _user_or_404(tenant, user_id))


@form_post("/tenants/<int:tenant_id>/users/<int:user_id>/desk/queues", "admin.user_desk")
def set_user_queues(tenant_id: int, user_id: int):
    """Give the agent exactly the ticked skill queues."""
    tenant = tenant_or_404(tenant_id)
    user = _user_or_404(tenant, user_id)
    form = _queues_form(tenant)
    return submit(
        form,
        lambda: agent_service.set_agent_queues(user, form.queues.data or [], actor=supervisor()),
        lambda error: _desk_page(tenant, user, form, error),
        lambda names: f"{user.login_user_id} now works {', '.join(names) or 'no queue'}.",
        url_for("admin.user_desk", tenant_id=tenant.id, user_id=user.id),
    )


@form_post("/tenants/<int:tenant_id>/users/<int:user_id>/desk/zone", "admin.user_desk")
def set_user_zone(tenant_id: int, user_id: int):
    """The agent's own time zone."""
    tenant = tenant_or_404(tenant_id)
    user = _user_or_404(tenant, user_id)
    form = _zone_form()
    return submit(
        form,
        lambda: agent_service.set_agent_zone(user, form.time_zone.data, actor=supervisor()),
        lambda error: _desk_page(tenant, user, error=error, zone_form=form),
        lambda zone: f"{user.login_user_id} reads times in {zone or 'UTC'}.",
        url_for("admin.user_desk", tenant_id=tenant.id, user_id=user.id),
    )


INVITE = "/tenants/<int:tenant_id>/users/<int:user_id>/desk/invite"


def _invite_slot(user: User) -> str:
    return f"invite:{user.id}"


@bp.post(INVITE)
def invite_user(tenant_id: int, user_id: int):
    """Invite the agent to the desk, then redirect to the page that shows the one-time
    link, once."""
    tenant = tenant_or_404(tenant_id)
    user = _user_or_404(tenant, user_id)
    if not ConfirmForm().validate_on_submit():
        return redirect(url_for("admin.user_desk", tenant_id=tenant.id, user_id=user.id))
    base_url = current_app.config["PUBLIC_BASE_URL"]

    def invite() -> held_values.Claim:
        token = agent_service.invite(user, actor=supervisor())
        link = agent_service.invite_link(base_url, token)
        return held_values.keep(link, secret=True, now=utcnow())

    claim, error = attempt(invite)
    if error:
        return _desk_page(tenant, user, error=error)
    hold(_invite_slot(user), claim)
    return redirect(url_for("admin.invitation", tenant_id=tenant.id, user_id=user.id), 303)


@bp.get(INVITE)
def invitation(tenant_id: int, user_id: int):
    """The invitation link just made, this once; afterwards the page says how to get one."""
    tenant = tenant_or_404(tenant_id)
    user = _user_or_404(tenant, user_id)
    link = shown_once(_invite_slot(user))
    until = user.invite_expires_at
    return render_template(
        "admin/user_invite.html",
        tenant=tenant,
        user=user,
        link=link,
        open_until=until if until and until > utcnow() else None,
        form=ConfirmForm(),
    )
