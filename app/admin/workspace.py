"""The agents' workspace settings: the tenant's away reasons, and each skill queue's wrap-up
limit. Each form posts, redirects and is audited by its service (app/services/delivery)."""

from __future__ import annotations

from typing import ClassVar

from flask import abort, render_template, url_for
from flask_wtf import FlaskForm
from wtforms import IntegerField, StringField
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from app.admin.access import submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.prg import form_post
from app.extensions import db
from app.models import SkillQueue, Tenant
from app.services.delivery import away_reasons, wrap_up
from app.services.tenants.setup import list_skill_queues

REASONS = "/tenants/<int:tenant_id>/away-reasons"
QUEUES = "/tenants/<int:tenant_id>/skill-queues"


class ReasonForm(FlaskForm):
    refusal_subject: ClassVar = "away_reason"
    name = StringField("Reason", validators=[DataRequired(), Length(max=away_reasons.MAX_NAME)])
    sort_order = IntegerField("Order (lower first)", default=0, validators=[Optional()])


class WrapUpLimitForm(FlaskForm):
    refusal_subject: ClassVar = "wrap_up"
    seconds = IntegerField(
        "Wrap-up limit (seconds; empty: none)",
        validators=[
            Optional(),
            NumberRange(wrap_up.MIN_LIMIT_SECONDS, wrap_up.MAX_LIMIT_SECONDS),
        ],
    )


def _reasons_page(tenant: Tenant, form: ReasonForm | None = None, error: str | None = None):
    return render_template(
        "admin/away_reasons.html",
        tenant=tenant,
        reasons=away_reasons.list_reasons(tenant),
        form=form or ReasonForm(prefix="reason"),
        button_form=ConfirmForm(),
        error=error,
    ), (422 if error else 200)


@bp.get(REASONS)
def away_reasons_page(tenant_id: int):
    """The reasons agents choose for being Away, and a form for a new one."""
    return _reasons_page(tenant_or_404(tenant_id))


@form_post(REASONS, "admin.away_reasons_page")
def add_away_reason(tenant_id: int):
    """Add an away reason."""
    tenant = tenant_or_404(tenant_id)
    form = ReasonForm(prefix="reason")
    return submit(
        form,
        lambda: away_reasons.add_reason(
            tenant, form.name.data, sort_order=form.sort_order.data or 0, actor=supervisor()
        ),
        lambda error: _reasons_page(tenant, form, error),
        lambda reason: f"Away reason '{reason.name}' added.",
        url_for("admin.away_reasons_page", tenant_id=tenant.id),
    )


@form_post(REASONS + "/<int:reason_id>/remove", "admin.away_reasons_page")
def remove_away_reason(tenant_id: int, reason_id: int):
    """Remove an away reason: agents away with it stay so, the reports keep its time."""
    tenant = tenant_or_404(tenant_id)
    reason = next((r for r in away_reasons.list_reasons(tenant) if r.id == reason_id), None)
    if reason is None:
        abort(404)
    name = reason.name
    return submit(
        ConfirmForm(),
        lambda: away_reasons.remove_reason(tenant, name, actor=supervisor()),
        lambda error: _reasons_page(tenant, error=error),
        lambda _reason: f"Away reason '{name}' removed.",
        url_for("admin.away_reasons_page", tenant_id=tenant.id),
    )


def _queue_or_404(tenant: Tenant, queue_id: int) -> SkillQueue:
    queue = db.session.get(SkillQueue, queue_id)
    if queue is None or queue.tenant_id != tenant.id:
        abort(404)
    return queue


def _queues_page(tenant: Tenant, refused: tuple[int, WrapUpLimitForm] | None = None, error=None):
    queues = list_skill_queues(tenant)
    forms = {
        queue.id: WrapUpLimitForm(
            prefix=f"q{queue.id}", data={"seconds": queue.wrap_up_limit_seconds}
        )
        for queue in queues
    }
    if refused is not None:
        forms[refused[0]] = refused[1]
    return render_template(
        "admin/skill_queues.html",
        tenant=tenant,
        queues=queues,
        forms=forms,
        limit_words=wrap_up.limit_words,
        error=error,
    ), (422 if error else 200)


@bp.get(QUEUES)
def skill_queues_page(tenant_id: int):
    """The tenant's skill queues: schedule, work-code groups and wrap-up limit."""
    return _queues_page(tenant_or_404(tenant_id))


@form_post(QUEUES + "/<int:queue_id>/wrap-up-limit", "admin.skill_queues_page")
def set_wrap_up_limit(tenant_id: int, queue_id: int):
    """Set (or clear) a queue's wrap-up limit."""
    tenant = tenant_or_404(tenant_id)
    queue = _queue_or_404(tenant, queue_id)
    form = WrapUpLimitForm(prefix=f"q{queue.id}")
    return submit(
        form,
        lambda: wrap_up.set_wrap_up_limit(queue, form.seconds.data, actor=supervisor()),
        lambda error: _queues_page(tenant, (queue.id, form), error),
        lambda changed: (
            f"Skill queue '{changed.name}': wrap-up limit "
            f"{wrap_up.limit_words(changed.wrap_up_limit_seconds)}."
        ),
        url_for("admin.skill_queues_page", tenant_id=tenant.id),
    )
