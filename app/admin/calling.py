"""A campaign's delivery settings: its calling window, its limit on attempts, how its
tasks are dialled, and how their numbers are read (default country, zones from the
number, consent required)."""

from __future__ import annotations

from datetime import time
from typing import ClassVar

from flask import render_template, url_for
from flask_wtf import FlaskForm
from wtforms import BooleanField, IntegerField, RadioField, SelectField, StringField, TimeField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Length, Optional

from app.admin.access import campaign_or_404, submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.prg import form_post
from app.models import AUTO_DIAL_SECONDS, CallPlacement, Campaign, InstanceKind, Tenant
from app.models.types import utcnow
from app.services.campaigns import catalogue, countries, dialing
from app.services.consent import requirements as consent
from app.services.contactability.seat import local_text
from app.services.fields import CAMPAIGN_CONSENT, CAMPAIGN_COUNTDOWN_SECONDS
from app.services.schedules import calling_windows

ANY_TIME, WINDOW = "any", "window"


class CallingWindowForm(FlaskForm):
    """Any time, or a window of two local times (the second not after the first: past
    midnight)."""

    refusal_subject: ClassVar = "campaign"
    when = RadioField(
        "Calling window",
        choices=[SelectChoice(ANY_TIME, "Any time"), SelectChoice(WINDOW, "Only inside a window")],
        default=ANY_TIME,
    )
    opens_at = TimeField("Opening time", validators=[Optional()])
    closes_at = TimeField("Closing time", validators=[Optional()])

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        if self.when.data == WINDOW:
            for field in (self.opens_at, self.closes_at):
                if field.data is None and not field.errors:
                    field.errors.append("Required for a window.")
                    valid = False
        return valid

    def minutes(self) -> tuple[int | None, int | None]:
        if self.when.data != WINDOW:
            return None, None
        opens, closes = self.opens_at.data, self.closes_at.data
        return opens.hour * 60 + opens.minute, closes.hour * 60 + closes.minute


class MaxAttemptsForm(FlaskForm):
    refusal_subject: ClassVar = "campaign"
    max_attempts = IntegerField(
        "Maximum attempts",
        validators=[Optional()],
        render_kw={"min": 1, "max": calling_windows.MAX_ATTEMPTS},
    )


AGENT_DIALS, COUNTDOWN = "off", "countdown"


class DialingForm(FlaskForm):
    """The preview countdown (off, or seconds), skipping, and with Amazon Connect who
    places the call and on which queue, flow and caller id."""

    refusal_subject: ClassVar = "campaign"
    refusal_fields: ClassVar = {CAMPAIGN_COUNTDOWN_SECONDS: "seconds"}
    countdown = RadioField(
        "Countdown",
        choices=[
            SelectChoice(AGENT_DIALS, "Off: the agent dials"),
            SelectChoice(COUNTDOWN, "The desk dials by itself after a countdown"),
        ],
        default=AGENT_DIALS,
    )
    seconds = IntegerField(
        "Seconds of preview before the desk dials",
        validators=[Optional()],
        render_kw={"min": AUTO_DIAL_SECONDS[0], "max": AUTO_DIAL_SECONDS[1]},
    )
    can_skip = BooleanField("Agents may skip a task")
    placement = SelectField(
        "Who places the calls",
        choices=[
            SelectChoice(CallPlacement.DESK.value, "The agent's desk (the Contact Control Panel)"),
            SelectChoice(CallPlacement.CONTACT_FLOW.value, "The contact flow (server-side)"),
        ],
        default=CallPlacement.DESK.value,
    )
    queue_arn = StringField("Outbound queue ARN", validators=[Length(max=255)])
    contact_flow_id = StringField("Contact flow id", validators=[Length(max=100)])
    caller_id = StringField("Caller id (E.164)", validators=[Length(max=32)])

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        if (
            self.countdown.data == COUNTDOWN
            and self.seconds.data is None
            and not self.seconds.errors
        ):
            self.seconds.errors.append("Required for a countdown.")
            valid = False
        return valid

    def auto_dial_seconds(self) -> int | None:
        return self.seconds.data if self.countdown.data == COUNTDOWN else None


class NumbersForm(FlaskForm):
    """How the campaign reads its numbers: the country of national-format numbers, whether
    a task without ItemTimeZone takes its numbers' zones, and whose consent it requires."""

    refusal_subject: ClassVar = "campaign"
    # The radios send only a choice offered; what the service can refuse is the keys.
    refusal_fields: ClassVar = {CAMPAIGN_CONSENT: "consent_keys"}
    default_country = StringField(
        "Default country", validators=[Length(max=2)], render_kw={"maxlength": 2}
    )
    zone_from = RadioField(
        "Time zones of a task without ItemTimeZone",
        choices=[
            SelectChoice("default", "The campaign's default zone"),
            SelectChoice("number", "Every zone its numbers may be in"),
        ],
        default="default",
    )
    consent = RadioField(
        "Consent required",
        choices=[
            SelectChoice(consent.NONE, "For no number"),
            SelectChoice(consent.ALL, "For every number"),
            SelectChoice(consent.KEYS, "For the numbers under these phone keys"),
        ],
        default=consent.NONE,
    )
    consent_keys = StringField("Phone keys (comma-separated)", validators=[Length(max=2000)])


def _numbers_form(campaign: Campaign) -> NumbersForm:
    form = NumbersForm(prefix="numbers")
    if not form.is_submitted():
        form.default_country.data = campaign.default_country or ""
        form.zone_from.data = campaign.zone_from
        form.consent.data = campaign.consent_required
        form.consent_keys.data = campaign.consent_keys
    return form


def _set_numbers(campaign: Campaign, form: NumbersForm) -> None:
    actor = supervisor()
    countries.set_default_country(campaign, form.default_country.data, actor=actor)
    catalogue.update_campaign(campaign, zone_from=form.zone_from.data, actor=actor)
    if form.consent.data == consent.KEYS:
        keys = (form.consent_keys.data or "").split(",")
        consent.set_requirement(campaign, keys=keys, actor=actor)
    else:
        consent.set_requirement(campaign, form.consent.data, actor=actor)


def _numbers_text(campaign: Campaign) -> str:
    country = campaign.default_country or "none (numbers in E.164)"
    zones = "its numbers' zones" if campaign.zone_from == "number" else "the campaign's zone"
    return (
        f"default country {country}; a task without ItemTimeZone is called in {zones}; "
        f"consent required for {consent.requirement_text(campaign)}"
    )


def _dialing_form(campaign: Campaign) -> DialingForm:
    form = DialingForm(prefix="dialing")
    if not form.is_submitted():
        form.countdown.data = COUNTDOWN if campaign.auto_dial_seconds else AGENT_DIALS
        form.seconds.data = campaign.auto_dial_seconds
        form.can_skip.data = campaign.can_skip
        form.placement.data = campaign.call_placement
        form.queue_arn.data = campaign.connect_queue_arn or ""
        form.contact_flow_id.data = campaign.connect_contact_flow_id or ""
        form.caller_id.data = campaign.connect_caller_id or ""
    return form


def _on_connect(tenant: Tenant) -> bool:
    return tenant.instance_kind == InstanceKind.AMAZON_CONNECT


def _set_dialing(tenant: Tenant, campaign: Campaign, form: DialingForm) -> list[str]:
    """The form's settings; a tenant not on Amazon Connect sees no Connect fields, and
    keeps what its campaigns have there."""
    connect = (
        {
            "call_placement": form.placement.data,
            "queue_arn": form.queue_arn.data,
            "contact_flow_id": form.contact_flow_id.data,
            "caller_id": form.caller_id.data,
        }
        if _on_connect(tenant)
        else {}
    )
    return dialing.set_dialing(
        campaign,
        auto_dial_seconds=form.auto_dial_seconds(),
        can_skip=form.can_skip.data,
        actor=supervisor(),
        **connect,
    )


def _window_form(campaign: Campaign) -> CallingWindowForm:
    form = CallingWindowForm(prefix="window")
    window = calling_windows.window_of(campaign)
    if not form.is_submitted() and window is not None:
        form.when.data = WINDOW
        form.opens_at.data = _time(window.opens)
        form.closes_at.data = _time(window.closes)
    return form


def _time(minutes: int) -> time:
    return time(minutes // 60, minutes % 60)


def _attempts_form(campaign: Campaign) -> MaxAttemptsForm:
    form = MaxAttemptsForm(prefix="attempts")
    if not form.is_submitted():
        form.max_attempts.data = campaign.max_attempts
    return form


def _now_in_default_zone(campaign: Campaign) -> dict:
    """How the window stands now in the campaign's default zone, for the page."""
    now, zone = utcnow(), campaign.default_time_zone
    opens = calling_windows.next_window_opening(campaign, zone, now)
    return {"local": local_text(now, zone), "open": opens == now, "opens": local_text(opens, zone)}


def _page(
    tenant: Tenant,
    campaign: Campaign,
    error=None,
    window_form=None,
    attempts_form=None,
    dialing_form=None,
    numbers_form=None,
):
    return render_template(
        "admin/campaign_delivery.html",
        tenant=tenant,
        campaign=campaign,
        window_text=calling_windows.window_text(campaign),
        now=_now_in_default_zone(campaign),
        window_form=window_form or _window_form(campaign),
        attempts_form=attempts_form or _attempts_form(campaign),
        max_attempts=calling_windows.MAX_ATTEMPTS,
        dialing_form=dialing_form or _dialing_form(campaign),
        dialing_summary=dialing.summary(campaign),
        numbers_form=numbers_form or _numbers_form(campaign),
        numbers_text=_numbers_text(campaign),
        on_connect=_on_connect(tenant),
        auto_dial_seconds=AUTO_DIAL_SECONDS,
        error=error,
    ), (422 if error else 200)


def _window_said(campaign: Campaign, window) -> str:
    if window is None:
        return f"Campaign '{campaign.name}' may call its tasks at any time."
    said = calling_windows.window_text(campaign)
    return f"Campaign '{campaign.name}' calls its tasks {said}, in each task's time zone."


def _target(tenant: Tenant, campaign: Campaign) -> str:
    return url_for("admin.campaign_delivery", tenant_id=tenant.id, campaign_id=campaign.id)


@bp.get("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/delivery")
def campaign_delivery(tenant_id: int, campaign_id: int):
    """The campaign's calling window, limit on attempts and dialling."""
    tenant = tenant_or_404(tenant_id)
    return _page(tenant, campaign_or_404(tenant, campaign_id))


@form_post(
    "/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/delivery/window",
    "admin.campaign_delivery",
)
def set_calling_window(tenant_id: int, campaign_id: int):
    """Set the calling window, or none (any time)."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    form = _window_form(campaign)
    return submit(
        form,
        lambda: calling_windows.set_calling_window(campaign, *form.minutes(), actor=supervisor()),
        lambda error: _page(tenant, campaign, error, window_form=form),
        lambda window: _window_said(campaign, window),
        _target(tenant, campaign),
    )


@form_post(
    "/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/delivery/max-attempts",
    "admin.campaign_delivery",
)
def set_max_attempts(tenant_id: int, campaign_id: int):
    """Set the limit on attempts, or none."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    form = _attempts_form(campaign)
    return submit(
        form,
        lambda: calling_windows.set_max_attempts(
            campaign, form.max_attempts.data, actor=supervisor()
        ),
        lambda error: _page(tenant, campaign, error, attempts_form=form),
        lambda limit: (
            f"Campaign '{campaign.name}' allows {limit} attempts per task."
            if limit
            else f"Campaign '{campaign.name}' has no limit on attempts."
        ),
        _target(tenant, campaign),
    )


@form_post(
    "/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/delivery/dialing",
    "admin.campaign_delivery",
)
def set_campaign_dialing(tenant_id: int, campaign_id: int):
    """Set the preview countdown, skipping, and with Amazon Connect the call's placement."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    form = _dialing_form(campaign)
    return submit(
        form,
        lambda: _set_dialing(tenant, campaign, form),
        lambda error: _page(tenant, campaign, error, dialing_form=form),
        lambda changed: (
            f"Campaign '{campaign.name}' dialling: {dialing.summary(campaign)}."
            if changed
            else f"Campaign '{campaign.name}' already dials so; nothing changed."
        ),
        _target(tenant, campaign),
    )


@form_post(
    "/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/delivery/numbers",
    "admin.campaign_delivery",
)
def set_campaign_numbers(tenant_id: int, campaign_id: int):
    """Set the default country, where the zones come from and the consent required."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    form = _numbers_form(campaign)
    return submit(
        form,
        lambda: _set_numbers(campaign, form),
        lambda error: _page(tenant, campaign, error, numbers_form=form),
        lambda _: f"Campaign '{campaign.name}': {_numbers_text(campaign)}.",
        _target(tenant, campaign) + "#numbers",
    )
