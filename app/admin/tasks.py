"""A task: every field, its agent view, and the forms that change it."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from flask import flash, redirect, render_template, url_for
from wtforms.fields.choices import SelectChoice

from app.admin import bp
from app.admin.access import attempt, submit, task_or_404, tenant_or_404
from app.admin.forms import BLANK_ROWS, ConfirmForm, ItemsForm, StatusForm, TransferForm
from app.admin.items import item_inputs, next_time_ms
from app.models import Task, Tenant
from app.services import campaigns as campaign_service
from app.services import tasks as task_service
from app.services import tenants as tenant_service
from app.services.display import agent_view
from app.services.rules import time_zones
from app.services.tasks import Locator, TaskChanges

KEEP_QUEUE = ""


def _items_form(task: Task) -> ItemsForm:
    form = ItemsForm(prefix="data")
    if not form.is_submitted():
        for item in task.items:
            if item.key == task.client_id_field:
                continue  # the clientId is kept by the service itself
            form.items.append_entry(
                {"key": item.key, "value": item.value, "display_order": item.display_order}
            )
        for _ in range(BLANK_ROWS):
            form.items.append_entry()
    return form


def _status_form(task: Task) -> StatusForm:
    form = StatusForm(prefix="status")
    queues = [q.name for q in tenant_service.list_skill_queues(task.campaign.tenant)]
    form.skill_queue.choices = queues
    form.time_zone.choices = form.next_zone.choices = time_zones()
    if not form.is_submitted():
        form.state.data = task.worked_state
        form.skill_queue.data = task.skill_queue.name
        form.time_zone.data = form.next_zone.data = task.time_zone
        form.preferred_agent.data = task.preferred_agent or ""
        if task.next_earliest_work_at:
            local = task.next_earliest_work_at.astimezone(ZoneInfo(task.time_zone))
            form.next_time.data = local.replace(tzinfo=None, second=0, microsecond=0)
    return form


def _transfer_form(task: Task) -> TransferForm:
    form = TransferForm(prefix="transfer")
    tenant = task.campaign.tenant
    form.destination.choices = [c.name for c in campaign_service.list_campaigns(tenant)]
    form.skill_queue.choices = [
        SelectChoice(KEEP_QUEUE, "Unchanged, or the destination's default"),
        *(q.name for q in tenant_service.list_skill_queues(tenant)),
    ]
    if not form.is_submitted():
        form.destination.data = task.campaign.name
        form.preferred_agent.data = task.preferred_agent or ""
    return form


def _task_page(tenant: Tenant, task: Task, error: str | None = None, **forms):
    return render_template(
        "admin/task.html",
        tenant=tenant,
        task=task,
        view=agent_view(task.items),
        items_form=forms.get("items_form") or _items_form(task),
        status_form=forms.get("status_form") or _status_form(task),
        transfer_form=forms.get("transfer_form") or _transfer_form(task),
        error=error,
    ), (422 if error else 200)


@bp.get("/tenants/<int:tenant_id>/tasks/<record_id>")
def task(tenant_id: int, record_id: str):
    """Every field of a task, its agent view, and its forms."""
    tenant = tenant_or_404(tenant_id)
    return _task_page(tenant, task_or_404(tenant, record_id))


@bp.get("/tenants/<int:tenant_id>/tasks/<record_id>/agent")
def agent(tenant_id: int, record_id: str):
    """The task exactly as the agent sees it."""
    tenant = tenant_or_404(tenant_id)
    task = task_or_404(tenant, record_id)
    return render_template(
        "admin/agent.html", tenant=tenant, task=task, view=agent_view(task.items)
    )


def _submit(tenant_id: int, record_id: str, form_name: str, build, action, done: str):
    """Validate one of the task's forms, run its action in one transaction, answer.

    On a refusal the task page comes back with the reason and the form as it was sent.
    """
    tenant = tenant_or_404(tenant_id)
    task = task_or_404(tenant, record_id)
    form = build(task)
    return submit(
        form,
        lambda: action(task, form),
        # After a rollback the task is read again, as it is stored.
        lambda error: _task_page(
            tenant, task_or_404(tenant, record_id), error, **{form_name: form}
        ),
        lambda _: done,
        url_for("admin.task", tenant_id=tenant.id, record_id=task.record_id),
    )


@bp.post("/tenants/<int:tenant_id>/tasks/<record_id>/items")
def edit_items(tenant_id: int, record_id: str):
    """Replace the task's data items, with the API's add/update rules."""

    def action(task: Task, form: ItemsForm):
        task_service.add_or_update_task(
            task.campaign, task.client_id, item_inputs(form.items), record_id=task.record_id
        )

    return _submit(tenant_id, record_id, "items_form", _items_form, action, "Data items saved.")


@bp.post("/tenants/<int:tenant_id>/tasks/<record_id>/status")
def change_status(tenant_id: int, record_id: str):
    """Change the worked state and system fields."""

    def action(task: Task, form: StatusForm):
        changes = TaskChanges(
            skill_queue=form.skill_queue.data,
            preferred_agent=form.preferred_agent.data or "",
            next_earliest_ms=next_time_ms(form.next_time.data, form.next_zone.data),
            time_zone=form.time_zone.data,
        )
        task_service.change_status(
            task.campaign, Locator(record_id=task.record_id), form.state.data, changes
        )

    return _submit(tenant_id, record_id, "status_form", _status_form, action, "Status changed.")


@bp.post("/tenants/<int:tenant_id>/tasks/<record_id>/transfer")
def transfer(tenant_id: int, record_id: str):
    """Move the task to another campaign and/or queue."""

    def action(task: Task, form: TransferForm):
        changes = TaskChanges(
            skill_queue=form.skill_queue.data or None,
            preferred_agent=form.preferred_agent.data or "",
        )
        task_service.transfer_task(
            task.campaign, Locator(record_id=task.record_id), form.destination.data, changes
        )

    return _submit(tenant_id, record_id, "transfer_form", _transfer_form, action, "Task moved.")


@bp.route("/tenants/<int:tenant_id>/tasks/<record_id>/delete", methods=["GET", "POST"])
def delete(tenant_id: int, record_id: str):
    """Ask for confirmation, then delete the task."""
    tenant = tenant_or_404(tenant_id)
    task = task_or_404(tenant, record_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        campaign = task.campaign
        _, error = attempt(
            lambda: task_service.delete_task(campaign, Locator(record_id=task.record_id))
        )
        if error is None:
            flash(f"Task '{task.client_id}' deleted.")
            return redirect(url_for("admin.campaign", tenant_id=tenant.id, campaign_id=campaign.id))
    return render_template("admin/task_delete.html", tenant=tenant, task=task, form=form)
