"""The tenant's work codes: groups with their codes and skill queues; create, edit, enable or
disable codes (a disabled code stays on the tasks closed with it), assign queues."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, url_for

from app.admin.access import attempt, submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.prg import form_post
from app.admin.work_codes_forms import CodeForm, GroupForm, GroupQueuesForm
from app.models import Tenant, WorkCodeChoice, WorkCodeGroup
from app.services.tenants.setup import list_skill_queues
from app.services.work_codes import groups as service

BASE = "/tenants/<int:tenant_id>/work-codes"
GROUP = BASE + "/<int:group_id>"
CODE = GROUP + "/codes/<int:code_id>"


def _group_or_404(tenant: Tenant, group_id: int) -> WorkCodeGroup:
    group = service.group_by_id(tenant, group_id)
    if group is None:
        abort(404)
    return group


def _code_or_404(group: WorkCodeGroup, code_id: int) -> WorkCodeChoice:
    code = service.code_by_id(group, code_id)
    if code is None:
        abort(404)
    return code


def _list_page(tenant: Tenant, form: GroupForm | None = None, error: str | None = None):
    queues = list_skill_queues(tenant)
    return render_template(
        "admin/work_codes.html",
        tenant=tenant,
        groups=service.list_groups(tenant),
        free_queues=[queue.name for queue in queues if not queue.work_code_groups],
        form=form or GroupForm(prefix="group"),
        error=error,
    ), (422 if error else 200)


@bp.get(BASE)
def work_codes(tenant_id: int):
    """Every group with its codes and queues, and a form for a new group."""
    return _list_page(tenant_or_404(tenant_id))


@bp.post(BASE)
def create_work_code_group(tenant_id: int):
    """Create a group; its page then takes codes and queues."""
    tenant = tenant_or_404(tenant_id)
    form = GroupForm(prefix="group")
    return submit(
        form,
        lambda: service.create_group(
            tenant,
            form.name.data,
            required=form.required.data,
            multiple=form.multiple.data,
            actor=supervisor(),
        ),
        lambda error: _list_page(tenant, form, error),
        lambda group: f"Work code group '{group.name}' created: add its codes and queues.",
        lambda group: url_for("admin.work_code_group", tenant_id=tenant.id, group_id=group.id),
    )


def _queues_form(tenant: Tenant, group: WorkCodeGroup | None = None) -> GroupQueuesForm:
    data = {"queues": [q.name for q in group.skill_queues]} if group else None
    form = GroupQueuesForm(prefix="queues", data=data)
    form.queues.choices = [queue.name for queue in list_skill_queues(tenant)]
    return form


def _group_page(
    tenant: Tenant,
    group: WorkCodeGroup,
    *,
    group_form: GroupForm | None = None,
    queues_form: GroupQueuesForm | None = None,
    code_form: CodeForm | None = None,
    editing: WorkCodeChoice | None = None,
    error: str | None = None,
):
    if code_form is None and editing is not None:
        code_form = CodeForm(
            prefix="code",
            data={
                "name": editing.name,
                "description": editing.description,
                "outcome": editing.outcome or "",
                "delay_minutes": editing.reschedule_minutes,
                "sort_order": editing.sort_order,
                "adds_to_dnc": editing.adds_to_dnc,
                "revokes_consent": editing.revokes_consent,
                "suggested_for": editing.suggested_for or "",
                "contact": editing.contact,
                "success": editing.success,
            },
        )
    return render_template(
        "admin/work_code_group.html",
        tenant=tenant,
        group=group,
        group_form=group_form
        or GroupForm(
            prefix="group",
            data={"name": group.name, "required": group.required, "multiple": group.multiple},
        ),
        queues_form=queues_form or _queues_form(tenant, group),
        code_form=code_form or CodeForm(prefix="code"),
        editing=editing,
        button_form=ConfirmForm(),
        delay_words=service.delay_words,
        error=error,
    ), (422 if error else 200)


def _here(tenant: Tenant, group: WorkCodeGroup) -> str:
    return url_for("admin.work_code_group", tenant_id=tenant.id, group_id=group.id)


@bp.get(GROUP)
def work_code_group(tenant_id: int, group_id: int):
    """One group: its settings, its queues, its codes and a form for a new code."""
    tenant = tenant_or_404(tenant_id)
    return _group_page(tenant, _group_or_404(tenant, group_id))


@bp.post(GROUP)
def change_work_code_group(tenant_id: int, group_id: int):
    """Rename the group, or change whether it is required or multiple choice."""
    tenant = tenant_or_404(tenant_id)
    group = _group_or_404(tenant, group_id)
    form = GroupForm(prefix="group")
    return submit(
        form,
        lambda: service.change_group(
            group,
            form.name.data,
            required=form.required.data,
            multiple=form.multiple.data,
            actor=supervisor(),
        ),
        lambda error: _group_page(tenant, group, group_form=form, error=error),
        lambda changed: f"Work code group '{changed.name}' saved.",
        _here(tenant, group),
    )


@form_post(GROUP + "/delete", "admin.work_code_group")
def delete_work_code_group(tenant_id: int, group_id: int):
    """Delete the group and its codes; tasks closed with them keep their codes."""
    tenant = tenant_or_404(tenant_id)
    group = _group_or_404(tenant, group_id)
    if not ConfirmForm().validate_on_submit():
        return redirect(_here(tenant, group))
    name = group.name
    _, error = attempt(lambda: service.delete_group(group, actor=supervisor()))
    flash(error or f"Work code group '{name}' deleted.")
    return redirect(url_for("admin.work_codes", tenant_id=tenant.id))


@form_post(GROUP + "/queues", "admin.work_code_group")
def set_work_code_group_queues(tenant_id: int, group_id: int):
    """Offer the group in exactly the ticked skill queues."""
    tenant = tenant_or_404(tenant_id)
    group = _group_or_404(tenant, group_id)
    form = _queues_form(tenant)
    return submit(
        form,
        lambda: service.set_group_queues(group, form.queues.data or [], actor=supervisor()),
        lambda error: _group_page(tenant, group, queues_form=form, error=error),
        lambda names: f"'{group.name}' is offered in {', '.join(names) or 'no queue'}.",
        _here(tenant, group),
    )


@form_post(GROUP + "/codes", "admin.work_code_group")
def add_work_code(tenant_id: int, group_id: int):
    """Add a code to the group."""
    tenant = tenant_or_404(tenant_id)
    group = _group_or_404(tenant, group_id)
    form = CodeForm(prefix="code")
    return submit(
        form,
        lambda: service.add_code(group, form.name.data, form.settings(), actor=supervisor()),
        lambda error: _group_page(tenant, group, code_form=form, error=error),
        lambda code: f"Work code '{code.name}' added.",
        _here(tenant, group),
    )


@bp.get(CODE)
def edit_work_code(tenant_id: int, group_id: int, code_id: int):
    """The group's page with the code's form filled in."""
    tenant = tenant_or_404(tenant_id)
    group = _group_or_404(tenant, group_id)
    return _group_page(tenant, group, editing=_code_or_404(group, code_id))


@bp.post(CODE)
def change_work_code(tenant_id: int, group_id: int, code_id: int):
    """Change a code; tasks closed with it keep the name they were closed with."""
    tenant = tenant_or_404(tenant_id)
    group = _group_or_404(tenant, group_id)
    code = _code_or_404(group, code_id)
    form = CodeForm(prefix="code")
    return submit(
        form,
        lambda: service.change_code(code, form.name.data, form.settings(), actor=supervisor()),
        lambda error: _group_page(tenant, group, code_form=form, editing=code, error=error),
        lambda changed: f"Work code '{changed.name}' saved.",
        _here(tenant, group),
    )


@form_post(CODE + "/<any(enable, disable):switch>", "admin.work_code_group")
def switch_work_code(tenant_id: int, group_id: int, code_id: int, switch: str):
    """Offer the code to agents again, or no longer."""
    tenant = tenant_or_404(tenant_id)
    group = _group_or_404(tenant, group_id)
    code = _code_or_404(group, code_id)
    if ConfirmForm().validate_on_submit():
        enabled = switch == "enable"
        _, error = attempt(lambda: service.set_code_enabled(code, enabled, actor=supervisor()))
        flash(error or f"Work code '{code.name}' {switch}d.")
    return redirect(_here(tenant, group))
