"""The Agents page: each agent's state, time in state and task, and releasing a held task."""

from __future__ import annotations

from datetime import timedelta

from flask import render_template, request, url_for
from flask_wtf import FlaskForm

from app.admin.access import submit, supervisor, task_or_404, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import TaskVersion
from app.admin.paging import window
from app.admin.prg import form_post
from app.admin.wallboard import live_answer, live_stream, no_csrf_token, page_etag
from app.models import Task, Tenant
from app.models.types import utcnow
from app.services.delivery import progress


class ReleaseForm(FlaskForm, TaskVersion):
    """Release a held task, as of the version the page showed: a task closed and delivered
    again since is not taken from its new agent."""


@bp.app_template_filter("duration")
def duration(span: timedelta | None) -> str:
    """A time in state, short: "under a minute", "12 min", "3 h 5 min", "2 d 4 h"."""
    if span is None:
        return "—"
    minutes = int(span.total_seconds()) // 60
    if minutes < 1:
        return "under a minute"
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min"


def _board(tenant: Tenant, template: str, **more):
    now = utcnow()
    shown = window(progress.count_agents(tenant, now))
    return render_template(
        template,
        tenant=tenant,
        rows=progress.agent_board(tenant, now, shown.limit, shown.offset),
        page=shown.page,
        pages=shown.pages,
        **more,
    )


def _board_page(tenant: Tenant, error: str | None = None):
    etag = page_etag(tenant)  # before the board: a change meanwhile shows at the next poll
    page = _board(tenant, "admin/agents.html", error=error, live_etag=etag)
    return page, (422 if error else 200)


@bp.get("/tenants/<int:tenant_id>/agents")
def agents(tenant_id: int):
    """The tenant's agents: state as delivery sees it, for how long, queues, task held."""
    return _board_page(tenant_or_404(tenant_id))


@bp.get("/tenants/<int:tenant_id>/agents/live")
def agents_live(tenant_id: int):
    """The Agents page's board alone (the page asks for it again every second), or 304
    when nothing changed since the viewer's ETag."""
    tenant = tenant_or_404(tenant_id)
    return live_answer(tenant, lambda _token: _board(tenant, "admin/_agents_board.html"))


@bp.get("/tenants/<int:tenant_id>/agents/stream")
def agents_stream(tenant_id: int):
    """The Agents page's board (of `?page=`) as server-sent events: sent again whenever it
    changes."""
    page = max(request.args.get("page", 1, type=int), 1)
    return live_stream(
        tenant_or_404(tenant_id),
        lambda tenant: _board(tenant, "admin/_agents_board.html", csrf_token=no_csrf_token),
        {"page": str(page)},
    )


def release(task: Task, page, target: str):
    """Release the task from its agent (the form's version), flash who had it, go to `target`."""
    form = ReleaseForm()
    return submit(
        form,
        lambda: progress.release_by_supervisor(
            task, actor=supervisor(), expected_version=form.version.data
        ),
        page,
        lambda agent: (
            f"Task '{task.client_id}' released from {agent.login_user_id}: "
            "it goes to the next agent of its queue."
        ),
        target,
    )


@form_post("/tenants/<int:tenant_id>/agents/tasks/<record_id>/release", "admin.agents")
def release_from_board(tenant_id: int, record_id: str):
    """Release a task from the Agents page; back to that page."""
    tenant = tenant_or_404(tenant_id)
    task = task_or_404(tenant, record_id)
    return release(
        task,
        lambda error: _board_page(tenant, error),
        url_for("admin.agents", tenant_id=tenant.id),
    )
