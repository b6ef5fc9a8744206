"""Operator commands for work-code groups and their codes: `flask --app wsgi work-codes ...`."""

from __future__ import annotations

import click

work_codes_group = click.Group("work-codes", help="Work-code groups, their codes and queues.")
