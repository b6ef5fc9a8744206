"""Reports: figures counted from the attempt ledger and the agents' state spans.

Every report reads a `ReportScope` (the tenant, a UTC range, the zone its days are read in,
and optionally one campaign, queue or agent). The range's whole 15-minute UTC slots are
read from the rollups the ledger keeps in each attempt's transaction
(app/models/report_rollups.py), its partial edge slots from the attempts themselves
(`slots.split`), so a figure is exact to the millisecond. Every door (the report pages,
the Reports API, the CLI) calls these functions.
"""

from app.services.reports.agent_figures import AgentRow, agent_summary
from app.services.reports.best_hours import HourCell, best_hours
from app.services.reports.intervals import INTERVAL_MINUTES, Interval, attempts_by_interval
from app.services.reports.scope import MAX_DAYS, ReportScope, report_scope
from app.services.reports.summary import CampaignSummary, campaign_summary

__all__ = [
    "INTERVAL_MINUTES",
    "MAX_DAYS",
    "AgentRow",
    "CampaignSummary",
    "HourCell",
    "Interval",
    "ReportScope",
    "agent_summary",
    "attempts_by_interval",
    "best_hours",
    "campaign_summary",
    "report_scope",
]
