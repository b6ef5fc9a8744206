"""The tenant's consent ledger in the console: a number's history and what it leaves in
force, and a form that records consent given or revoked for one or more numbers (the
service the operator's `consent give|revoke` calls: app/services/consent/ledger.py)."""

from __future__ import annotations

import re
from typing import ClassVar

from flask import render_template, request, url_for
from flask_wtf import FlaskForm
from wtforms import DateTimeLocalField, RadioField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, Optional

from app.admin.access import submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.prg import form_post
from app.models import Tenant
from app.models.consent import GIVEN, REVOKED
from app.services.campaigns.catalogue import get_campaign, list_campaigns
from app.services.consent import ledger
from app.services.errors import InvalidInput, ServiceError
from app.services.fields import CONSENT_CAMPAIGN, CONSENT_NUMBERS
from app.web.form_times import next_time

BASE = "/tenants/<int:tenant_id>/consent"
EVERY_CAMPAIGN = ""
# Numbers one form records at most (a longer list is a file: `consent import`).
MAX_NUMBERS = 500


class ConsentForm(FlaskForm):
    """Consent given or revoked for the numbers typed (blanks, commas or lines apart)."""

    refusal_subject: ClassVar = "consent"
    action = RadioField(
        "Record",
        choices=[SelectChoice(GIVEN, "Consent given"), SelectChoice(REVOKED, "Consent revoked")],
        default=GIVEN,
    )
    numbers = TextAreaField(
        f"Numbers (E.164; at most {MAX_NUMBERS})", validators=[DataRequired(), Length(max=20000)]
    )
    at = DateTimeLocalField("When, in UTC (empty: now)", validators=[Optional()])
    source = StringField("Source, or how it was revoked", validators=[Length(max=255)])
    campaign = SelectField("For", choices=[], validate_choice=True)
    purpose = StringField("Purpose (a consent given only)", validators=[Length(max=255)])

    def typed_numbers(self) -> list[str]:
        return [n for n in re.split(r"[\s,;]+", self.numbers.data or "") if n]


def _form(tenant: Tenant, form: ConsentForm | None = None) -> ConsentForm:
    form = form or ConsentForm(prefix="consent")
    form.campaign.choices = [SelectChoice(EVERY_CAMPAIGN, "every campaign")] + [
        SelectChoice(c.name, c.name) for c in list_campaigns(tenant)
    ]
    return form


def _looked_up(tenant: Tenant) -> dict:
    """The number asked for (`?number=`), its history and standing, or why it cannot be."""
    number = request.args.get("number", "").strip()[:32]
    if not number:
        return {"number": ""}
    try:
        entries = ledger.history(tenant, number)
    except ServiceError as refused:
        return {"number": number, "refused": refused.message}
    return {"number": number, "entries": entries, "standing": ledger.standing_text(entries)}


def _page(tenant: Tenant, form=None, error=None):
    return render_template(
        "admin/consent.html",
        tenant=tenant,
        lookup=_looked_up(tenant),
        form=_form(tenant, form),
        scope_text=ledger.scope_text,
        error=error,
    ), (422 if error else 200)


@bp.get(BASE)
def consent_ledger(tenant_id: int):
    """A number's consent history, and the form that records consent given or revoked."""
    return _page(tenant_or_404(tenant_id))


def _record(tenant: Tenant, form: ConsentForm) -> list[str]:
    numbers = form.typed_numbers()
    if len(numbers) > MAX_NUMBERS:
        raise InvalidInput(
            f"give at most {MAX_NUMBERS} numbers: a longer list is a file to import",
            field=CONSENT_NUMBERS,
        )
    at = next_time(form.at.data, "UTC")
    if form.action.data == REVOKED:
        if form.campaign.data != EVERY_CAMPAIGN or form.purpose.data:
            raise InvalidInput(
                "a revocation counts in every campaign and has no purpose",
                field=CONSENT_CAMPAIGN,
            )
        done = ledger.revoke(tenant, numbers, actor=supervisor(), at=at, how=form.source.data)
    else:
        scoped = get_campaign(tenant, form.campaign.data) if form.campaign.data else None
        done = ledger.give(tenant, numbers, actor=supervisor(), at=at, source=form.source.data,
                           campaign=scoped, purpose=form.purpose.data)  # fmt: skip
    return [entry.number for entry in done]


@form_post(BASE, "admin.consent_ledger")
def record_consent(tenant_id: int):
    """Record consent given or revoked; the page then shows the first number's history."""
    tenant = tenant_or_404(tenant_id)
    form = _form(tenant, ConsentForm(prefix="consent"))
    given = form.action.data != REVOKED
    return submit(
        form,
        lambda: _record(tenant, form),
        lambda error: _page(tenant, form, error),
        lambda numbers: (
            f"Recorded consent {'given' if given else 'revoked'} for {len(numbers)} "
            f"number{'' if len(numbers) == 1 else 's'}"
            + ("." if given else ", in every campaign at once.")
        ),
        lambda numbers: url_for("admin.consent_ledger", tenant_id=tenant.id, number=numbers[0]),
    )
