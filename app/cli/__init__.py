"""The operator commands, one module per command group: `flask --app wsgi GROUP COMMAND ...`.

Every command runs in one transaction (app/cli/common.py) and calls one service function.
"""

from __future__ import annotations

from flask import Flask

from app.cli.agents import agent_group
from app.cli.audit import audit_group
from app.cli.away_reasons import away_reason_group
from app.cli.callbacks import callback_group
from app.cli.calling_rules import calling_rules_group
from app.cli.campaigns import campaign_group
from app.cli.common import ends_full_storage_in_one_line
from app.cli.consent import consent_group
from app.cli.contact_limits import contact_limit_group
from app.cli.demo import demo_group
from app.cli.dnc import dnc_group
from app.cli.hours import hours_group
from app.cli.intake import intake_group
from app.cli.reports import reports_group
from app.cli.scim import scim_group
from app.cli.skill_queues import queue_group
from app.cli.sso import sso_group
from app.cli.storage import storage_group
from app.cli.supervisors import supervisor_group
from app.cli.tenants import tenant_group
from app.cli.user_templates import template_group
from app.cli.webhooks import webhook_group
from app.cli.work_codes import work_codes_group
from app.cli.worker import worker_command

COMMANDS = (
    tenant_group,
    queue_group,
    campaign_group,
    template_group,
    supervisor_group,
    sso_group,
    scim_group,
    agent_group,
    away_reason_group,
    hours_group,
    work_codes_group,
    callback_group,
    consent_group,
    dnc_group,
    contact_limit_group,
    calling_rules_group,
    intake_group,
    audit_group,
    webhook_group,
    demo_group,
    reports_group,
    storage_group,
    worker_command,
)


def register(app: Flask) -> None:
    """Add every command group to `flask --app wsgi`, each ending a full storage in one
    clear line."""
    for command in COMMANDS:
        ends_full_storage_in_one_line(command)
        app.cli.add_command(command)
