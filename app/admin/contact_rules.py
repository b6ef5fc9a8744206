"""The tenant's contact rules: its contact limits (list, add, remove), its regional calling
rules (list with what each does now, add, remove, load the US pack) and the data item that
names a person across campaigns. Each form posts, redirects and is audited by its service
(app/services/contact_limits, app/services/calling_rules)."""

from __future__ import annotations

from typing import ClassVar

from flask import render_template, url_for
from flask_wtf import FlaskForm
from wtforms import BooleanField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length

from app.admin.access import submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.prg import form_post
from app.models import Tenant
from app.models.types import utcnow
from app.services.calling_rules import pack
from app.services.calling_rules import rules as calling_rules
from app.services.campaigns.catalogue import list_campaigns
from app.services.contact_limits import limits
from app.services.fields import CONTACT_LIMIT_MAX, CONTACT_LIMIT_WITHIN, TENANT_PERSON_KEY

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


class CallingRuleForm(FlaskForm):
    """A new regional calling rule, as typed: the service checks it."""

    refusal_subject: ClassVar = "calling_rule"
    refusal_fields: ClassVar = {CONTACT_LIMIT_MAX: "max_count", CONTACT_LIMIT_WITHIN: "within"}
    region = StringField(
        "Region (ISO 3166-2, e.g. US-FL)",
        validators=[DataRequired(), Length(max=8)],
        render_kw={"autocomplete": "off"},
    )
    hours = StringField(
        "Hours in the customer's local time (HH:MM-HH:MM; empty: any hour)",
        validators=[Length(max=20)],
        render_kw={"autocomplete": "off"},
    )
    days = StringField(
        "On these weekdays only (e.g. mon-sat; empty: every day)",
        validators=[Length(max=40)],
    )
    no_calls_on = StringField("No calls on (e.g. sun)", validators=[Length(max=40)])
    holidays = BooleanField("No calls on the region's public holidays")
    max_count = StringField("Limit: at most (empty: none)", validators=[Length(max=10)])
    within = StringField("Within (24h, 7d)", validators=[Length(max=20)])
    per = SelectField(
        "Per",
        choices=[SelectChoice("", "—")]
        + [SelectChoice(per, per) for per in calling_rules.REGIONAL_PERS],
    )
    source = StringField("Source (the law it follows)", validators=[Length(max=255)])


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


def _page(tenant: Tenant, limit_form=None, key_form=None, error=None, rule_form=None):
    regional = calling_rules.list_rules(tenant)
    standing = calling_rules.standings(tenant, regional, utcnow())
    return render_template(
        "admin/contact_rules.html",
        tenant=tenant,
        limits=[(limit, limits.limit_words(limit)) for limit in limits.list_limits(tenant)],
        calling_rules=[
            (rule, calling_rules.rule_words(rule), standing[rule.id]) for rule in regional
        ],
        rule_form=rule_form or CallingRuleForm(prefix="rule"),
        pack_checked=pack.CHECKED,
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


@form_post(BASE + "/calling-rules", "admin.contact_rules")
def add_calling_rule(tenant_id: int):
    """Add a regional calling rule; a refused one comes back as typed."""
    tenant = tenant_or_404(tenant_id)
    form = CallingRuleForm(prefix="rule")

    def add():
        new = calling_rules.NewRule(
            form.region.data,
            form.hours.data or None,
            form.days.data or None,
            form.no_calls_on.data or None,
            form.holidays.data,
            form.max_count.data or None,
            form.within.data or None,
            form.per.data or None,
            form.source.data or "",
        )
        return calling_rules.add_rule(tenant, new, actor=supervisor())

    return submit(
        form,
        add,
        lambda error: _page(tenant, rule_form=form, error=error),
        lambda rule: f"Calling rule {rule.id} added: {calling_rules.rule_words(rule)}.",
        url_for("admin.contact_rules", tenant_id=tenant.id),
    )


@form_post(BASE + "/calling-rules/<int:rule_id>/remove", "admin.contact_rules")
def remove_calling_rule(tenant_id: int, rule_id: int):
    """Remove a regional calling rule (and its limit)."""
    tenant = tenant_or_404(tenant_id)
    return submit(
        ConfirmForm(),
        lambda: calling_rules.remove_rule(tenant, rule_id, actor=supervisor()),
        lambda error: _page(tenant, error=error),
        lambda rule: f"Calling rule {rule.id} removed: {calling_rules.rule_words(rule)}.",
        url_for("admin.contact_rules", tenant_id=tenant.id),
    )


@form_post(BASE + "/calling-rules/us-pack", "admin.contact_rules")
def load_us_pack(tenant_id: int):
    """Load the maintained US pack: the rules the tenant does not have yet."""
    tenant = tenant_or_404(tenant_id)
    return submit(
        ConfirmForm(),
        lambda: pack.load_us(tenant, actor=supervisor()),
        lambda error: _page(tenant, error=error),
        lambda loaded: (
            f"US pack (checked {pack.CHECKED}) loaded: {len(loaded.added)} rules added, "
            f"{loaded.already} already there."
        ),
        url_for("admin.contact_rules", tenant_id=tenant.id),
    )
