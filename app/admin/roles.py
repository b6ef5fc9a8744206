"""What each console role may open: every page and form of a tenant is checked here, on
the server, before its view runs. A page the person's role does not reach answers 404, as
another tenant's would; a form post it does not reach changes nothing.

- An **analyst** reads: campaigns and their tasks, intake and bulk reports, reports, the
  wallboard and the agents board (`READS`; no form among them).
- A **supervisor** runs the work: everything of a tenant not named below (campaigns, tasks,
  intake, bulk actions, work codes, hours, contact rules, consent, do-not-call, agents).
- An **administrator** also has `ADMINISTRATION`: API keys, sign-in and SCIM settings,
  webhooks, the people of the console and the tenant's audit trail.

A new page of a tenant is a supervisor's until it is named in one of the sets.
"""

from __future__ import annotations

from flask import abort, request
from flask_login import current_user

from app.admin.blueprint import bp
from app.models import Role

READS = frozenset(
    {
        "campaigns",
        "campaign",
        "campaign_delivery",
        "campaign_forecast",
        "campaign_forecast_panel",
        "campaign_progress_panel",
        "campaign_progress_stream",
        "export_campaign",
        "task",
        "agent",
        "intake_load",
        "intake_report",
        "bulk_job",
        "bulk_failures",
        "reports_page",
        "report_csv",
        "call_evidence_csv",
        "wallboard",
        "wallboard_live",
        "wallboard_stream",
        "agents",
        "agents_live",
        "agents_stream",
    }
)

ADMINISTRATION = frozenset(
    {
        "keys",
        "confirm_rotate_key",
        "rotate_key",
        "sign_in",
        "map_group",
        "sign_in_ldap",
        "sign_in_oidc",
        "sign_in_passwords",
        "sign_in_saml",
        "set_provisioning",
        "confirm_remove_provider",
        "remove_provider",
        "make_scim_token",
        "webhooks",
        "webhook",
        "new_webhook",
        "edit_webhook",
        "delete_webhook",
        "enable_webhook",
        "rotate_webhook_secret",
        "webhook_secret",
        "replay_webhook_delivery",
        "replay_webhook_since",
        "audit_trail",
        "audit_trail_csv",
        "people",
        "grant_role",
    }
)


def needed(endpoint: str) -> Role:
    """The role a tenant's page or form asks for (a POST-only form's GET, `name_get`,
    asks what the form does)."""
    name = endpoint.removeprefix("admin.").removesuffix("_get")
    if name in ADMINISTRATION:
        return Role.ADMINISTRATOR
    return Role.ANALYST if name in READS else Role.SUPERVISOR


def may(endpoint: str, tenant_id: int) -> bool:
    """Whether the signed-in person's role in the tenant reaches the page or form."""
    role = current_user.role_in(tenant_id) if current_user.is_authenticated else None
    return role is not None and role.holds(needed(endpoint))


@bp.before_request
def _role_reaches():
    tenant_id = (request.view_args or {}).get("tenant_id")
    if tenant_id is None or not current_user.is_authenticated:
        return
    if not may(request.endpoint or "", tenant_id):
        abort(404)


@bp.app_context_processor
def _may_in_templates():
    return {"may": may}
