"""Operator commands for the do-not-call list: `flask --app wsgi dnc add|remove|import|...`.

Each command answers bad input with a one-line error and a non-zero exit; a change runs in
one transaction. `search` and `export` print data on standard output only.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from app.cli.common import read_only, tenant_of, transactional
from app.services.actors import Actor
from app.services.dnc import numbers as dnc
from app.services.dnc.list_csv import export_csv, import_numbers

dnc_group = click.Group("dnc", help="The tenant's do-not-call list.")
NOTE_CLI = "cli"
# Refused rows an import prints; the count says how many more there are.
SHOWN_ROWS = 100


def _listed(numbers: list[str]) -> str:
    return ", ".join(numbers)


@dnc_group.command("add")
@click.argument("company")
@click.argument("environment")
@click.argument("numbers", nargs=-1, required=True)
@click.option("--note", default=NOTE_CLI, show_default=True, help="Why (at most 255 characters).")
@transactional
def add(company: str, environment: str, numbers: tuple[str, ...], note: str) -> str:
    """List E.164 numbers (all or none: one bad number refuses the lot)."""
    tenant = tenant_of(company, environment)
    done = dnc.add_numbers(tenant, numbers, note, actor=Actor.operator())
    said = f"Added {len(done.added)} to the do-not-call list of {tenant.label}."
    if done.already:
        said += f" Already listed: {_listed(done.already)}."
    return said


@dnc_group.command("remove")
@click.argument("company")
@click.argument("environment")
@click.argument("numbers", nargs=-1, required=True)
@transactional
def remove(company: str, environment: str, numbers: tuple[str, ...]) -> str:
    """Take numbers off the list (one not on it is said, not refused)."""
    tenant = tenant_of(company, environment)
    done = dnc.remove_numbers(tenant, numbers, actor=Actor.operator())
    said = f"Removed {len(done.removed)} from the do-not-call list of {tenant.label}."
    if done.not_listed:
        said += f" Not on the list: {_listed(done.not_listed)}."
    return said


@dnc_group.command("import")
@click.argument("company")
@click.argument("environment")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--note", default="import", show_default=True, help="Note of rows without one.")
@transactional
def import_file(company: str, environment: str, file: Path, note: str) -> str:
    """Import a CSV file: one number per row, an optional note column and header."""
    tenant = tenant_of(company, environment)
    report = import_numbers(tenant, file.read_bytes(), file.name, actor=Actor.operator(), note=note)
    for row in report.refused[:SHOWN_ROWS]:
        click.echo(f"row {row.row}: refused: {row.reason}")
    if len(report.refused) > SHOWN_ROWS:
        click.echo(f"… and {len(report.refused) - SHOWN_ROWS} more refused rows")
    return report.summary()


@dnc_group.command("search")
@click.argument("company")
@click.argument("environment")
@click.argument("prefix", default="")
@click.option("--exact", is_flag=True, help="PREFIX is the whole number.")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1, 10000))
@click.option("--offset", default=0, show_default=True, type=click.IntRange(0))
@read_only
def search(company: str, environment: str, prefix: str, exact: bool, limit: int, offset: int):
    """List numbers starting with PREFIX (all without one): number, note, when added."""
    tenant = tenant_of(company, environment)
    found = dnc.search_numbers(tenant, prefix, exact=exact, limit=limit, offset=offset)
    for entry in found.entries:
        click.echo(f"{entry.number}\t{entry.note}\t{entry.created_at:%Y-%m-%d %H:%M} UTC")
    if found.entries:
        last = offset + len(found.entries)
        click.echo(f"{offset + 1}–{last} of {found.total} numbers", err=True)
    else:
        click.echo(f"No number on this page; {found.total} match.", err=True)


@dnc_group.command("export")
@click.argument("company")
@click.argument("environment")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@read_only
def export(company: str, environment: str, file: Path | None):
    """Write the list as CSV (number, note, added) to FILE, or to standard output."""
    tenant = tenant_of(company, environment)
    out = file.open("w", newline="", encoding="utf-8") if file else sys.stdout
    try:
        for chunk in export_csv(tenant):
            out.write(chunk)
    finally:
        if file:
            out.close()
