"""Intake files from the campaign page: upload (loaded by the worker), progress, report
download, and export of the current search."""

from __future__ import annotations

from flask import (
    Response,
    abort,
    flash,
    redirect,
    render_template,
    request,
    send_file,
    stream_with_context,
    url_for,
)

from app.admin.access import campaign_or_404, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import IntakeForm
from app.admin.prg import form_post
from app.admin.search_args import criteria_from_args
from app.extensions import db
from app.models import IntakeLoad, Tenant
from app.services.audit.reading import describe_actor
from app.services.delivery.progress_groups import group as progress_group
from app.services.errors import ServiceError, Unavailable
from app.services.intake.export import export_csv
from app.services.intake.runs import report_file, start_load

UPLOAD_ENDPOINT = "admin.upload_intake"


def load_or_404(tenant: Tenant, load_id: str) -> IntakeLoad:
    load = db.session.get(IntakeLoad, load_id)
    if load is None or load.campaign.tenant_id != tenant.id:
        abort(404)
    return load


@form_post("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/intake", "admin.campaign")
def upload_intake(tenant_id: int, campaign_id: int):
    """Take an intake file and hand its load to the worker."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    form = IntakeForm()
    if not form.validate_on_submit():
        flash("Choose a CSV file to load.")
        return redirect(url_for("admin.campaign", tenant_id=tenant.id, campaign_id=campaign.id))
    upload = form.file.data
    try:
        load = start_load(
            campaign,
            upload.filename or "upload.csv",
            "upload",
            upload.save,
            actor=supervisor(),
            dry_run=form.dry_run.data,
            all_or_nothing=form.all_or_nothing.data,
            in_worker=True,
        )
    except Unavailable as refusal:  # the job queue is down: nothing kept, nothing queued
        flash(refusal.message)
        return redirect(url_for("admin.campaign", tenant_id=tenant.id, campaign_id=campaign.id))
    return redirect(url_for("admin.intake_load", tenant_id=tenant.id, load_id=load.id))


@bp.app_template_filter("started_by")
def started_by(load: IntakeLoad) -> str:
    """Who started the load, in the pages' words; loads from before it was kept say so."""
    if load.started_by_kind is None:
        return "not recorded"
    return describe_actor(load.started_by_kind, load.started_by_id or "")


@bp.get("/tenants/<int:tenant_id>/loads/<load_id>")
def intake_load(tenant_id: int, load_id: str):
    """A load's progress, then its counts and report."""
    tenant = tenant_or_404(tenant_id)
    return render_template(
        "admin/intake_load.html", tenant=tenant, load=load_or_404(tenant, load_id)
    )


@bp.get("/tenants/<int:tenant_id>/loads/<load_id>/report.csv")
def intake_report(tenant_id: int, load_id: str):
    """The load's report: rejected and superseded rows."""
    tenant = tenant_or_404(tenant_id)
    load = load_or_404(tenant, load_id)
    path = report_file(load)
    if not load.finished or not path.exists():
        abort(404)
    name = f"{load.file_name.rsplit('.', 1)[0]}-report.csv"
    return send_file(path, mimetype="text/csv", as_attachment=True, download_name=name)


@bp.get("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/export.csv")
def export_campaign(tenant_id: int, campaign_id: int):
    """The current search's tasks as an intake file, streamed."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    criteria, error = criteria_from_args(request.args)
    # Named first: export_csv ends this request's transaction, and a read after it would
    # begin another, left idle for as long as the download streams.
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in campaign.name)
    try:
        # The tasks of a group of the Progress panel, when the page showed those.
        shown = request.args.get("group", "").strip()
        also = [progress_group(tenant.id, shown).condition] if shown and not error else []
        chunks = None if error else export_csv(campaign, criteria, also)
    except ServiceError as refusal:  # refused before the first byte, not a cut-off download
        error = refusal.message
    if error:
        abort(400, error)
    response = Response(stream_with_context(chunks), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response
