"""What every operator command shares: one transaction per command, and finding its tenant.

Each command runs in one transaction and answers bad input with a one-line error and a
non-zero exit. Commands that issue a key print it alone on the last line.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

import click
from flask import current_app

from app.db.full_disk import cause, storage_full
from app.db.transactions import in_one_transaction, transaction
from app.extensions import db
from app.models import Tenant
from app.services.errors import ServiceError
from app.services.tenants import setup as tenants


def transactional(command: Callable) -> Callable:
    """Commit when the command succeeds; roll back and exit 1 with the reason when not."""

    @wraps(command)
    def run(*args, **kwargs):
        result, refused = in_one_transaction(
            db.session, lambda: command(*args, **kwargs), refusals=ServiceError
        )
        if refused is not None:
            raise click.ClickException(refused.message) from None
        if result is not None:
            click.echo(result)

    return run


def tenant_of(company: str, environment: str) -> Tenant:
    """The tenant a command names, or a one-line refusal."""
    return tenants.get_tenant(current_app.config["PLATFORM_CODE"], company, environment)


def read_only(command: Callable) -> Callable:
    """Run the command's reads in one read-only transaction: an export or a listing never
    takes SQLite's write lock, whatever it reads; exit 1 with the reason of a refusal."""

    @wraps(command)
    def run(*args, **kwargs):
        try:
            with transaction(db.session, read_only=True):
                return command(*args, **kwargs)
        except ServiceError as refused:
            raise click.ClickException(refused.message) from None

    return run


FULL_STORAGE = (
    "The storage is full ({cause}): nothing was changed. Free some space and run it again."
)


def ends_full_storage_in_one_line(command: click.Command) -> None:
    """Make `command` (each command of a group) end a full storage with one line and exit
    1 instead of a traceback; any other error is left as it is. Done once per command."""
    if isinstance(command, click.Group):
        for each in command.commands.values():
            ends_full_storage_in_one_line(each)
        return
    callback = command.callback
    if callback is None or getattr(callback, "ends_full_storage", False):
        return

    @wraps(callback)
    def run(*args, **kwargs):
        try:
            return callback(*args, **kwargs)
        except Exception as error:
            if not storage_full(error):
                raise
            db.session.rollback()
            raise click.ClickException(FULL_STORAGE.format(cause=cause(error))) from None

    run.ends_full_storage = True
    command.callback = run
