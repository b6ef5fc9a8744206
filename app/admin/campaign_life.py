"""A campaign's life on its pages: edit its settings, pause, resume, archive (after a
confirmation page) and restore, each through app/services (campaigns: setup and life_cycle)."""

from __future__ import annotations

from typing import ClassVar

from flask import flash, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from sqlalchemy import and_, func, select
from wtforms import SelectField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired

from app.admin.access import attempt, campaign_or_404, submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.prg import form_post
from app.extensions import db
from app.models import Campaign, CampaignType, Task, Tenant
from app.models.types import utcnow
from app.services.audit.reading import describe_actor, entity_history, history_rows, page_within
from app.services.campaigns import catalogue as campaigns
from app.services.campaigns import life_cycle as campaign_status
from app.services.delivery.progress import held_now
from app.services.tenants import setup as tenant_service
from app.services.values import time_zones

ONE = "/tenants/<int:tenant_id>/campaigns/<int:campaign_id>"
HISTORY_SIZE = 20
DONE = {
    "pause": "Campaign '{}' is paused: nothing new is delivered; it still takes tasks.",
    "resume": "Campaign '{}' is resumed: its tasks are delivered again.",
    "archive": "Campaign '{}' is archived: it delivers nothing and takes no new tasks.",
    "restore": "Campaign '{}' is restored, paused: resume it to deliver again.",
}
UNCHANGED = {
    "pause": "Campaign '{}' was already paused; nothing changed.",
    "resume": "Campaign '{}' was not paused; nothing changed.",
    "archive": "Campaign '{}' was already archived; nothing changed.",
    "restore": "Campaign '{}' was not archived; nothing changed.",
}


class CampaignSettingsForm(FlaskForm):
    """What an edit may change. The choices are offered, the services decide: a value
    outside them (a page left open, a hand-made post) is refused by the service, by name."""

    refusal_subject: ClassVar = "campaign"
    campaign_type = SelectField(
        "Type",
        choices=[SelectChoice(t.value, t.value.title()) for t in CampaignType],
        validate_choice=False,
    )
    skill_queue = SelectField(
        "Default skill queue", validators=[DataRequired()], validate_choice=False
    )
    time_zone = SelectField("Default time zone", validators=[DataRequired()], validate_choice=False)


def _offered(field: SelectField, choices: list) -> None:
    """The choices, and the value sent when it is none of them (a refused form shows it)."""
    field.choices = list(choices)
    values = {choice.value if isinstance(choice, SelectChoice) else choice for choice in choices}
    if field.data and field.data not in values:
        field.choices.append(field.data)


def _settings_form(tenant: Tenant, campaign: Campaign) -> CampaignSettingsForm:
    form = CampaignSettingsForm(prefix="settings")
    if not form.is_submitted():
        form.campaign_type.data = campaign.type
        form.skill_queue.data = campaign.default_skill_queue.name
        form.time_zone.data = campaign.default_time_zone
    _offered(form.skill_queue, [q.name for q in tenant_service.list_skill_queues(tenant)])
    _offered(form.time_zone, time_zones())
    _offered(form.campaign_type, form.campaign_type.choices)
    return form


def _edit_page(tenant: Tenant, campaign: Campaign, form: CampaignSettingsForm, error=None):
    size = HISTORY_SIZE
    found, page, pages = page_within(
        lambda offset: entity_history(tenant.id, "campaign", str(campaign.id), size, offset),
        request.args.get("history", 1, type=int),
        size,
    )
    return render_template(
        "admin/campaign_edit.html",
        tenant=tenant,
        campaign=campaign,
        form=form,
        history=history_rows(found.records),
        history_page=page,
        history_pages=pages,
        error=error,
    ), (422 if error else 200)


@bp.route(ONE + "/edit", methods=["GET", "POST"])
def edit_campaign(tenant_id: int, campaign_id: int):
    """The campaign's settings (type, default queue, default zone) and their history."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    form = _settings_form(tenant, campaign)
    if request.method == "GET":
        return _edit_page(tenant, campaign, form)
    return submit(
        form,
        lambda: campaigns.update_campaign(
            campaign,
            skill_queue=form.skill_queue.data,
            time_zone=form.time_zone.data,
            campaign_type=form.campaign_type.data,
            actor=supervisor(),
        ),
        lambda error: _edit_page(tenant, campaign, form, error),
        lambda changed: (
            f"Campaign '{campaign.name}' saved: new tasks take its new defaults."
            if changed
            else f"Campaign '{campaign.name}' already had these settings; nothing changed."
        ),
        url_for("admin.campaign", tenant_id=tenant.id, campaign_id=campaign.id),
    )


def _move(tenant_id: int, campaign_id: int, move: str):
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    if ConfirmForm().validate_on_submit():
        changed, error = attempt(
            lambda: campaign_status.change_status(campaign, move, actor=supervisor())
        )
        said = DONE[move] if changed else UNCHANGED[move]
        flash(error or said.format(campaign.name))
    else:
        flash("This page is out of date: reload it and try again.")
    return redirect(url_for("admin.campaign", tenant_id=tenant.id, campaign_id=campaign.id))


@form_post(ONE + "/pause", "admin.campaign")
def pause_campaign(tenant_id: int, campaign_id: int):
    """Deliver nothing new from the campaign."""
    return _move(tenant_id, campaign_id, "pause")


@form_post(ONE + "/resume", "admin.campaign")
def resume_campaign(tenant_id: int, campaign_id: int):
    """Deliver the campaign's tasks again."""
    return _move(tenant_id, campaign_id, "resume")


@form_post(ONE + "/restore", "admin.campaign")
def restore_campaign(tenant_id: int, campaign_id: int):
    """Bring an archived campaign back, paused."""
    return _move(tenant_id, campaign_id, "restore")


def _open_and_held(campaign: Campaign) -> tuple[int, int]:
    """How many of the campaign's tasks are open, and how many of those agents hold now."""
    is_open = Task.worked_state.in_(campaign_status.OPEN_STATES)
    held = and_(is_open, held_now(utcnow()))
    row = db.session.execute(
        select(func.count(Task.id).filter(is_open), func.count(Task.id).filter(held)).where(
            Task.campaign_id == campaign.id
        )
    ).one()
    return row[0], row[1]


@bp.route(ONE + "/archive", methods=["GET", "POST"])
def archive_campaign(tenant_id: int, campaign_id: int):
    """Ask first, saying what archiving does; then archive."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        return _move(tenant_id, campaign_id, "archive")
    open_tasks, held = _open_and_held(campaign)
    return render_template(
        "admin/campaign_archive.html",
        tenant=tenant,
        campaign=campaign,
        form=form,
        open_tasks=open_tasks,
        held=held,
    )


@bp.app_template_filter("status_by")
def status_by(campaign: Campaign) -> str:
    """Who last changed the campaign's status, in the pages' words ("" when nobody has)."""
    if campaign.status_changed_by_kind is None:
        return ""
    return describe_actor(campaign.status_changed_by_kind, campaign.status_changed_by_id or "")
