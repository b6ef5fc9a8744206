"""Who may see what: sign-in required on every page, tenants limited per supervisor."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import abort, flash, redirect, request, url_for
from flask_login import current_user

from app.admin.blueprint import bp
from app.admin.problems import form_problems, refusal_in_form_words
from app.db.transactions import in_one_transaction
from app.extensions import db
from app.models import Campaign, Task, Tenant
from app.services.actors import Actor
from app.services.errors import ServiceError
from app.services.tasks.changes import find_tenant_task
from app.web.error_summary import ErrorSummary

T = TypeVar("T")
PUBLIC_ENDPOINTS = frozenset({"admin.login"})
# Every step of signing in through the console's identity provider (app/admin/sso.py).
SSO_ENDPOINTS = "admin.sso_"


@bp.before_request
def _no_nul():
    """Form and query values never hold U+0000, which no database keeps."""
    for values in (request.args, request.form):
        if any("\x00" in key + value for key, value in values.items(multi=True)):
            abort(400, "A field holds a NUL character, which no field may contain.")


@bp.before_request
def _signed_in():
    public = request.endpoint in PUBLIC_ENDPOINTS or (request.endpoint or "").startswith(
        SSO_ENDPOINTS
    )
    if not public and not current_user.is_authenticated:
        return redirect(url_for("admin.login", next=request.full_path.rstrip("?")))
    return None


def supervisor() -> Actor:
    """Who acts on these pages: the signed-in supervisor."""
    return Actor.supervisor(current_user.email)


def tenant_or_404(tenant_id: int) -> Tenant:
    """The tenant, when this supervisor may see it; 404 otherwise, as if it did not exist."""
    tenant = db.session.get(Tenant, tenant_id)
    if tenant is None or not current_user.may_see(tenant):
        abort(404)
    return tenant


def campaign_or_404(tenant: Tenant, campaign_id: int) -> Campaign:
    campaign = db.session.get(Campaign, campaign_id)
    if campaign is None or campaign.tenant_id != tenant.id:
        abort(404)
    return campaign


def task_or_404(tenant: Tenant, record_id: str) -> Task:
    task = find_tenant_task(tenant.id, record_id)
    if task is None:
        abort(404)
    return task


def attempt_refused(action: Callable[[], T]) -> tuple[T | None, ServiceError | None]:
    """Run one service action in one transaction: its result, or the refusal."""
    return in_one_transaction(db.session, action, refusals=ServiceError)


def attempt(action: Callable[[], T]) -> tuple[T | None, str | None]:
    """Run one service action in one transaction: its result, or the reason it was refused."""
    result, refusal = attempt_refused(action)
    return result, (refusal.message if refusal else None)


def submit(
    form,
    action: Callable[[], T],
    page: Callable[[ErrorSummary], object],
    done: Callable[[T], str],
    target: str | Callable[[T], str],
):
    """The one way a form changes something: validate it, run its service action in one
    transaction, then redirect to `target` with `done(result)` as the message; on a
    refusal, `page(summary)` shows the form again as it was sent, each reason in the form's
    words beside the field at fault and the page's summary linking to it."""
    if not form.validate_on_submit():
        return page(form_problems(form))
    result, refusal = attempt_refused(action)
    if refusal:
        return page(refusal_in_form_words(form, refusal))
    flash(done(result))
    return redirect(target(result) if callable(target) else target)
