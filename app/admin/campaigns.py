"""Tenants, their campaigns and skill queues, and the campaign page with its search."""

from __future__ import annotations

from flask import current_app, redirect, render_template, request, url_for
from flask_login import current_user

from app.admin.access import campaign_or_404, submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import BLANK_ROWS, CampaignForm, IntakeForm, NewTaskForm, SkillQueueForm
from app.admin.items import item_inputs
from app.admin.prg import form_post
from app.admin.search_args import STATE_KEY, STATES, SearchRow, read_search
from app.admin.wallboard import live_answer, live_stream, page_etag
from app.extensions import db
from app.models import Campaign, Tenant
from app.services.campaigns import catalogue as campaign_service
from app.services.campaigns import dialing
from app.services.delivery.progress_groups import group as progress_group
from app.services.delivery.progress_snapshots import campaign_progress
from app.services.delivery.progress_snapshots import state_counts as task_state_counts
from app.services.errors import ServiceError
from app.services.intake.runs import recent_loads
from app.services.people.supervisors import visible_tenants
from app.services.search.criteria import SYSTEM_KEYS, Condition
from app.services.search.query import count_tasks, search_tasks, suggested_keys
from app.services.sso.providers import providers_of
from app.services.tasks import changes as task_service
from app.services.tasks.data import with_data
from app.services.tasks.display import NAME_KEY
from app.services.tasks.validation import MAX_CRITERIA, MAX_KEY, MAX_VALUE_BYTES
from app.services.tenants import setup as tenant_service
from app.services.values import time_zones
from app.web.form_times import next_time


@bp.get("/")
def index():
    """The start page is the list of tenants."""
    return redirect(url_for("admin.tenants"))


@bp.get("/tenants")
def tenants():
    """The tenants this supervisor may see, with how their agents sign in to the desk."""
    shown = visible_tenants(current_user)
    return render_template("admin/tenants.html", tenants=shown, providers=providers_of(shown))


def _campaign_form(tenant: Tenant) -> CampaignForm:
    form = CampaignForm(prefix="campaign")
    form.skill_queue.choices = [q.name for q in tenant_service.list_skill_queues(tenant)]
    form.time_zone.choices = time_zones()
    if not form.is_submitted():
        form.time_zone.data = "UTC"
    return form


def _campaigns_page(tenant: Tenant, campaign_form=None, queue_form=None, error=None):
    show_archived = request.args.get("archived") == "1"
    return render_template(
        "admin/campaigns.html",
        tenant=tenant,
        campaigns=campaign_service.list_campaigns(tenant, archived=show_archived),
        show_archived=show_archived,
        archived_count=campaign_service.count_archived(tenant),
        counts=task_state_counts(tenant),
        queues=tenant_service.list_skill_queues(tenant),
        campaign_form=campaign_form or _campaign_form(tenant),
        queue_form=queue_form or SkillQueueForm(prefix="queue"),
        error=error,
    ), (422 if error else 200)


@bp.get("/tenants/<int:tenant_id>/campaigns")
def campaigns(tenant_id: int):
    """The tenant's campaigns with their status and task counts (archived ones with
    `?archived=1`), its skill queues, and forms to add both."""
    return _campaigns_page(tenant_or_404(tenant_id))


@bp.post("/tenants/<int:tenant_id>/campaigns")
def create_campaign(tenant_id: int):
    """Create a campaign."""
    tenant = tenant_or_404(tenant_id)
    form = _campaign_form(tenant)
    return submit(
        form,
        lambda: campaign_service.create_campaign(
            tenant,
            form.name.data,
            form.skill_queue.data,
            form.time_zone.data,
            form.campaign_type.data,
            form.client_id_field_name.data,
            actor=supervisor(),
        ),
        lambda error: _campaigns_page(tenant, campaign_form=form, error=error),
        lambda campaign: f"Campaign '{campaign.name}' created.",
        url_for("admin.campaigns", tenant_id=tenant.id),
    )


@form_post("/tenants/<int:tenant_id>/queues", "admin.campaigns")
def create_skill_queue(tenant_id: int):
    """Create a skill queue."""
    tenant = tenant_or_404(tenant_id)
    form = SkillQueueForm(prefix="queue")
    return submit(
        form,
        lambda: tenant_service.create_skill_queue(tenant, form.name.data, actor=supervisor()),
        lambda error: _campaigns_page(tenant, queue_form=form, error=error),
        lambda queue: f"Skill queue '{queue.name}' created.",
        url_for("admin.campaigns", tenant_id=tenant.id),
    )


def _page() -> int:
    return max(request.args.get("page", 1, type=int), 1)


@bp.get("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>")
def campaign(tenant_id: int, campaign_id: int):
    """Search a campaign's tasks with the API's power; every page of the results."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    live_etag = page_etag(tenant)  # before the counts: a change meanwhile shows next
    search = read_search(request.args)
    page, size = _page(), current_app.config["PAGE_SIZE"]
    found, total, group = [], 0, None
    if search.error is None:
        try:
            # A count of the Progress panel links here: its tasks, within the search.
            group = progress_group(tenant.id, search.group) if search.group else None
            also = [group.condition] if group else []
            total = count_tasks(campaign, search.criteria, also)
            page = min(page, max(1, -(-total // size)))
            offset = (page - 1) * size
            found = with_data(search_tasks(campaign, search.criteria, size, offset, also))
        except ServiceError as refusal:  # e.g. a whole number expected for a sys_ key
            search.refused_by_service(refusal.message)
    return render_template(
        "admin/campaign.html",
        tenant=tenant,
        campaign=campaign,
        dialing_summary=dialing.summary(campaign),
        rows=search.rows or [SearchRow("", "EQUALS", "")],
        state=search.state,
        ignore_case=search.ignore_case,
        # With no row of its own the form's first row stands for one of the rows sent.
        blank_rows=search.blank_rows - ("add" in request.args and not search.rows),
        adding="add" in request.args,
        faults=search.faults,
        said=search.said,
        rows_at_fault=search.rows_at_fault,
        search_args=search.args,
        group=group,
        ungrouped_args={k: v for k, v in search.args.items() if k != "group"},
        states=STATES,
        state_key=STATE_KEY,
        max_criteria=MAX_CRITERIA,
        max_key=MAX_KEY,
        max_value=MAX_VALUE_BYTES,
        conditions=list(Condition),
        system_keys=list(SYSTEM_KEYS),
        custom_keys=suggested_keys(campaign),
        found=found,
        names={one.task.id: _name(one.items) for one in found},
        total=total,
        page=page,
        pages=max(1, -(-total // size)),
        intake_form=IntakeForm(),
        loads=recent_loads(campaign),
        progress=campaign_progress(campaign),
        live_etag=live_etag,
        refused=search.error is not None,  # said at the rows, not atop the page
    ), (422 if search.error else 200)


@bp.get("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/progress")
def campaign_progress_panel(tenant_id: int, campaign_id: int):
    """The campaign page's Progress panel alone, as it is now (the page asks for it again
    every second), or 304 when nothing changed since the viewer's ETag."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    return live_answer(
        tenant,
        lambda _token: render_template(
            "admin/_progress.html",
            tenant=tenant,
            campaign=campaign,
            progress=campaign_progress(campaign),
        ),
    )


@bp.get("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/progress/stream")
def campaign_progress_stream(tenant_id: int, campaign_id: int):
    """The Progress panel as server-sent events: sent again whenever its counts change."""
    tenant = tenant_or_404(tenant_id)
    campaign_id = campaign_or_404(tenant, campaign_id).id

    def render(tenant: Tenant) -> str | None:
        campaign = db.session.get(Campaign, campaign_id)
        if campaign is None or campaign.tenant_id != tenant.id:
            return None
        return render_template(
            "admin/_progress.html",
            tenant=tenant,
            campaign=campaign,
            progress=campaign_progress(campaign),
        )

    return live_stream(tenant, render)


def _name(items) -> str:
    return next((item.value for item in items if item.key == NAME_KEY), "")


def _new_task_form(campaign: Campaign) -> NewTaskForm:
    form = NewTaskForm()
    form.next_zone.choices = time_zones()
    if not form.is_submitted():
        form.next_zone.data = campaign.default_time_zone
        for _ in range(BLANK_ROWS + 2):
            form.items.append_entry()
        form.items[0].key.data = NAME_KEY
    return form


@bp.route("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/tasks/new", methods=["GET", "POST"])
def new_task(tenant_id: int, campaign_id: int):
    """Add a task to the campaign, with the API's add rules."""
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    form = _new_task_form(campaign)

    def page(error: str | None = None):
        html = render_template(
            "admin/task_new.html", tenant=tenant, campaign=campaign, form=form, error=error
        )
        return html, (422 if error else 200)

    if request.method == "GET":
        return page()
    return submit(
        form,
        lambda: task_service.add_task(
            campaign,
            form.client_id.data,
            item_inputs(form.items),
            preferred_agent=form.preferred_agent.data or None,
            next_earliest=next_time(form.next_time.data, form.next_zone.data),
            actor=supervisor(),
        ),
        page,
        lambda task: f"Task '{task.client_id}' saved.",
        lambda task: url_for("admin.task", tenant_id=tenant.id, record_id=task.record_id),
    )
