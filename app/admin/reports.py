"""The Reports page: a campaign summary, attempts per interval, best hours and agents' figures
over a date range, each table also a chart (static/reports.js) and a CSV download.

The filter form is a GET form, so a report's URL can be shared. Every table is built here once
as a `Table` (caption, headers, rows of shown values): the page renders it and the CSV
download writes the same rows, so the file always equals the table. The intervals table alone
can grow long (a year at 15 minutes is 35,040 rows): the page shows it a week of intervals at a
time (`?intervals_page=`), its CSV every row.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from flask import Response, abort, render_template, request, stream_with_context
from sqlalchemy import select

from app.admin.access import tenant_or_404
from app.admin.blueprint import bp
from app.extensions import db
from app.models import Campaign, SkillQueue, Tenant, User
from app.models.types import utcnow
from app.services import reports
from app.services.csv_files import GuardedWriter
from app.services.delivery.progress import is_agent
from app.services.errors import InvalidInput
from app.services.fields import (
    REPORT_AGENT,
    REPORT_CAMPAIGN,
    REPORT_END,
    REPORT_QUEUE,
    REPORT_START,
    REPORT_ZONE,
)
from app.services.reports.call_evidence import evidence_csv
from app.web.error_summary import ErrorSummary, FieldLink

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# The report's filters by the form's names: each is named after the scope's attribute,
# but for the two days.
FORM_FIELDS = {
    field: field.attribute for field in (REPORT_ZONE, REPORT_CAMPAIGN, REPORT_QUEUE, REPORT_AGENT)
} | {REPORT_START: "from", REPORT_END: "to"}
# Each field of the form by its label, as the form and the summary of refused filters say it.
LABELS = {"from": "From", "to": "To", "zone": "Time zone", "campaign": "Campaign",
          "queue": "Queue", "agent": "Agent", "interval": "Interval"}  # fmt: skip
TABLES = ("summary", "outcomes", "work-codes", "intervals", "hours", "agents")
# The intervals table shows this many days of intervals a page (its CSV holds them all).
INTERVAL_DAYS_A_PAGE = 7


@dataclass
class Table:
    """A table of the report: every row (the CSV's), and the page of them the report shows
    (`page` of `pages`, `per_page` rows each; 0: all on one)."""

    name: str
    caption: str
    headers: list[str]
    rows: list[list[object]] = field(default_factory=list)
    page: int = 1
    pages: int = 1
    per_page: int = 0

    @property
    def first(self) -> int:
        """The index of the first row shown."""
        return (self.page - 1) * self.per_page

    @property
    def shown(self) -> list[list[object]]:
        """The rows the page shows."""
        return self.rows[self.first : self.first + self.per_page] if self.per_page else self.rows


def paged(table: Table, per_page: int, asked: int) -> Table:
    """The table showing page `asked` of `per_page` rows (kept within the pages there are)."""
    pages = max(1, -(-len(table.rows) // per_page))
    return replace(table, page=min(max(asked, 1), pages), pages=pages, per_page=per_page)


@dataclass
class Filters:
    """What the form asked for, as typed, and what is wrong with it (field → message)."""

    start: str = ""
    end: str = ""
    zone: str = ""
    campaign: str = ""
    queue: str = ""
    agent: str = ""
    interval: int = 60
    errors: dict[str, str] = field(default_factory=dict)


def _filters() -> Filters:
    args = request.args
    chosen = Filters(
        start=args.get("from", "").strip(),
        end=args.get("to", "").strip(),
        zone=args.get("zone", "").strip(),
        campaign=args.get("campaign", "").strip(),
        queue=args.get("queue", "").strip(),
        agent=args.get("agent", "").strip(),
    )
    interval = args.get("interval", "60")
    if interval in {str(minutes) for minutes in reports.INTERVAL_MINUTES}:
        chosen.interval = int(interval)
    else:
        chosen.errors["interval"] = "Interval must be 15, 30 or 60 minutes."
    return chosen


def _day(value: str, name: str, chosen: Filters) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        chosen.errors[name] = f"{name.capitalize()} must be a date (YYYY-MM-DD)."
        return None


def _local_midnight(day: date, zone: str) -> datetime:
    return datetime.combine(day, time(), ZoneInfo(zone)).astimezone(UTC)


def report_scope_for(tenant: Tenant, chosen: Filters, now: datetime) -> reports.ReportScope | None:
    """The scope the form asks for (from and to are days, both included, read in the zone),
    or None with `chosen.errors` saying why."""
    first, last = _day(chosen.start, "from", chosen), _day(chosen.end, "to", chosen)
    if chosen.errors:
        return None
    try:
        # Checks the filters and finds the zone (the campaign's when none is chosen).
        scope = reports.report_scope(
            tenant,
            now - timedelta(seconds=1),
            now,
            zone=chosen.zone or None,
            campaign_name=chosen.campaign or None,
            queue_name=chosen.queue or None,
            agent=chosen.agent or None,
        )
    except InvalidInput as refused:
        chosen.errors[FORM_FIELDS.get(refused.field, "from")] = str(refused)
        return None
    today = now.astimezone(ZoneInfo(scope.zone)).date()
    # A missing day is today, or the other day when today would put it on the wrong side.
    if first is None:
        first = min(last, today) if last else today
    if last is None:
        last = max(first, today)
    chosen.start, chosen.end = first.isoformat(), last.isoformat()
    if last < first:
        chosen.errors["to"] = "To must be on or after From."
        return None
    if (last - first).days + 1 > reports.MAX_DAYS:
        chosen.errors["to"] = f"To must be at most {reports.MAX_DAYS} days after From."
        return None
    return replace(
        scope,
        start=_local_midnight(first, scope.zone),
        end=_local_midnight(last + timedelta(days=1), scope.zone),
    )


# The summary's ending rows: each attempt in exactly one, so they sum to Attempts.
ENDING_LABELS = {
    "completed": "Completed",
    "removed": "Removed",
    "rescheduled": "Rescheduled",
    "released": "Released",
    "lapsed": "Lapsed",
    "taken_back": "Taken back by a supervisor",
    "changed_elsewhere": "Changed elsewhere (status, move, deletion)",
    "in_progress": "In progress",
}


def _share(count: int, total: int) -> str:
    return f"{count / total:.1%}" if total else "—"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _secs(value: float | None) -> object:
    return "—" if value is None else round(value)


def build_tables(scope: reports.ReportScope, minutes: int) -> tuple[dict[str, Table], bool]:
    """Every table of the report (a builder each), and whether the range holds any data."""
    summary = reports.campaign_summary(scope)
    tables = {
        "summary": summary_table(summary),
        "outcomes": outcomes_table(summary),
        "work-codes": work_codes_table(summary),
        "intervals": intervals_table(scope, minutes),
        "hours": hours_table(scope),
        "agents": agents_table(scope),
    }
    return tables, not summary.is_empty or bool(tables["agents"].rows)


def summary_table(summary: reports.CampaignSummary) -> Table:
    return Table(
        "summary",
        "Campaign summary",
        ["Figure", "Value"],
        [
            ["Tasks", summary.tasks],
            ["Tasks attempted", summary.attempted_tasks],
            ["Penetration", _rate(summary.penetration)],
            ["Attempts", summary.attempts],
            ["Contacts", summary.contacts],
            ["Contact rate", _rate(summary.contact_rate)],
            ["Successes", summary.successes],
            *([ENDING_LABELS[name], n] for name, n in summary.endings.items()),
        ],
    )


def outcomes_table(summary: reports.CampaignSummary) -> Table:
    return Table(
        "outcomes",
        "Outcomes",
        ["Outcome", "Attempts", "Share"],
        [[outcome, count, _share(count, summary.attempts)] for outcome, count in summary.outcomes],
    )


def work_codes_table(summary: reports.CampaignSummary) -> Table:
    coded = sum(count for _, _, count in summary.work_codes)
    return Table(
        "work-codes",
        "Work codes",
        ["Work code", "Value", "Count", "Share"],
        [[key, value, count, _share(count, coded)] for key, value, count in summary.work_codes],
    )


def intervals_table(scope: reports.ReportScope, minutes: int) -> Table:
    zone = ZoneInfo(scope.zone)
    return Table(
        "intervals",
        f"Attempts per {minutes} minutes ({scope.zone})",
        ["Interval start", "Attempts", "Contacts", "Successes"],
        [
            [
                row.start.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
                row.attempts,
                row.contacts,
                row.successes,
            ]
            for row in reports.attempts_by_interval(scope, minutes)
        ],
    )


def hours_table(scope: reports.ReportScope) -> Table:
    cells = {(cell.weekday, cell.hour): cell for cell in reports.best_hours(scope)}
    return Table(
        "hours",
        "Contact rate by the customer's local hour and weekday",
        ["Weekday", *(f"{hour:02d}" for hour in range(24))],
        [
            [
                WEEKDAYS[weekday],
                *(
                    _share(cells[weekday, hour].contacts, cells[weekday, hour].attempts)
                    if (weekday, hour) in cells
                    else "—"
                    for hour in range(24)
                ),
            ]
            for weekday in range(7)
        ],
    )


AGENT_HEADERS = [
    "Agent",
    "Attempts",
    "Contacts",
    "Successes",
    "Closed",
    "Closed per hour signed in",
    "Avg preview (s)",
    "Avg talk (s)",
    "Avg wrap-up (s)",
    "Available (s)",
    "Away (s)",
    "Away by reason (s)",
    "In work (s)",
]


def agents_table(scope: reports.ReportScope) -> Table:
    return Table(
        "agents",
        "Agents",
        AGENT_HEADERS,
        [
            [
                row.agent,
                row.attempts,
                row.contacts,
                row.successes,
                row.closed,
                "—" if row.closed_per_hour is None else round(row.closed_per_hour, 2),
                _secs(row.avg_preview_seconds),
                _secs(row.avg_talk_seconds),
                _secs(row.avg_wrap_up_seconds),
                row.available_seconds,
                row.away_seconds,
                "; ".join(f"{reason} {seconds}" for reason, seconds in row.away_by_reason) or "—",
                row.in_work_seconds,
            ]
            for row in reports.agent_summary(scope)
        ],
    )


@bp.app_template_filter("heat_level")
def heat_level(value: object) -> int:
    """A heat map cell's shade, 0 (no attempts) to 5 (every attempt a contact)."""
    if not isinstance(value, str) or not value.endswith("%"):
        return 0
    return 1 + min(4, int(float(value[:-1]) // 20))


def _choices(tenant: Tenant, chosen: Filters) -> dict[str, list[str]]:
    agents = list(
        db.session.scalars(
            select(User.login_user_id)
            .where(User.tenant_id == tenant.id, is_agent())
            .order_by(User.login_user_id)
        )
    )
    if chosen.agent and chosen.agent not in agents:
        # A deleted agent's attempts stay (the field accepts any login): a shared report
        # keeps its agent, and one refused keeps what was asked.
        agents.append(chosen.agent)
    return {
        "agents": agents,
        "campaigns": list(
            db.session.scalars(
                select(Campaign.name).filter_by(tenant_id=tenant.id).order_by(Campaign.name)
            )
        ),
        "queues": list(
            db.session.scalars(
                select(SkillQueue.name).filter_by(tenant_id=tenant.id).order_by(SkillQueue.name)
            )
        ),
    }


def _csv(table: Table, filename: str) -> Response:
    out = io.StringIO()
    writer = GuardedWriter(out)
    writer.writerow(table.headers)
    writer.writerows(table.rows)
    response = Response(out.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@bp.get("/tenants/<int:tenant_id>/reports")
def reports_page(tenant_id: int):
    """The report the filter form asks for (default: today, every campaign, queue and agent)."""
    return _report(tenant_or_404(tenant_id), None)


@bp.get("/tenants/<int:tenant_id>/reports/call-evidence.csv")
def call_evidence_csv(tenant_id: int):
    """Every call of the filters' range with its evidence, as CSV."""
    tenant = tenant_or_404(tenant_id)
    chosen = _filters()
    scope = report_scope_for(tenant, chosen, utcnow())
    if scope is None or chosen.errors:
        return Response(" ".join(chosen.errors.values()) + "\n", 422, mimetype="text/plain")
    response = Response(stream_with_context(evidence_csv(scope)), mimetype="text/csv")
    name = f"call-evidence-{chosen.start}-{chosen.end}.csv"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/tenants/<int:tenant_id>/reports/<table>.csv")
def report_csv(tenant_id: int, table: str):
    """One table of the report, as CSV, for the same filters."""
    if table not in TABLES:
        abort(404)
    return _report(tenant_or_404(tenant_id), table)


def _report(tenant: Tenant, csv_table: str | None):
    chosen = _filters()
    scope = report_scope_for(tenant, chosen, utcnow())
    tables, has_data = (
        build_tables(scope, chosen.interval) if scope and not chosen.errors else ({}, False)
    )
    if csv_table is not None:
        if not tables:
            return Response(" ".join(chosen.errors.values()) + "\n", 422, mimetype="text/plain")
        return _csv(tables[csv_table], f"{csv_table}-{chosen.start}-{chosen.end}.csv")
    if tables:
        per_page = INTERVAL_DAYS_A_PAGE * 24 * 60 // chosen.interval
        asked = request.args.get("intervals_page", 1, type=int)
        tables["intervals"] = paged(tables["intervals"], per_page, asked)
    return render_template(
        "admin/reports/report.html",
        tenant=tenant,
        chosen=chosen,
        scope=scope,
        tables=tables,
        has_data=has_data,
        query={k: v for k, v in request.args.items() if k != "intervals_page"},
        intervals=reports.INTERVAL_MINUTES,
        labels=LABELS,
        error=_not_run(chosen),
        **_choices(tenant, chosen),
    ), (422 if chosen.errors else 200)


def _not_run(chosen: Filters) -> ErrorSummary | None:
    """The page's summary of refused filters: a link to each, its reason beside it, in the
    form's order."""
    links = (
        FieldLink(f"report-{name}", label)
        for name, label in LABELS.items()
        if name in chosen.errors
    )
    return ErrorSummary(tuple(links)) if chosen.errors else None
