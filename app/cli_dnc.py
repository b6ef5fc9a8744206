"""Operator commands for the do-not-call list: `flask --app wsgi dnc ...`."""

from __future__ import annotations

import click

dnc_group = click.Group("dnc", help="The tenant's do-not-call list.")
