"""A campaign's dry run: the chart and table of what the contact rules would let be called
over the next days (the Reports API's campaignForecast, the same service), on a page of
its own and as the campaign page's panel, which the page asks for after it has shown."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from flask import render_template, request

from app.admin.access import campaign_or_404, tenant_or_404
from app.admin.blueprint import bp
from app.models.types import utcnow
from app.services.contact_rules import engine
from app.services.errors import ServiceError
from app.services.reports import forecast

DAYS = 7
INTERVALS = {"hour": 60, "day": 1440}


def _table(found: forecast.Forecast) -> dict:
    """The forecast as the chart's table: a row per interval, a column per rule seen."""
    rules = [
        name for name in engine.NAMES if any(dict(i.held_back).get(name) for i in found.intervals)
    ]
    zone = ZoneInfo(found.campaign.default_time_zone)
    fmt = "%a %d %b %H:%M" if found.minutes == 60 else "%a %d %b"
    rows = [
        [
            i.start.astimezone(zone).strftime(fmt),
            i.callable,
            *(dict(i.held_back).get(r, 0) for r in rules),
        ]
        for i in found.intervals
    ]
    return {"headers": ["Starts", "Callable", *rules], "rows": rows}


def _context(tenant_id: int, campaign_id: int) -> dict:
    tenant = tenant_or_404(tenant_id)
    campaign = campaign_or_404(tenant, campaign_id)
    interval = request.args.get("interval")
    interval = interval if interval in INTERVALS else "hour"
    start = utcnow().replace(minute=0, second=0, microsecond=0)
    context = {"tenant": tenant, "campaign": campaign, "interval": interval}
    try:
        found = forecast.campaign_forecast(
            tenant, campaign.name, start, start + timedelta(days=DAYS), INTERVALS[interval]
        )
    except ServiceError as refused:
        return {**context, "refused": refused.message}
    return {**context, "forecast": found, "table": _table(found), "days": DAYS}


@bp.get("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/forecast")
def campaign_forecast(tenant_id: int, campaign_id: int):
    """The dry run of the next 7 days, hour by hour (or day by day)."""
    return render_template("admin/campaign_forecast.html", **_context(tenant_id, campaign_id))


@bp.get("/tenants/<int:tenant_id>/campaigns/<int:campaign_id>/forecast/panel")
def campaign_forecast_panel(tenant_id: int, campaign_id: int):
    """The dry run alone, as the campaign page shows it."""
    return render_template("admin/_forecast.html", **_context(tenant_id, campaign_id))
