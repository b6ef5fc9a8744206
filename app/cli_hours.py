"""Operator commands for hours of operation: `flask --app wsgi hours ...` and
`skill-queue set-hours`."""

from __future__ import annotations

import click

hours_group = click.Group("hours", help="Hours of operation: schedules and exception dates.")
