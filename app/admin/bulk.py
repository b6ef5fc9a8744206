"""Bulk actions on the campaign page's search result: the action's form, a confirmation
that says how many tasks and what will happen, then the job's progress and report.

The search travels in the query string (`k`, `c`, `v`, `s`, as on the campaign page), the
action's fields in the form. "Review" shows the confirmation without changing anything;
"Confirm" records the job and hands it to the worker, then redirects to its page.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from flask import (
    Response,
    abort,
    flash,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)
from flask_wtf import FlaskForm
from wtforms.fields.choices import SelectChoice

from app.admin.access import campaign_or_404, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.bulk_forms import (
    UNCHANGED,
    BulkAgentForm,
    BulkDeleteForm,
    BulkStatusForm,
    BulkTransferForm,
)
from app.admin.problems import form_problems, refusal_in_form_words
from app.admin.search_args import Search, read_search
from app.extensions import db
from app.models import BulkAction, BulkJob, Campaign, Tenant
from app.services.bulk.actions import BulkRequest, consequences, describe, prepare
from app.services.bulk.report import failure_reasons, failures_csv
from app.services.bulk.runs import (
    CountChanged,
    confirmed_job,
    job_criteria,
    job_request,
    recent_jobs,
    start_bulk,
)
from app.services.campaigns import setup as campaign_service
from app.services.errors import ServiceError
from app.services.search.query import count_tasks
from app.services.tenants import setup as tenant_service
from app.services.values import time_zones
from app.web.form_times import next_time

TITLES = {
    BulkAction.STATUS: "Change the status",
    BulkAction.TRANSFER: "Move to another campaign or queue",
    BulkAction.PREFERRED_AGENT: "Set or clear the preferred agent",
    BulkAction.DELETE: "Delete",
}


def _queues(tenant: Tenant, unchanged: str) -> list:
    names = [q.name for q in tenant_service.list_skill_queues(tenant)]
    return [SelectChoice(UNCHANGED, unchanged), *names]


def _status_form(tenant: Tenant, campaign: Campaign) -> BulkStatusForm:
    form = BulkStatusForm()
    form.skill_queue.choices = _queues(tenant, "Unchanged")
    form.time_zone.choices = [SelectChoice(UNCHANGED, "Unchanged"), *time_zones()]
    form.next_zone.choices = time_zones()
    if not form.is_submitted():
        form.next_zone.data = campaign.default_time_zone
    return form


def _transfer_form(tenant: Tenant, campaign: Campaign) -> BulkTransferForm:
    form = BulkTransferForm()
    form.destination.choices = [c.name for c in campaign_service.list_campaigns(tenant)]
    form.skill_queue.choices = _queues(tenant, "Unchanged, or the destination's default")
    return form


FORMS: dict[str, Callable[[Tenant, Campaign], FlaskForm]] = {
    BulkAction.STATUS: _status_form,
    BulkAction.TRANSFER: _transfer_form,
    BulkAction.PREFERRED_AGENT: lambda tenant, campaign: BulkAgentForm(),
    BulkAction.DELETE: lambda tenant, campaign: BulkDeleteForm(),
}


def bulk_request(action: str, form: FlaskForm) -> BulkRequest:
    """The form's fields as the service's request (None: leave the field as it is)."""
    match action:
        case BulkAction.STATUS:
            return BulkRequest(
                action,
                state=form.state.data,
                skill_queue=form.skill_queue.data or None,
                time_zone=form.time_zone.data or None,
                next_earliest=next_time(form.next_time.data, form.next_zone.data),
                preferred_agent=form.preferred_agent.data or None,
            )
        case BulkAction.TRANSFER:
            return BulkRequest(
                action,
                destination=form.destination.data,
                skill_queue=form.skill_queue.data or None,
                preferred_agent=form.preferred_agent.data or None,
            )
        case BulkAction.PREFERRED_AGENT:
            return BulkRequest(action, preferred_agent=form.preferred_agent.data or "")
    return BulkRequest(action)


def _search_or_back(campaign: Campaign) -> tuple[Search, int] | Response:
    """The search and its count, or back to the campaign page, which says what is wrong."""
    search = read_search(request.args)
    back = url_for(
        "admin.campaign", tenant_id=campaign.tenant_id, campaign_id=campaign.id, **search.args
    )
    if search.error:
        return redirect(back)
    try:
        return search, count_tasks(campaign, search.criteria)
    except ServiceError:
        return redirect(back)


@bp.route(
    "/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/bulk/<action>", methods=["GET", "POST"]
)
def bulk(tenant_id: int, campaign_id: int, action: str):
    """The action's form for the search's tasks; its review; its confirmation."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    if action not in FORMS:
        abort(404)
    found = _search_or_back(campaign)
    if isinstance(found, Response):
        return found
    search, count = found
    form = FORMS[action](tenant, campaign)
    step = request.form.get("go", "edit")

    def page(template: str, error: str | None = None, **shown):
        html = render_template(
            template,
            tenant=tenant,
            campaign=campaign,
            action=action,
            title=TITLES[BulkAction(action)],
            search=search,
            count=count,
            form=form,
            error=error,
            jobs=recent_jobs(campaign),
            **shown,
        )
        return html, (422 if error else 200)

    if request.method == "GET" or step == "edit":
        return page("admin/bulk_form.html")
    if not form.validate_on_submit():
        return page("admin/bulk_form.html", form_problems(form))
    try:
        wanted = bulk_request(action, form)
        prepare(campaign, wanted, supervisor())
    except ServiceError as refusal:
        return page("admin/bulk_form.html", refusal_in_form_words(form, refusal))
    token = request.form.get("token", "")[:36] or None
    if step == "confirm" and token and (started := confirmed_job(campaign, token)):
        flash(f"Bulk job {started.id} was already started from this confirmation.")
        return redirect(url_for("admin.bulk_job", tenant_id=tenant.id, job_id=started.id))
    if step == "confirm":
        try:
            job = start_bulk(
                campaign,
                search.criteria,
                wanted,
                expected=form.expected.data,
                token=token,
                actor=supervisor(),
            )
        except CountChanged as changed:
            db.session.rollback()
            return _review(page, wanted, count, changed.message)
        except ServiceError as refusal:
            db.session.rollback()
            return page("admin/bulk_form.html", refusal_in_form_words(form, refusal))
        flash(f"Bulk job {job.id} started: {describe(wanted, job.confirmed)}.")
        return redirect(url_for("admin.bulk_job", tenant_id=tenant.id, job_id=job.id))
    return _review(page, wanted, count)


def _review(page, wanted: BulkRequest, count: int, error: str | None = None):
    """The confirmation: how many tasks, what will happen to each, and the button."""
    return page(
        "admin/bulk_confirm.html",
        error,
        description=describe(wanted, count),
        notes=consequences(wanted),
        token=request.form.get("token") or str(uuid.uuid4()),
    )


def bulk_or_404(tenant: Tenant, job_id: int) -> BulkJob:
    job = db.session.get(BulkJob, job_id)
    if job is None or job.campaign.tenant_id != tenant.id:
        abort(404)
    return job


@bp.get("/tenants/<int:tenant_id>/bulk/<int:job_id>")
def bulk_job(tenant_id: int, job_id: int):
    """A bulk job's progress, then its report."""
    tenant = tenant_or_404(tenant_id)
    job = bulk_or_404(tenant, job_id)
    return render_template(
        "admin/bulk_job.html",
        tenant=tenant,
        job=job,
        description=describe(job_request(job), job.confirmed),
        criteria=job_criteria(job),
        reasons=failure_reasons(job) if job.failed else [],
    )


@bp.get("/tenants/<int:tenant_id>/bulk/<int:job_id>/failures.csv")
def bulk_failures(tenant_id: int, job_id: int):
    """The tasks the job could not act on, with the reason for each."""
    tenant = tenant_or_404(tenant_id)
    job = bulk_or_404(tenant, job_id)
    response = Response(stream_with_context(failures_csv(job)), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="bulk-{job.id}-failures.csv"'
    return response
