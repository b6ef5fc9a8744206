"""Operator commands for the audit trail: `flask --app wsgi audit export|prune`."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click
from flask import current_app

from app.cli.common import tenant_of
from app.models.types import utcnow
from app.services.audit.reading import export_records, prune_audit
from app.services.errors import ServiceError

audit_group = click.Group("audit", help="The audit trail: export it, prune old records.")


class Instant(click.ParamType):
    """An ISO-8601 date or time (UTC when it names no offset) or epoch milliseconds."""

    name = "ISO-8601|EPOCH-MS"

    def convert(self, value, param, ctx) -> datetime:
        if isinstance(value, datetime):
            return value
        text = str(value).strip()
        try:
            if text.lstrip("-").isdigit():
                return datetime.fromtimestamp(int(text) / 1000, UTC)
            moment = datetime.fromisoformat(text)
        except (ValueError, OverflowError, OSError):
            self.fail(f"'{value}' is neither an ISO-8601 time nor epoch milliseconds", param, ctx)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@audit_group.command("export")
@click.argument("company")
@click.argument("environment")
@click.option("--since", type=Instant(), help="Records at or after this time.")
@click.option("--until", type=Instant(), help="Records before this time.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),
    default="-",
    help="The file to write, whole or not at all (default: standard output).",
)
def export(
    company: str,
    environment: str,
    since: datetime | None,
    until: datetime | None,
    output: str,
) -> None:
    """Write the tenant's audit records as JSON lines, oldest first."""
    try:
        tenant = tenant_of(company, environment)
    except ServiceError as error:
        raise click.ClickException(error.message) from None
    if since and until and since >= until:
        raise click.BadParameter("--since must come before --until", param_hint="--since")
    # Written aside and renamed into place at the end, so a failed export leaves no half file.
    with click.open_file(output, "w", encoding="utf-8", atomic=output != "-") as out:
        for record in export_records(tenant.id, since, until):
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")


@audit_group.command("prune")
def prune() -> None:
    """Delete the audit records older than AUDIT_RETENTION_DAYS (0: keep every record)."""
    days = current_app.config["AUDIT_RETENTION_DAYS"]
    if days <= 0:
        click.echo("AUDIT_RETENTION_DAYS is 0: every audit record is kept.")
        return
    deleted = prune_audit(utcnow())
    click.echo(f"Deleted {deleted} audit records older than {days} days.")
