"""Hours of operation: the tenant's schedules, each with its week drawn, its exception dates
and holidays, and the skill queues that follow it."""

from __future__ import annotations

from datetime import date, timedelta

from flask import abort, flash, redirect, render_template, request, url_for

from app.admin.access import attempt, submit, supervisor, tenant_or_404
from app.admin.blueprint import bp
from app.admin.forms import ConfirmForm
from app.admin.hours_forms import ExceptionForm, ScheduleForm, ScheduleQueuesForm
from app.admin.prg import form_post
from app.extensions import db
from app.models import Schedule, Tenant
from app.models.types import utcnow
from app.services.audit.reading import entity_history, history_rows
from app.services.errors import ServiceError
from app.services.schedules import hours as service
from app.services.schedules.calendar import Calendar, monday_of
from app.services.schedules.opening_hours import DAYS, clock, day_text, holidays_text
from app.services.tenants import setup as tenant_service
from app.services.values import time_zones

BASE = "/tenants/<int:tenant_id>/hours"
ONE = BASE + "/<int:schedule_id>"
HOLIDAYS_AHEAD = timedelta(weeks=8)  # how far ahead the schedule page lists holidays
HISTORY_ROWS = 20


def _schedule_or_404(tenant: Tenant, schedule_id: int) -> Schedule:
    schedule = db.session.get(Schedule, schedule_id)
    if schedule is None or schedule.tenant_id != tenant.id:
        abort(404)
    return schedule


def _schedule_form(schedule: Schedule | None = None, **kwargs) -> ScheduleForm:
    """The form as sent (a POST), else showing the schedule, else a new one's defaults."""
    if request.method == "POST":
        data = {}
    elif schedule is None:
        data = {day: "08:00-18:00" for day in DAYS[:5]}
    else:
        weekly = service.weekly_of(schedule)
        data = {day: day_text(weekly[n]) if weekly[n] else "" for n, day in enumerate(DAYS)}
        data |= {
            "name": schedule.name,
            "time_zone": schedule.time_zone,
            "holidays": holidays_text(schedule.holiday_country, schedule.holiday_subdivision),
        }
    form = ScheduleForm(data=data, **kwargs)
    form.time_zone.choices = [("", "Choose a time zone"), *((z, z) for z in time_zones())]
    return form


def status(calendar: Calendar, now) -> str:
    """`Open now, closes 2026-11-23 18:00` or `Closed now, opens …` (the schedule's zone)."""
    opened = calendar.is_open(now)
    change = calendar.next_change(now)
    said = "Open now" if opened else "Closed now"
    if change is None:
        return said + (" (no closing ahead)" if opened else " (no opening ahead)")
    verb = "closes" if opened else "opens"
    return f"{said}, {verb} {change.astimezone(calendar.zone):%a %Y-%m-%d %H:%M}"


# --- the list ------------------------------------------------------------------------------


def _list_page(tenant: Tenant, form=None, error=None):
    now = utcnow()
    rows = [
        (s, service.fields(s), status(service.calendar(s), now), service.queues_of(s))
        for s in service.list_schedules(tenant)
    ]
    return render_template(
        "admin/schedules.html",
        tenant=tenant,
        rows=rows,
        form=form or _schedule_form(prefix="new"),
        error=error,
    ), (422 if error else 200)


@bp.get(BASE)
def schedules(tenant_id: int):
    """The tenant's schedules: open now or not, and the queues following each."""
    return _list_page(tenant_or_404(tenant_id))


@bp.post(BASE)
def create_schedule(tenant_id: int):
    """Create a schedule from its settings and weekly hours."""
    tenant = tenant_or_404(tenant_id)
    form = _schedule_form(prefix="new")
    return submit(
        form,
        lambda: service.create_schedule(
            tenant,
            form.name.data,
            form.time_zone.data,
            form.weekly_specs(),
            holidays=form.holidays.data,
            actor=supervisor(),
        ),
        lambda error: _list_page(tenant, form, error),
        lambda schedule: f"Schedule '{schedule.name}' created.",
        lambda schedule: url_for("admin.schedule", tenant_id=tenant.id, schedule_id=schedule.id),
    )


# --- one schedule --------------------------------------------------------------------------


def _week_asked(today: date) -> date:
    """The Monday of `?week=` (any date of it), else of today."""
    try:
        asked = service.check_date(date.fromisoformat(request.args.get("week", "")))
    except (ValueError, ServiceError):
        asked = today
    return monday_of(asked)


def _queue_choice(queue, schedule: Schedule) -> tuple[str, str]:
    elsewhere = queue.schedule_id is not None and queue.schedule_id != schedule.id
    return queue.name, queue.name + (f" (now follows {queue.schedule.name})" if elsewhere else "")


def _queues_form(tenant: Tenant, schedule: Schedule, **kwargs) -> ScheduleQueuesForm:
    following = [q.name for q in service.queues_of(schedule)]
    form = ScheduleQueuesForm(data={"queues": following}, **kwargs)
    form.queues.choices = [
        _queue_choice(q, schedule) for q in tenant_service.list_skill_queues(tenant)
    ]
    return form


def _minute_of_day(moment) -> int:
    return moment.hour * 60 + moment.minute


def _holidays_ahead(calendar: Calendar, today: date) -> list[tuple[date, str, bool]]:
    """The public holidays of the coming weeks: date, name, whether an exception opens it."""
    if not calendar.holiday_country:
        return []
    days = (today + timedelta(days=n) for n in range(HOLIDAYS_AHEAD.days))
    return [(d, name, d in calendar.exceptions) for d in days if (name := calendar.holiday(d))]


def _schedule_page(
    tenant: Tenant, schedule: Schedule, error=None, form=None, exception_form=None, queues_form=None
):
    now = utcnow()
    calendar = service.calendar(schedule)
    today = calendar.local_date(now)
    monday = _week_asked(today)
    history = entity_history(tenant.id, "schedule", str(schedule.id), HISTORY_ROWS)
    return render_template(
        "admin/schedule.html",
        tenant=tenant,
        schedule=schedule,
        status=status(calendar, now),
        week=calendar.week(monday),
        monday=monday,
        previous_week=monday - timedelta(weeks=1),
        next_week=monday + timedelta(weeks=1),
        today=today,
        clock=clock,
        now_minute=_minute_of_day(now.astimezone(calendar.zone)),
        day_text=day_text,
        exceptions=service.exceptions_from(schedule, today),
        holidays=_holidays_ahead(calendar, today),
        holidays_said=holidays_text(schedule.holiday_country, schedule.holiday_subdivision),
        queues=service.queues_of(schedule),
        form=form or _schedule_form(schedule, prefix="edit"),
        exception_form=exception_form or ExceptionForm(prefix="exception"),
        queues_form=queues_form or _queues_form(tenant, schedule, prefix="queues"),
        confirm_form=ConfirmForm(),
        history=history_rows(history.records),
        error=error,
    ), (422 if error else 200)


@bp.get(ONE)
def schedule(tenant_id: int, schedule_id: int):
    """The schedule's week (`?week=` a date of another week), exceptions, holidays, queues."""
    tenant = tenant_or_404(tenant_id)
    return _schedule_page(tenant, _schedule_or_404(tenant, schedule_id))


@form_post(ONE + "/edit", "admin.schedule")
def edit_schedule(tenant_id: int, schedule_id: int):
    """Save the schedule's name, zone, holidays and weekly hours."""
    tenant = tenant_or_404(tenant_id)
    schedule = _schedule_or_404(tenant, schedule_id)
    form = _schedule_form(prefix="edit")
    return submit(
        form,
        lambda: service.update_schedule(
            schedule,
            form.name.data,
            form.time_zone.data,
            form.weekly_specs(),
            form.holidays.data,
            actor=supervisor(),
        ),
        lambda error: _schedule_page(tenant, schedule, error, form=form),
        lambda saved: f"Schedule '{saved.name}' saved.",
        url_for("admin.schedule", tenant_id=tenant.id, schedule_id=schedule.id),
    )


@form_post(ONE + "/exceptions", "admin.schedule")
def set_schedule_exception(tenant_id: int, schedule_id: int):
    """Close a date all day or give it its own hours (replacing its earlier exception)."""
    tenant = tenant_or_404(tenant_id)
    schedule = _schedule_or_404(tenant, schedule_id)
    form = ExceptionForm(prefix="exception")

    def set_it():
        hours = (form.hours.data or "") if form.kind.data == "open" else None
        return service.set_exception(schedule, form.day.data, hours, actor=supervisor())

    return submit(
        form,
        set_it,
        lambda error: _schedule_page(tenant, schedule, error, exception_form=form),
        lambda ranges: f"{form.day.data:%a %Y-%m-%d}: {day_text(ranges)}.",
        url_for("admin.schedule", tenant_id=tenant.id, schedule_id=schedule.id),
    )


@form_post(ONE + "/exceptions/<day>/remove", "admin.schedule")
def remove_schedule_exception(tenant_id: int, schedule_id: int, day: str):
    """The date keeps its usual hours again."""
    tenant = tenant_or_404(tenant_id)
    schedule = _schedule_or_404(tenant, schedule_id)
    try:
        when = date.fromisoformat(day)
    except ValueError:
        abort(404)
    if ConfirmForm().validate_on_submit():
        _, error = attempt(lambda: service.remove_exception(schedule, when, actor=supervisor()))
        flash(error or f"{when:%a %Y-%m-%d} keeps its usual hours.")
    return redirect(url_for("admin.schedule", tenant_id=tenant.id, schedule_id=schedule.id))


@form_post(ONE + "/queues", "admin.schedule")
def set_schedule_queues(tenant_id: int, schedule_id: int):
    """Exactly the ticked queues follow this schedule."""
    tenant = tenant_or_404(tenant_id)
    schedule = _schedule_or_404(tenant, schedule_id)
    form = _queues_form(tenant, schedule, prefix="queues")
    return submit(
        form,
        lambda: service.set_schedule_queues(schedule, form.queues.data or [], actor=supervisor()),
        lambda error: _schedule_page(tenant, schedule, error, queues_form=form),
        lambda names: f"Following '{schedule.name}': {', '.join(names) or 'no queue'}.",
        url_for("admin.schedule", tenant_id=tenant.id, schedule_id=schedule.id),
    )


@bp.route(ONE + "/delete", methods=["GET", "POST"])
def delete_schedule(tenant_id: int, schedule_id: int):
    """Ask, then delete the schedule (its queues are then always open)."""
    tenant = tenant_or_404(tenant_id)
    schedule = _schedule_or_404(tenant, schedule_id)
    form = ConfirmForm()
    if not form.validate_on_submit():
        return render_template(
            "admin/schedule.html",
            tenant=tenant,
            schedule=schedule,
            deleting=True,
            queues=service.queues_of(schedule),
            confirm_form=form,
        )
    name = schedule.name
    freed, error = attempt(lambda: service.delete_schedule(schedule, actor=supervisor()))
    if error:
        flash(error)
        return redirect(url_for("admin.schedule", tenant_id=tenant.id, schedule_id=schedule_id))
    always = f" {', '.join(freed)} now always open." if freed else ""
    flash(f"Schedule '{name}' deleted.{always}")
    return redirect(url_for("admin.schedules", tenant_id=tenant.id))
