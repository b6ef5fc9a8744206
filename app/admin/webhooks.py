"""The tenant's webhook endpoints: register, edit, rotate the secret (shown once, on the
page the form's redirect leads to), delete, re-enable, and each endpoint's delivery log
with replay."""

from __future__ import annotations

from typing import ClassVar

from flask import (
    abort,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_wtf import FlaskForm
from wtforms import BooleanField, SelectMultipleField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length
from wtforms.widgets import CheckboxInput, ListWidget

from app.admin.access import attempt, attempt_refused, submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.paging import window
from app.admin.prg import form_post, hold, shown_once
from app.admin.problems import form_problems, refusal_in_form_words
from app.models import Tenant, WebhookEndpoint
from app.models.types import utcnow
from app.services import shown_once as held_values
from app.services.errors import NotFound
from app.services.fields import WEBHOOK_REPLAY_SINCE
from app.services.webhooks import endpoints as service
from app.services.webhooks import log
from app.services.webhooks.event_types import EVENT_TYPES

BASE = "/tenants/<int:tenant_id>/webhooks"
ONE = BASE + "/<int:endpoint_id>"


class ReplaySinceForm(FlaskForm):
    refusal_fields: ClassVar = {WEBHOOK_REPLAY_SINCE: "since"}
    since = StringField(
        "Replay the events since (UTC)",
        validators=[DataRequired(), Length(max=40)],
        render_kw={"type": "datetime-local", "step": "1"},
    )


class WebhookForm(FlaskForm):
    refusal_subject: ClassVar = "webhook"
    url = StringField("URL", validators=[DataRequired(), Length(max=2048)])
    types = SelectMultipleField(
        "Event types (none ticked: every type)",
        choices=[SelectChoice(name, said) for name, said in EVENT_TYPES.items()],
        widget=ListWidget(prefix_label=False),
        option_widget=CheckboxInput(),
    )
    description = StringField("Description", validators=[Length(max=255)])
    enabled = BooleanField("Enabled", default=True)


def _endpoint_or_404(tenant: Tenant, endpoint_id: int) -> WebhookEndpoint:
    try:
        return service.get_endpoint(tenant, endpoint_id)
    except NotFound:
        abort(404)


def _no_store(response):
    # A page showing a secret is never stored by the browser or a proxy.
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get(BASE)
def webhooks(tenant_id: int):
    """The tenant's endpoints with their state."""
    tenant = tenant_or_404(tenant_id)
    return render_template(
        "admin/webhooks.html",
        tenant=tenant,
        endpoints=service.list_endpoints(tenant),
        pending=service.pending_counts(tenant),
    )


def _form_page(tenant: Tenant, form: WebhookForm, endpoint=None, error=None):
    return render_template(
        "admin/webhook_form.html", tenant=tenant, form=form, endpoint=endpoint, error=error
    ), (422 if error else 200)


# What the secret page is titled after each form that makes a secret.
SECRET_TITLES = {"added": "Endpoint added", "rotated": "Secret rotated"}


def _slot(endpoint: WebhookEndpoint) -> str:
    return f"webhook_secret:{endpoint.id}"


def _keep_secret(secret: str, made: str) -> held_values.Claim:
    return held_values.keep(f"{made}:{secret}", secret=True, now=utcnow())


def _to_secret_page(tenant: Tenant, endpoint: WebhookEndpoint, claim: held_values.Claim):
    hold(_slot(endpoint), claim)
    return redirect(
        url_for("admin.webhook_secret", tenant_id=tenant.id, endpoint_id=endpoint.id), 303
    )


@bp.get(ONE + "/secret")
def webhook_secret(tenant_id: int, endpoint_id: int):
    """The secret a form just made, shown this once; afterwards the page says so."""
    tenant = tenant_or_404(tenant_id)
    endpoint = _endpoint_or_404(tenant, endpoint_id)
    made, _, secret = (shown_once(_slot(endpoint)) or "").partition(":")
    page = render_template(
        "admin/webhook_secret.html",
        tenant=tenant,
        endpoint=endpoint,
        secret=secret or None,
        title=SECRET_TITLES.get(made, "Signing secret"),
    )
    return _no_store(make_response(page))


@bp.route(BASE + "/new", methods=["GET", "POST"])
def new_webhook(tenant_id: int):
    """Register an endpoint; its secret is shown once, on the page the form redirects to."""
    tenant = tenant_or_404(tenant_id)
    form = WebhookForm()
    if request.method == "GET":
        return _form_page(tenant, form)
    if not form.validate_on_submit():
        return _form_page(tenant, form, error=form_problems(form))

    def create():
        endpoint = service.create_endpoint(
            tenant, form.url.data, form.types.data, form.description.data, actor=supervisor()
        )
        return endpoint, _keep_secret(endpoint.secret, "added")

    made, refusal = attempt_refused(create)
    if refusal:
        return _form_page(tenant, form, error=refusal_in_form_words(form, refusal))
    return _to_secret_page(tenant, *made)


@bp.route(ONE + "/edit", methods=["GET", "POST"])
def edit_webhook(tenant_id: int, endpoint_id: int):
    """Change an endpoint's URL, event types, description, or whether it is enabled."""
    tenant = tenant_or_404(tenant_id)
    endpoint = _endpoint_or_404(tenant, endpoint_id)
    if request.method == "GET":
        form = WebhookForm(
            url=endpoint.url, types=endpoint.event_types, description=endpoint.description,
            enabled=endpoint.enabled,
        )  # fmt: skip
        return _form_page(tenant, form, endpoint)
    form = WebhookForm()
    return submit(
        form,
        lambda: service.edit_endpoint(
            endpoint,
            url=form.url.data,
            event_types=form.types.data,
            description=form.description.data,
            enabled=form.enabled.data,
            actor=supervisor(),
        ),  # fmt: skip
        lambda error: _form_page(tenant, form, endpoint, error),
        lambda _e: "Endpoint saved.",
        url_for("admin.webhooks", tenant_id=tenant.id),
    )


def _confirmation(tenant, endpoint, action: str):
    """The confirmation page until the action is confirmed (a POST with its CSRF token)."""
    form = ConfirmForm()
    if form.validate_on_submit():
        return None
    return render_template(
        "admin/webhook_confirm.html", tenant=tenant, endpoint=endpoint, form=form, action=action
    )


@bp.route(ONE + "/rotate", methods=["GET", "POST"])
def rotate_webhook_secret(tenant_id: int, endpoint_id: int):
    """Ask, then give the endpoint a new secret and show it once."""
    tenant = tenant_or_404(tenant_id)
    endpoint = _endpoint_or_404(tenant, endpoint_id)
    if (asking := _confirmation(tenant, endpoint, "rotate")) is not None:
        return asking
    claim, error = attempt(
        lambda: _keep_secret(service.rotate_secret(endpoint, actor=supervisor()), "rotated")
    )
    if error:
        flash(error)
        return redirect(url_for("admin.webhooks", tenant_id=tenant.id))
    return _to_secret_page(tenant, endpoint, claim)


@bp.route(ONE + "/delete", methods=["GET", "POST"])
def delete_webhook(tenant_id: int, endpoint_id: int):
    """Ask, then delete the endpoint and its delivery log."""
    tenant = tenant_or_404(tenant_id)
    endpoint = _endpoint_or_404(tenant, endpoint_id)
    if (asking := _confirmation(tenant, endpoint, "delete")) is not None:
        return asking
    url = endpoint.url
    _, error = attempt(lambda: service.delete_endpoint(endpoint, actor=supervisor()))
    flash(error or f"Endpoint {url} deleted.")
    return redirect(url_for("admin.webhooks", tenant_id=tenant.id))


@form_post(ONE + "/enable", "admin.webhooks")
def enable_webhook(tenant_id: int, endpoint_id: int):
    """Re-enable a disabled endpoint; its pending deliveries are tried again at once."""
    tenant = tenant_or_404(tenant_id)
    endpoint = _endpoint_or_404(tenant, endpoint_id)
    if ConfirmForm().validate_on_submit():
        _, error = attempt(lambda: service.enable_endpoint(endpoint, actor=supervisor()))
        flash(error or f"Endpoint {endpoint.url} enabled.")
    return redirect(url_for("admin.webhooks", tenant_id=tenant.id))


def _log_page(tenant: Tenant, endpoint: WebhookEndpoint, form=None, error=None):
    shown = window(log.count_deliveries(endpoint))
    return render_template(
        "admin/webhook.html",
        tenant=tenant,
        endpoint=endpoint,
        lines=log.list_deliveries(endpoint, shown.limit, shown.offset),
        page=shown.page,
        pages=shown.pages,
        replay_form=form or ReplaySinceForm(),
        error=error,
    ), (422 if error else 200)


@bp.get(ONE)
def webhook(tenant_id: int, endpoint_id: int):
    """The endpoint's delivery log, newest first, paged, and the replay from a time."""
    tenant = tenant_or_404(tenant_id)
    return _log_page(tenant, _endpoint_or_404(tenant, endpoint_id))


@form_post(ONE + "/replay-since", "admin.webhook")
def replay_webhook_since(tenant_id: int, endpoint_id: int):
    """Queue the tenant's events from a time that the endpoint has not had (from before it
    was created, or while it was disabled)."""
    tenant = tenant_or_404(tenant_id)
    endpoint = _endpoint_or_404(tenant, endpoint_id)
    form = ReplaySinceForm()
    return submit(
        form,
        lambda: log.replay_since(endpoint, log.parse_since(form.since.data), actor=supervisor()),
        lambda error: _log_page(tenant, endpoint, form, error),
        lambda added: (
            f"{added} earlier event{'s' if added != 1 else ''} will be delivered, oldest first."
            if added
            else "No event since then is missing from this endpoint's log."
        ),
        url_for("admin.webhook", tenant_id=tenant.id, endpoint_id=endpoint.id),
    )


@form_post(ONE + "/deliveries/<int:delivery_id>/replay", "admin.webhook")
def replay_webhook_delivery(tenant_id: int, endpoint_id: int, delivery_id: int):
    """Deliver the same event again, with the same webhook-id."""
    tenant = tenant_or_404(tenant_id)
    endpoint = _endpoint_or_404(tenant, endpoint_id)
    if ConfirmForm().validate_on_submit():
        _, refused = attempt_refused(
            lambda: log.replay_delivery(endpoint, delivery_id, actor=supervisor())
        )
        if isinstance(refused, NotFound):
            abort(404)
        flash(
            refused.message
            if refused
            else "The event will be delivered again shortly, with the same webhook-id."
        )
    return redirect(url_for("admin.webhook", tenant_id=tenant.id, endpoint_id=endpoint.id))
