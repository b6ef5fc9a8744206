"""Operator commands for the consent ledger: `flask --app wsgi consent give|revoke|import|show`.

Each command answers bad input with a one-line error and a non-zero exit; a change runs in
one transaction (an import all or nothing). `show` prints a number's history on standard
output.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from app.cli.common import read_only, tenant_of, transactional
from app.services.actors import Actor
from app.services.campaigns.catalogue import get_campaign
from app.services.consent import ledger
from app.services.consent.ledger_csv import import_consent, parse_at
from app.services.errors import InvalidInput

consent_group = click.Group(
    "consent", help="The tenant's consent ledger: consent to call a number."
)
# Refused rows an import prints; the count says how many more there are.
SHOWN_ROWS = 100

AT = click.option(
    "--at", "at_text", metavar="ISO", help="When it happened (ISO 8601 with a zone; default: now)."
)


def _at(text: str | None) -> datetime | None:
    return parse_at(text) if text else None


@consent_group.command("give")
@click.argument("company")
@click.argument("environment")
@click.argument("numbers", nargs=-1, required=True)
@AT
@click.option("--source", default="", help="Where the consent came from (at most 255 characters).")
@click.option("--campaign", help="For this campaign only (default: every campaign).")
@click.option("--purpose", default="", help="What it was given for (at most 255 characters).")
@transactional
def give(company, environment, numbers, at_text, source, campaign, purpose) -> str:
    """Record consent given to call E.164 numbers (all or none)."""
    tenant = tenant_of(company, environment)
    scoped = get_campaign(tenant, campaign) if campaign else None
    done = ledger.give(tenant, numbers, actor=Actor.operator(), at=_at(at_text), source=source,
                       campaign=scoped, purpose=purpose)  # fmt: skip
    where = f"campaign '{scoped.name}'" if scoped else "every campaign"
    return f"Recorded consent given for {len(done)} numbers of {tenant.label}, for {where}."


@consent_group.command("revoke")
@click.argument("company")
@click.argument("environment")
@click.argument("numbers", nargs=-1, required=True)
@AT
@click.option("--source", default="", help="How it was revoked (at most 255 characters).")
@transactional
def revoke(company, environment, numbers, at_text, source) -> str:
    """Record numbers' consent revoked: in force at once in every campaign of the tenant."""
    tenant = tenant_of(company, environment)
    done = ledger.revoke(tenant, numbers, actor=Actor.operator(), at=_at(at_text), how=source)
    return f"Recorded consent revoked for {len(done)} numbers of {tenant.label}, in every campaign."


@consent_group.command("import")
@click.argument("company")
@click.argument("environment")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@transactional
def import_file(company: str, environment: str, file: Path) -> str:
    """Import a CSV file of number, given|revoked, at, source[, campaign[, purpose]] rows:
    all or nothing."""
    tenant = tenant_of(company, environment)
    report = import_consent(tenant, file.read_bytes(), file.name, actor=Actor.operator())
    for row in report.refused[:SHOWN_ROWS]:
        click.echo(f"row {row.row}: refused: {row.reason}")
    if len(report.refused) > SHOWN_ROWS:
        click.echo(f"… and {len(report.refused) - SHOWN_ROWS} more refused rows")
    if report.refused:
        raise InvalidInput(report.summary())
    return report.summary()


@consent_group.command("show")
@click.argument("company")
@click.argument("environment")
@click.argument("number")
@read_only
def show(company: str, environment: str, number: str):
    """A number's history, oldest first: when, given or revoked, source or how, campaign,
    purpose, who recorded it and when."""
    tenant = tenant_of(company, environment)
    entries = ledger.history(tenant, number)
    for entry in entries:
        cells = (
            _time(entry.at),
            entry.action,
            entry.source or "—",
            ledger.scope_text(entry),
            entry.purpose or "—",
            entry.recorded_by,
            f"recorded {_time(entry.recorded_at)}",
        )
        click.echo("\t".join(cells))  # fmt: skip
    said = ledger.standing_text(entries)
    click.echo(f"{number.strip()}: {len(entries)} records; {said}", err=True)


def _time(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"
