"""The tenant's contact rules: its contact limits (list, add, remove) and the data item that
names a person across campaigns. Each form posts, redirects and is audited by its service
(app/services/contact_limits)."""

from __future__ import annotations

from typing import ClassVar

from flask import render_template, url_for
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length

from app.admin.access import submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.prg import form_post
from app.models import Tenant
from app.services.campaigns.catalogue import list_campaigns
from app.services.contact_limits import limits
from app.services.fields import TENANT_PERSON_KEY

BASE = "/tenants/<int:tenant_id>/contact-rules"
EVERY_CAMPAIGN = ""


class LimitForm(FlaskForm):
    """A new limit, as typed: the service checks it (and says what is wrong beside it)."""

    refusal_subject: ClassVar = "contact_limit"
    max_count = StringField(
        "At most (1 to 1,000)",
        validators=[DataRequired(), Length(max=10)],
        render_kw={"inputmode": "numeric", "autocomplete": "off"},
    )
    counting = SelectField(
        "Counting",
        choices=[SelectChoice("calls", "calls placed"), SelectChoice("contacts", "contacts made")],
        default="calls",
    )
    within = StringField(
        "Within (30m, 24h, 7d; at most 90 days)",
        validators=[DataRequired(), Length(max=20)],
        render_kw={"autocomplete": "off"},
    )
    per = SelectField("Per", choices=[SelectChoice(per, per) for per in limits.PERS])
    campaign = SelectField("Campaigns", choices=[], validate_choice=True)


class PersonKeyForm(FlaskForm):
    refusal_fields: ClassVar = {TENANT_PERSON_KEY: "key"}
    key = StringField(
        "Person key (a data item's key; empty: the clientId)",
        validators=[Length(max=limits.MAX_PERSON_KEY)],
    )


def _limit_form(tenant: Tenant, form: LimitForm | None = None) -> LimitForm:
    form = form or LimitForm(prefix="limit")
    form.campaign.choices = [SelectChoice(EVERY_CAMPAIGN, "every campaign")] + [
        SelectChoice(c.name, c.name) for c in list_campaigns(tenant)
    ]
    return form


def _page(tenant: Tenant, limit_form=None, key_form=None, error=None):
    return render_template(
        "admin/contact_rules.html",
        tenant=tenant,
        limits=[(limit, limits.limit_words(limit)) for limit in limits.list_limits(tenant)],
        form=_limit_form(tenant, limit_form),
        key_form=key_form or PersonKeyForm(prefix="person", data={"key": tenant.person_key}),
        button_form=ConfirmForm(),
        error=error,
    ), (422 if error else 200)


@bp.get(BASE)
def contact_rules(tenant_id: int):
    """The tenant's contact limits, a form for a new one, and its person key."""
    return _page(tenant_or_404(tenant_id))


@form_post(BASE + "/limits", "admin.contact_rules")
def add_contact_limit(tenant_id: int):
    """Add a contact limit; a refused one comes back as typed."""
    tenant = tenant_or_404(tenant_id)
    form = _limit_form(tenant, LimitForm(prefix="limit"))

    def add():
        new = limits.NewLimit(
            form.max_count.data,
            form.within.data,
            form.per.data,
            form.counting.data,
            form.campaign.data or None,
        )
        return limits.add_limit(tenant, new, actor=supervisor())

    return submit(
        form,
        add,
        lambda error: _page(tenant, limit_form=form, error=error),
        lambda limit: f"Contact limit {limit.id} added: {limits.limit_words(limit)}.",
        url_for("admin.contact_rules", tenant_id=tenant.id),
    )


@form_post(BASE + "/limits/<int:limit_id>/remove", "admin.contact_rules")
def remove_contact_limit(tenant_id: int, limit_id: int):
    """Remove a contact limit: the calls it held back may be placed at once."""
    tenant = tenant_or_404(tenant_id)
    return submit(
        ConfirmForm(),
        lambda: limits.remove_limit(tenant, limit_id, actor=supervisor()),
        lambda error: _page(tenant, error=error),
        lambda limit: f"Contact limit {limit.id} removed: {limits.limit_words(limit)}.",
        url_for("admin.contact_rules", tenant_id=tenant.id),
    )


@form_post(BASE + "/person-key", "admin.contact_rules")
def set_person_key(tenant_id: int):
    """Name the data item that identifies a person across campaigns."""
    tenant = tenant_or_404(tenant_id)
    form = PersonKeyForm(prefix="person")
    return submit(
        form,
        lambda: limits.set_person_key(tenant, form.key.data, actor=supervisor()),
        lambda error: _page(tenant, key_form=form, error=error),
        lambda _changed: (
            f"A person is named by data item '{tenant.person_key}'."
            if tenant.person_key
            else "A person is named by the task's clientId."
        ),
        url_for("admin.contact_rules", tenant_id=tenant.id),
    )
