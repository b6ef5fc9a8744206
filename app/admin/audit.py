"""The tenant's audit trail, whole: every change of the tenant, searched by who acted, what
was done and when (UTC), newest first a page at a time, and the same records as CSV
(app/services/audit/search.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Response, render_template, request, stream_with_context

from app.admin.access import tenant_or_404
from app.admin.blueprint import bp
from app.admin.paging import window
from app.services.audit.reading import history_rows
from app.services.audit.search import TrailQuery, count_trail, search_trail
from app.services.errors import ServiceError
from app.services.fields import AUDIT_UNTIL
from app.services.reports.trail_csv import trail_csv

BASE = "/tenants/<int:tenant_id>/audit"
# Where a search's refusal is said: beside the end time, else above the form.
UNTIL, FORM = "to", "form"


def _moment(name: str) -> tuple[datetime | None, str | None]:
    """The datetime-local `?name=` read in UTC, or why it cannot be read."""
    text = request.args.get(name, "").strip()
    if not text:
        return None, None
    try:
        return datetime.fromisoformat(text).replace(tzinfo=UTC), None
    except ValueError:
        return None, "Choose the date and time with the picker."


def _query() -> tuple[TrailQuery, dict[str, str]]:
    since, since_error = _moment("from")
    until, until_error = _moment("to")
    errors = {k: v for k, v in (("from", since_error), ("to", until_error)) if v}
    query = TrailQuery(request.args.get("who", "")[:300], request.args.get("action", "")[:300],
                       since, until)  # fmt: skip
    return query, errors


@bp.get(BASE)
def audit_trail(tenant_id: int):
    """Every change of the tenant that the search selects, newest first."""
    tenant = tenant_or_404(tenant_id)
    query, errors = _query()
    found, total, pages = [], 0, None
    if not errors:
        try:
            total = count_trail(tenant.id, query)
            pages = window(total)
            found = search_trail(tenant.id, query, pages.limit, pages.offset)
        except ServiceError as refused:
            errors[UNTIL if refused.field == AUDIT_UNTIL else FORM] = refused.message
    args = {k: request.args.get(k, "") for k in ("who", "action", "from", "to")}
    return render_template(
        "admin/audit.html",
        tenant=tenant,
        rows=history_rows(found),
        total=total,
        pages=pages,
        args=args,
        errors=errors,
    ), (422 if errors else 200)


@bp.get(BASE + ".csv")
def audit_trail_csv(tenant_id: int):
    """The records the search selects as CSV, oldest first, streamed."""
    tenant = tenant_or_404(tenant_id)
    query, errors = _query()
    if errors:
        return Response("; ".join(errors.values()), status=422, mimetype="text/plain")
    try:
        query = query.checked()
    except ServiceError as refused:
        return Response(refused.message, status=422, mimetype="text/plain")
    response = Response(stream_with_context(trail_csv(tenant.id, query)), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="audit.csv"'
    return response
