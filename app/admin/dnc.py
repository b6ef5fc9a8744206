"""The tenant's do-not-call list: search (paged), add, remove (asked first), CSV import with
its report (shown once, on the page the import redirects to), export, and the list's
history."""

from __future__ import annotations

import json
from dataclasses import asdict

from flask import Response, flash, redirect, render_template, request, stream_with_context, url_for

from app.admin.access import attempt, submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.dnc_forms import DncAddForm, DncImportForm, DncRemoveForm
from app.admin.paging import window
from app.admin.prg import form_post, hold, shown_once
from app.admin.problems import form_problems, form_problems_in_words
from app.models import Tenant
from app.models.types import utcnow
from app.services import shown_once as held_values
from app.services.audit.reading import paged_tenant_history
from app.services.dnc import numbers as dnc
from app.services.dnc.list_csv import ImportReport, RowResult, export_csv, import_numbers
from app.services.errors import ServiceError

BASE = "/tenants/<int:tenant_id>/dnc"
HISTORY_KINDS = ("dnc_number", "dnc_import")
# Rows of an import's report the page lists, per kind; the counts tell the rest.
SHOWN_ROWS = 200


def _search() -> tuple[str, bool]:
    return request.args.get("q", "").strip()[:64], request.args.get("exact") == "1"


def _report_slot(tenant: Tenant) -> str:
    return f"dnc_import:{tenant.id}"


def _kept_report(report: ImportReport) -> str:
    """The report as the page after the redirect shows it: the counts, and the first
    `SHOWN_ROWS` rows of each kind."""
    return json.dumps(
        {
            "file_name": report.file_name,
            "added": report.added,
            "counts": {"already": len(report.already), "refused": len(report.refused)},
            "already": [asdict(row) for row in report.already[:SHOWN_ROWS]],
            "refused": [asdict(row) for row in report.refused[:SHOWN_ROWS]],
        }
    )


def _shown_report(tenant: Tenant) -> dict | None:
    kept = shown_once(_report_slot(tenant))
    if kept is None:
        return None
    report = json.loads(kept)
    for kind in ("already", "refused"):
        report[kind] = [RowResult(**row) for row in report[kind]]
    return report


def _page(tenant: Tenant, add_form=None, import_form=None, report=None, error=None):
    query, exact = _search()
    try:
        total = dnc.count_numbers(tenant, query, exact=exact)
    except ServiceError as refusal:
        error, query, exact = error or refusal.message, "", False
        total = dnc.count_numbers(tenant)
    shown = window(total)
    found = dnc.search_numbers(tenant, query, exact=exact, limit=shown.limit, offset=shown.offset)
    history = paged_tenant_history(
        tenant.id, HISTORY_KINDS, request.args.get("history", 1, type=int), shown.limit
    )
    return render_template(
        "admin/dnc.html",
        tenant=tenant,
        entries=found.entries,
        total=total,
        query=query,
        exact=exact,
        page=shown.page,
        pages=shown.pages,
        add_form=add_form or DncAddForm(prefix="add"),
        import_form=import_form or DncImportForm(prefix="import"),
        report=report,
        history=history,
        error=error,
    ), (422 if error else 200)


@bp.get(BASE)
def dnc_list(tenant_id: int):
    """The list: search by prefix or exact number, a page at a time; the forms; history;
    the report of an import just made, this once."""
    tenant = tenant_or_404(tenant_id)
    return _page(tenant, report=_shown_report(tenant))


@form_post(BASE + "/add", "admin.dnc_list")
def dnc_add(tenant_id: int):
    """List the typed numbers (all or none)."""
    tenant = tenant_or_404(tenant_id)
    form = DncAddForm(prefix="add")

    def said(done: dnc.Added) -> str:
        text = f"Added {len(done.added)} to the do-not-call list."
        return text + (f" Already listed: {', '.join(done.already)}." if done.already else "")

    return submit(
        form,
        lambda: dnc.add_numbers(
            tenant, form.typed_numbers(), form.note.data or "supervisor", actor=supervisor()
        ),
        lambda error: _page(tenant, add_form=form, error=error),
        said,
        url_for("admin.dnc_list", tenant_id=tenant.id),
    )


@bp.get(BASE + "/remove")
def confirm_dnc_remove(tenant_id: int):
    """Ask before taking a number off the list (a row's Remove link): agents may then be
    offered to call it again."""
    tenant = tenant_or_404(tenant_id)
    form = DncRemoveForm(request.args, meta={"csrf": False})
    if not form.validate():
        return redirect(url_for("admin.dnc_list", tenant_id=tenant.id))
    try:
        found = dnc.search_numbers(tenant, form.number.data, exact=True, limit=1).entries
    except ServiceError:  # not a number at all: so not on the list
        found = []
    return render_template(
        "admin/dnc_remove.html",
        tenant=tenant,
        entry=found[0] if found else None,
        number=form.number.data,
        form=DncRemoveForm(formdata=None, number=form.number.data, q=form.q.data),
        query=form.q.data or "",
    )


@bp.post(BASE + "/remove")
def dnc_remove(tenant_id: int):
    """Take one number off the list (confirmed on its page)."""
    tenant = tenant_or_404(tenant_id)
    form = DncRemoveForm()
    if not form.validate_on_submit():
        flash(form_problems_in_words(form))
        return redirect(url_for("admin.dnc_list", tenant_id=tenant.id), 303)
    number = form.number.data
    done, error = attempt(lambda: dnc.remove_numbers(tenant, [number], actor=supervisor()))
    if error:
        flash(error)
    elif done.removed:
        flash(f"{number} removed from the do-not-call list.")
    else:
        flash(f"{number} was not on the do-not-call list.")
    return redirect(url_for("admin.dnc_list", tenant_id=tenant.id, q=form.q.data or None), 303)


@form_post(BASE + "/import", "admin.dnc_list")
def dnc_import(tenant_id: int):
    """Import a CSV file in one transaction, then redirect to the list, which shows its
    report once."""
    tenant = tenant_or_404(tenant_id)
    form = DncImportForm(prefix="import")
    if not form.validate_on_submit():
        return _page(tenant, import_form=form, error=form_problems(form))
    upload = form.file.data
    name = upload.filename or "upload.csv"

    def run() -> held_values.Claim:
        data = upload.read()
        report = import_numbers(tenant, data, name, actor=supervisor(), note=form.note.data or "")
        return held_values.keep(_kept_report(report), secret=False, now=utcnow())

    claim, error = attempt(run)
    if error:
        return _page(tenant, import_form=form, error=f"{name}: {error}")
    hold(_report_slot(tenant), claim)
    return redirect(url_for("admin.dnc_list", tenant_id=tenant.id), 303)


@bp.get(BASE + "/export.csv")
def dnc_export(tenant_id: int):
    """The whole list as CSV (number, note, added), streamed."""
    tenant = tenant_or_404(tenant_id)
    response = Response(stream_with_context(export_csv(tenant)), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="do-not-call.csv"'
    return response
