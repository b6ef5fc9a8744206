"""A task: every field, its agent view, and the forms that change it.

Each form carries the version of the task it showed and a stamp of the fields it edits; a
save is refused only when those fields changed since (app/services/tasks/shown.py: an agent
given the task, or another form's save, is no conflict), and the page then shows the task
as it is now, with the refused changes listed so none is lost.
A refused form comes back as it was sent, every other form shows the task as stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from flask import flash, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from wtforms.fields.choices import SelectChoice

from app.admin.access import (
    attempt,
    form_problems,
    submit,
    supervisor,
    task_or_404,
    tenant_or_404,
)
from app.admin.agents import release
from app.admin.blueprint import bp
from app.admin.forms import (
    BLANK_ROWS,
    OUT_OF_DATE,
    DeleteTaskForm,
    StatusForm,
    TaskItemsForm,
    TransferForm,
)
from app.admin.items import item_inputs, sent_rows
from app.admin.prg import form_post
from app.admin.problems import words
from app.models import Task, Tenant
from app.models.types import utcnow
from app.services.calls.ledger import task_attempts
from app.services.campaigns import catalogue as campaign_service
from app.services.contact_rules import engine as contact_rules
from app.services.delivery.holders import held_task
from app.services.delivery.progress import holder, passed_over
from app.services.tasks import changes as task_service
from app.services.tasks.batches import TaskChanges
from app.services.tasks.changes import Locator
from app.services.tasks.display import agent_view_of
from app.services.tasks.history import task_history
from app.services.tasks.shown import Part, Shown, stamp, still_as_shown
from app.services.tenants import setup as tenant_service
from app.services.values import time_zones
from app.web.form_times import next_time

KEEP_QUEUE = ""
STALE = (
    "Someone else changed this task while you were editing it, so nothing was saved. "
    "The forms now show the task as it is stored; your changes are listed below."
)
STALE_DELETE = (
    "Someone else changed this task since this page was shown, so it was not deleted. "
    "Check it as it is now before you delete it."
)


@dataclass(frozen=True)
class Unsaved:
    """A refused save, as the user typed it: a table to copy from."""

    title: str
    headers: tuple[str, ...]
    rows: list[tuple[str, ...]]


def _items_form(task: Task, posted: bool = False) -> TaskItemsForm:
    if posted:
        return TaskItemsForm(prefix="data")
    form = TaskItemsForm(
        prefix="data",
        formdata=None,
        data={"version": task.version, "shown": stamp(task, Part.ITEMS)},
    )
    for item in task.items:
        if item.key == task.client_id_field:
            continue  # the clientId is kept by the service itself
        form.items.append_entry(
            {"key": item.key, "value": item.value, "display_order": item.display_order}
        )
    for _ in range(BLANK_ROWS):
        form.items.append_entry()
    return form


def _status_form(task: Task, posted: bool = False) -> StatusForm:
    form = StatusForm(prefix="status", **({} if posted else {"formdata": None}))
    form.skill_queue.choices = [
        q.name for q in tenant_service.list_skill_queues(task.campaign.tenant)
    ]
    zones = time_zones()
    if task.time_zone not in zones:
        # A zone stored before the rule tightened (`localtime`) is shown as it is, never
        # silently replaced by the list's first zone; saving it is refused with the reason.
        zones = [task.time_zone, *zones]
    form.time_zone.choices = form.next_zone.choices = zones
    if not posted:
        form.version.data = task.version
        form.shown.data = stamp(task, Part.STATUS)
        form.state.data = task.worked_state
        form.skill_queue.data = task.skill_queue.name
        form.time_zone.data = form.next_zone.data = task.time_zone
        form.preferred_agent.data = task.preferred_agent or ""
        if task.next_earliest_work_at:
            local = task.next_earliest_work_at.astimezone(ZoneInfo(task.time_zone))
            form.next_time.data = local.replace(tzinfo=None, second=0, microsecond=0)
    return form


def _transfer_form(task: Task, posted: bool = False) -> TransferForm:
    form = TransferForm(prefix="transfer", **({} if posted else {"formdata": None}))
    tenant = task.campaign.tenant
    # An archived campaign takes no task: offered only when it is the task's own (a move
    # to another queue of the same campaign).
    open_ones = [c.name for c in campaign_service.list_campaigns(tenant)]
    own = task.campaign.name
    form.destination.choices = open_ones if own in open_ones else sorted([*open_ones, own])
    form.skill_queue.choices = [
        SelectChoice(KEEP_QUEUE, "Unchanged, or the destination's default"),
        *(q.name for q in tenant_service.list_skill_queues(tenant)),
    ]
    if not posted:
        form.version.data = task.version
        form.shown.data = stamp(task, Part.TRANSFER)
        form.destination.data = task.campaign.name
        form.preferred_agent.data = task.preferred_agent or ""
    return form


FORMS: dict[str, tuple[str, Callable[..., FlaskForm]]] = {
    "items_form": ("Data items", _items_form),
    "status_form": ("Status", _status_form),
    "transfer_form": ("Transfer", _transfer_form),
}
PARTS = {TaskItemsForm: Part.ITEMS, StatusForm: Part.STATUS, TransferForm: Part.TRANSFER}


def shown(form: FlaskForm) -> Shown:
    """What the form showed: its version and the stamp of the fields it edits."""
    return Shown(form.version.data, PARTS[type(form)], form.shown.data or None)


def _unsaved(name: str, form: FlaskForm) -> Unsaved:
    """What a refused form held, in the form's words."""
    title = FORMS[name][0]
    if isinstance(form, TaskItemsForm):
        return Unsaved(title, ("Key", "Value", "Order"), sent_rows(form.items))
    rows = [
        (words(field), " ".join(field.raw_data or ()))
        for field in form
        if field.short_name not in ("csrf_token", "version")
    ]
    return Unsaved(title, ("Field", "Value"), rows)


def _task_page(tenant: Tenant, task: Task, error: str | None = None, unsaved=None, **kept):
    """The task page; `kept` holds the one form that was sent, as it was sent."""
    forms = {name: kept.get(name) or build(task) for name, (_, build) in FORMS.items()}
    return render_template(
        "admin/task.html",
        tenant=tenant,
        task=task,
        view=agent_view_of(task),
        contactability=contact_rules.explain(task, utcnow()),
        holding=holder(task),
        held=held_task(task),
        passed_over=passed_over(task),
        attempts=task_attempts(task),
        error=error,
        unsaved=unsaved,
        history=task_history(tenant.id, task.record_id, request.args.get("history", 1, type=int)),
        **forms,
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
    return render_template("admin/agent.html", tenant=tenant, task=task, view=agent_view_of(task))


def _submit(tenant_id: int, record_id: str, form_name: str, action, done: str):
    """Validate one of the task's forms, run its action in one transaction, answer."""
    tenant = tenant_or_404(tenant_id)
    task = task_or_404(tenant, record_id)
    form = FORMS[form_name][1](task, posted=True)

    def refused(error: str):
        # After a rollback the task is read again, as it is stored.
        stored = task_or_404(tenant, record_id)
        if form.version.data is None:
            return _task_page(tenant, stored, OUT_OF_DATE, _unsaved(form_name, form))
        if not still_as_shown(stored, shown(form)):  # its fields changed: show them now
            return _task_page(tenant, stored, STALE, _unsaved(form_name, form))
        return _task_page(tenant, stored, error, **{form_name: form})

    return submit(
        form,
        lambda: action(task, form),
        refused,
        lambda _: done,
        url_for("admin.task", tenant_id=tenant.id, record_id=task.record_id),
    )


@form_post("/tenants/<int:tenant_id>/tasks/<record_id>/items", "admin.task")
def edit_items(tenant_id: int, record_id: str):
    """Replace the task's data items, with the API's add/update rules."""

    def action(task: Task, form: TaskItemsForm):
        task_service.add_or_update_task(
            task.campaign,
            task.client_id,
            item_inputs(form.items),
            record_id=task.record_id,
            expected_version=shown(form),
            actor=supervisor(),
        )

    return _submit(tenant_id, record_id, "items_form", action, "Data items saved.")


@form_post("/tenants/<int:tenant_id>/tasks/<record_id>/status", "admin.task")
def change_status(tenant_id: int, record_id: str):
    """Change the worked state and system fields."""

    def action(task: Task, form: StatusForm):
        changes = TaskChanges(
            skill_queue=form.skill_queue.data,
            preferred_agent=form.preferred_agent.data or "",
            next_earliest=next_time(form.next_time.data, form.next_zone.data),
            time_zone=form.time_zone.data,
        )
        task_service.change_status(
            task.campaign,
            Locator(record_id=task.record_id),
            form.state.data,
            changes,
            expected_version=shown(form),
            actor=supervisor(),
        )

    return _submit(tenant_id, record_id, "status_form", action, "Status changed.")


@form_post("/tenants/<int:tenant_id>/tasks/<record_id>/transfer", "admin.task")
def transfer(tenant_id: int, record_id: str):
    """Move the task to another campaign and/or queue."""

    def action(task: Task, form: TransferForm):
        changes = TaskChanges(
            skill_queue=form.skill_queue.data or None,
            preferred_agent=form.preferred_agent.data or "",
        )
        task_service.transfer_task(
            task.campaign,
            Locator(record_id=task.record_id),
            form.destination.data,
            changes,
            expected_version=shown(form),
            actor=supervisor(),
        )

    return _submit(tenant_id, record_id, "transfer_form", action, "Task moved.")


@form_post("/tenants/<int:tenant_id>/tasks/<record_id>/release", "admin.task")
def release_task(tenant_id: int, record_id: str):
    """Take the task back from the agent who holds it: it returns to its queue."""
    tenant = tenant_or_404(tenant_id)
    return release(
        task_or_404(tenant, record_id),
        lambda error: _task_page(tenant, task_or_404(tenant, record_id), error),
        url_for("admin.task", tenant_id=tenant.id, record_id=record_id),
    )


@bp.route("/tenants/<int:tenant_id>/tasks/<record_id>/delete", methods=["GET", "POST"])
def delete(tenant_id: int, record_id: str):
    """Ask for confirmation, showing the task as stored, then delete that version of it."""
    tenant = tenant_or_404(tenant_id)
    task = task_or_404(tenant, record_id)
    form = DeleteTaskForm()
    error = None
    if not form.is_submitted():
        shown = request.args.get("version", type=int)  # the version the task page showed
        if shown is not None and shown != task.version:
            error = STALE_DELETE
    elif not form.validate():
        error = form_problems(form)
    else:
        campaign = task.campaign
        _, error = attempt(
            lambda: task_service.delete_task(
                campaign,
                Locator(record_id=task.record_id),
                expected_version=form.version.data,
                actor=supervisor(),
            )
        )
        if error is None:
            flash(f"Task '{task.client_id}' deleted.")
            return redirect(url_for("admin.campaign", tenant_id=tenant.id, campaign_id=campaign.id))
        task = task_or_404(tenant, record_id)  # as it is stored now
        if form.version.data != task.version:
            error = STALE_DELETE
    # The confirmation is for the task as this page shows it (raw_data would win over data).
    form.version.data = task.version
    form.version.raw_data = None
    return render_template(
        "admin/task_delete.html",
        tenant=tenant,
        task=task,
        held=held_task(task),
        form=form,
        error=error,
    ), (422 if error and form.is_submitted() else 200)
