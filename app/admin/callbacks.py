"""Every agent's callbacks (the tasks kept for an agent while their hold runs), and handing
one to another agent of its queue."""

from __future__ import annotations

from typing import ClassVar

from flask import render_template, url_for
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import HiddenField, SelectField
from wtforms.validators import DataRequired, Length

from app.admin.access import submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.prg import form_post
from app.extensions import db
from app.models import Tenant, User
from app.models.types import utcnow
from app.services.delivery import callbacks


class HandOverForm(FlaskForm):
    refusal_subject: ClassVar = "task"
    record_id = HiddenField(validators=[DataRequired(), Length(max=64)])
    agent = SelectField("Hand to", validate_choice=False, validators=[DataRequired()])


def _agents_by_queue(tenant: Tenant) -> dict[int, list[str]]:
    agents = db.session.scalars(
        select(User).where(User.tenant_id == tenant.id).order_by(User.login_user_id)
    )
    found: dict[int, list[str]] = {}
    for agent in agents:
        for queue in agent.skill_queues:
            found.setdefault(queue.id, []).append(agent.login_user_id)
    return found


def _page(tenant: Tenant, error=None, status: int = 200):
    return render_template(
        "admin/callbacks.html",
        tenant=tenant,
        callbacks=callbacks.callbacks(tenant, utcnow()),
        shown=callbacks.SHOWN,
        agents=_agents_by_queue(tenant),
        form=HandOverForm(formdata=None),
        error=error,
    ), status


@bp.get("/tenants/<int:tenant_id>/callbacks")
def callbacks_page(tenant_id: int):
    """The tasks kept for each agent now, the soonest due first."""
    return _page(tenant_or_404(tenant_id))


@form_post("/tenants/<int:tenant_id>/callbacks/hand-over", "admin.callbacks_page")
def hand_over_callback(tenant_id: int):
    """Keep a callback for another agent of its queue."""
    tenant = tenant_or_404(tenant_id)
    form = HandOverForm()
    return submit(
        form,
        lambda: callbacks.hand_over(
            tenant, form.record_id.data, form.agent.data, actor=supervisor(), now=utcnow()
        ),
        lambda error: _page(tenant, error, 422),
        lambda task: f"The callback of {task.client_id} is kept for {task.preferred_agent} now.",
        url_for("admin.callbacks_page", tenant_id=tenant.id),
    )
