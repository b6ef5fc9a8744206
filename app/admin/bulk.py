"""Bulk actions on the campaign page's search result: the action's form, a confirmation
that says how many tasks and what will happen, then the job's progress and report.

The search travels in the query string (`k`, `c`, `v`, `s`, as on the campaign page), the
action's fields in the form. "Review" checks the form and redirects to the review, a GET
page whose URL carries the signed review (app/admin/bulk_reviews.py): a reload, Back or a
second tab shows it again and changes nothing. "Confirm" posts that review, records the
job once and redirects to the job's page; a review confirmed already, or overtaken by a
job that changed the campaign's tasks since, is refused on its page, naming that job.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC

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
    BulkConfirmForm,
    BulkDeleteForm,
    BulkStatusForm,
    BulkTransferForm,
)
from app.admin.bulk_reviews import read, signed
from app.admin.problems import form_problems, refusal_in_form_words
from app.admin.search_args import Search, read_search
from app.extensions import db
from app.models import BulkAction, BulkJob, Campaign, Tenant
from app.services.bulk.actions import BulkRequest, consequences, describe
from app.services.bulk.jobs import CountChanged, job_criteria, job_request, recent_jobs
from app.services.bulk.report import failure_reasons, failures_csv
from app.services.bulk.reviews import (
    Review,
    ReviewRefused,
    confirm_review,
    held_in_review,
    review_bulk,
    standing,
)
from app.services.campaigns import catalogue as campaign_service
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


def _fill(form: FlaskForm, wanted: BulkRequest) -> None:
    """The form as the review's request had it (its "Change…" and "Review again")."""
    for name in ("state", "destination", "skill_queue", "time_zone", "preferred_agent"):
        if name in form and (value := getattr(wanted, name)) is not None:
            form[name].data = value
    if "next_time" in form and wanted.next_earliest is not None:
        form.next_time.data = wanted.next_earliest.astimezone(UTC).replace(tzinfo=None)
        form.next_zone.data = "UTC"


def _page(template: str, tenant: Tenant, campaign: Campaign, action: str, search: Search, **shown):
    return render_template(
        template,
        tenant=tenant,
        campaign=campaign,
        action=action,
        title=TITLES[BulkAction(action)],
        search=search,
        jobs=recent_jobs(campaign),
        **shown,
    )


def _review_url(campaign: Campaign, action: str, search: Search, review: Review) -> str:
    return url_for(
        "admin.bulk_review",
        tenant_id=campaign.tenant_id,
        campaign_id=campaign.id,
        action=action,
        p=signed(review),
        **search.args,
    )


def _form_url(campaign: Campaign, action: str, search: Search, **extra) -> str:
    return url_for(
        "admin.bulk",
        tenant_id=campaign.tenant_id,
        campaign_id=campaign.id,
        action=action,
        **search.args,
        **extra,
    )


@bp.route(
    "/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/bulk/<action>", methods=["GET", "POST"]
)
def bulk(tenant_id: int, campaign_id: int, action: str):
    """The action's form for the search's tasks; sent, it is checked and its review shown
    on a page of its own (a GET, so a reload or Back never sends anything again)."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    if action not in FORMS:
        abort(404)
    found = _search_or_back(campaign)
    if isinstance(found, Response):
        return found
    search, count = found
    form = FORMS[action](tenant, campaign)

    def page(error: str | None = None):
        html = _page(
            "admin/bulk_form.html",
            tenant,
            campaign,
            action,
            search,
            count=count,
            form=form,
            error=error,
        )
        return html, (422 if error else 200)

    if request.method == "GET":
        if (shown := read(request.args.get("p"), campaign.id, action)) is not None:
            _fill(form, shown.request)
        return page()
    if request.form.get("go") == "edit":
        return page()
    if not form.validate_on_submit():
        return page(form_problems(form))
    try:
        wanted = bulk_request(action, form)
        review = review_bulk(campaign, search.criteria, wanted, actor=supervisor())
    except ServiceError as refusal:
        return page(refusal_in_form_words(form, refusal))
    return redirect(_review_url(campaign, action, search, review), 303)


def _reviewed(campaign: Campaign, action: str, text: str | None) -> tuple[Search, Review | None]:
    """The search and the review a review page's URL (or confirmation) carries; None when
    they do not verify or do not agree."""
    search = read_search(request.args)
    review = read(text, campaign.id, action)
    if search.error or review is None or review.criteria != search.criteria:
        return search, None
    return search, review


@bp.get("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/bulk/<action>/review")
def bulk_review(tenant_id: int, campaign_id: int, action: str):
    """The review: how many tasks, which of them agents hold now, what will happen to each,
    and the button; or, once confirmed or overtaken by another job, why not and that job."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    if action not in FORMS:
        abort(404)
    search, review = _reviewed(campaign, action, request.args.get("p"))
    if review is None:
        flash("That review is not one this service made; review the action again.")
        return redirect(_form_url(campaign, action, search))
    form = FORMS[action](tenant, campaign)
    _fill(form, review.request)
    return _page(
        "admin/bulk_confirm.html",
        tenant,
        campaign,
        action,
        search,
        form=form,
        count=review.count,
        description=describe(review.request, review.count),
        notes=consequences(review.request),
        held=held_in_review(campaign, review),
        refused=standing(campaign, review),
        signed=request.args.get("p"),
        change_url=_form_url(campaign, action, search, p=request.args.get("p")),
    )


@bp.post("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/bulk/<action>/review")
def bulk_confirm(tenant_id: int, campaign_id: int, action: str):
    """Confirm the review: start its job once and go to the job's page; a review confirmed
    already, or overtaken by another job, goes back to its page, which says which job."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    if action not in FORMS:
        abort(404)
    confirmation = BulkConfirmForm()
    search, review = _reviewed(campaign, action, confirmation.review.data)
    if not confirmation.validate_on_submit() or review is None:
        abort(400)
    back = _review_url(campaign, action, search, review)
    try:
        job = confirm_review(campaign, review, actor=supervisor())
    except ReviewRefused as refused:
        db.session.rollback()
        flash(f"Not started: {refused.message}.")
        return redirect(back, 303)
    except CountChanged as changed:
        db.session.rollback()
        again = review_bulk(campaign, review.criteria, review.request, actor=supervisor())
        flash(f"Not started: {changed.message}.")
        return redirect(_review_url(campaign, action, search, again), 303)
    except ServiceError as refusal:
        db.session.rollback()
        flash(f"Not started: {refusal.message}.")
        return redirect(_form_url(campaign, action, search, p=confirmation.review.data), 303)
    flash(f"Bulk job {job.id} started: {describe(review.request, job.confirmed)}.")
    return redirect(url_for("admin.bulk_job", tenant_id=tenant.id, job_id=job.id), 303)


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
