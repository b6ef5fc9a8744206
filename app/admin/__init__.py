"""The supervisors' web UI: server-rendered pages on the same services as the APIs."""

from app.admin import (  # noqa: F401 - the views register themselves on bp
    access,
    agents,
    audit,
    auth,
    bulk,
    callbacks,
    calling,
    campaign_life,
    campaigns,
    consent,
    console_people,
    contact_rules,
    dnc,
    forecast,
    formatting,
    hours,
    intake,
    keys,
    people,
    provisioning,
    reports,
    roles,
    sign_in,
    sign_in_ldap,
    sign_in_oidc,
    sign_in_saml,
    sso,
    tasks,
    wallboard,
    webhooks,
    work_codes,
    workspace,
)
from app.admin.blueprint import bp

__all__ = ["bp"]
