"""Operator commands for the storage: `flask --app wsgi storage check`.

Not `flask db check`: Flask-Migrate's `db` group has a `check` of its own (do the models
need a new migration), which developers use.
"""

from __future__ import annotations

import click
from alembic.script import ScriptDirectory
from flask import current_app

from app.db.health import run_checks
from app.extensions import db


@click.group("storage", help="The database's health.")
def storage_group() -> None:
    """The database's health."""


@storage_group.command("check")
def check() -> None:
    """Run the database's health checks (docs/operators-guide.md): one line per check,
    `ok` or `FAILED`, and a non-zero exit when any failed."""
    migrate = current_app.extensions["migrate"]
    newest = ScriptDirectory.from_config(migrate.migrate.get_config()).get_current_head()
    with db.engine.connect() as connection:
        checks = run_checks(connection, newest)
    for each in checks:
        click.echo(f"{'ok' if each.held else 'FAILED':<6} {each.name}: {each.detail}")
    if not all(each.held for each in checks):
        raise SystemExit(1)
