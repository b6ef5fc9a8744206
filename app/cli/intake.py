"""Operator commands for intake files: `flask --app wsgi intake load|export|watch`."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from flask import current_app

from app.cli.common import read_only, tenant_of
from app.models import Campaign, LoadStatus
from app.services.actors import Actor
from app.services.campaigns.catalogue import get_campaign
from app.services.errors import ServiceError
from app.services.intake.export import export_csv
from app.services.intake.folder_drop import FolderDrop
from app.services.intake.runs import copy_of, report_file, run_load, start_load
from app.services.intake.s3_drop import S3Drop
from app.services.intake.watch import watch_once
from app.services.search.criteria import Condition, Criterion

intake_group = click.Group("intake", help="Intake files: load, export, watch a drop location.")


def _campaign(company: str, environment: str, name: str) -> Campaign:
    try:
        return get_campaign(tenant_of(company, environment), name)
    except ServiceError as error:
        raise click.ClickException(error.message) from None


@intake_group.command("load")
@click.argument("company")
@click.argument("environment")
@click.argument("campaign")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Check every row and report; write nothing.")
@click.option("--all-or-nothing", is_flag=True, help="Refuse the whole file if any row is bad.")
@click.option("--delimiter", help="The field delimiter (default: detected).")
def load(company, environment, campaign, file: Path, dry_run, all_or_nothing, delimiter):
    """Load an intake file (CSV) into a campaign."""
    target = _campaign(company, environment, campaign)
    record = start_load(
        target,
        file.name,
        "cli",
        copy_of(file),
        actor=Actor.operator(),
        dry_run=dry_run,
        all_or_nothing=all_or_nothing,
    )
    done = run_load(record.id, delimiter)
    counts = (
        f"{done.rows_done} rows: {done.added} added, {done.updated} updated, "
        f"{done.rejected} rejected, {done.superseded} superseded"
    )
    if done.normalised:
        counts += f"; {done.normalised} phone numbers normalised to E.164"
    click.echo(("Dry run, nothing written. " if dry_run else "") + counts)
    if done.message:
        click.echo(done.message)
    click.echo(f"Report: {report_file(done)}")
    if done.status != LoadStatus.DONE:
        raise click.ClickException(f"load {done.status}: {done.message}")


@intake_group.command("export")
@click.argument("company")
@click.argument("environment")
@click.argument("campaign")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="File to write (default: standard output).")  # fmt: skip
@click.option("--where", nargs=3, multiple=True, metavar="KEY CONDITION VALUE",
              help="A search criterion; repeat to AND several.")  # fmt: skip
@read_only
def export(company, environment, campaign, output: Path | None, where):
    """Export the campaign's tasks (or a search's) as an intake file."""
    target = _campaign(company, environment, campaign)
    try:
        criteria = [Criterion(key, Condition(cond), value) for key, cond, value in where]
    except ValueError:
        raise click.ClickException(f"a condition is one of {', '.join(Condition)}") from None
    chunks = export_csv(target, criteria)
    out = output.open("w", newline="", encoding="utf-8") if output else sys.stdout
    try:
        for chunk in chunks:
            out.write(chunk)
    finally:
        if output:
            out.close()


@intake_group.command("watch")
@click.option("--folder", type=click.Path(file_okay=False, path_type=Path),
              help="Drop folder (default: INTAKE_DROP_FOLDER, or instance/drop).")  # fmt: skip
@click.option("--s3", "s3_url", metavar="s3://BUCKET/PREFIX", help="Watch an S3 prefix instead.")
@click.option("--once", is_flag=True, help="Load what is waiting, then stop.")
@click.option("--interval", default=10.0, show_default=True, help="Seconds between looks.")
def watch(folder: Path | None, s3_url: str | None, once: bool, interval: float):
    """Load each file dropped under <company>/<environment>/<campaign>/, once."""
    drop = _s3_drop(s3_url) if s3_url else FolderDrop(folder or _default_folder())
    where = s3_url or str(drop.root)
    click.echo(f"Watching {where} for <company>/<environment>/<campaign>/<file>.csv")
    while True:
        for outcome in watch_once(drop):
            click.echo(
                f"{outcome.file}: {outcome.status}"
                + (f" ({outcome.message})" if outcome.message else "")
            )
        if once:
            return
        time.sleep(interval)


def _default_folder() -> Path:
    folder = Path(
        current_app.config.get("INTAKE_DROP_FOLDER") or Path(current_app.instance_path) / "drop"
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _s3_drop(url: str) -> S3Drop:
    if not url.startswith("s3://") or len(url) <= 5:
        raise click.ClickException("--s3 takes s3://BUCKET/PREFIX")
    bucket, _, prefix = url[5:].partition("/")
    try:
        import boto3
    except ImportError:
        raise click.ClickException("watching S3 needs boto3: pip install -e '.[connect]'") from None
    return S3Drop(bucket, prefix, boto3.client("s3"))
