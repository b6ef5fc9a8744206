"""Operator commands for the reports: `flask --app wsgi reports ...`."""

from __future__ import annotations

import click

from app.cli.common import transactional
from app.services.reports.recount import recount

reports_group = click.Group("reports", help="The reports' rollups.")


@reports_group.command("rebuild-rollups")
@transactional
def rebuild_rollups() -> str:
    """Recount the reports' 15-minute rollups of every campaign from the attempt ledger, in
    one transaction (the ledger keeps them current; this puts them right after attempts
    were written by plain SQL). Safe to run again: the same attempts give the same rows."""
    rows = recount()
    return f"Recounted the rollups from the attempts: {rows} rollup rows."
