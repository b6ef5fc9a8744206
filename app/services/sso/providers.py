"""Identity providers: one per tenant for its agents at the desk, one for the console.

Settings by kind (each kind's module checks its own, `check_settings`):

- `saml`: `metadata_xml` (the provider's metadata, as read from the file or URL),
  `metadata_url` (where it was read from, or None), `idp_entity_id` (from the metadata),
  `login_attribute` (None: the NameID; else the attribute whose value is the login).
- `oidc`: `issuer` (its discovery document is `{issuer}/.well-known/openid-configuration`),
  `client_id`, `login_claim` (`email` or `preferred_username`), `scopes`,
  `token_auth_method` (`client_secret_basic` or `client_secret_post`, as the provider
  advertises); the client secret sealed in `sealed_secret`.
- `ldap`: `url` (`ldaps://host:636` or `ldap://host:389` with `start_tls`),
  `bind_dn_template` (with `{login}`, escaped as a DN value), `start_tls`,
  `timeout_seconds`, optional `ca_file`.
- The console's provider also has `groups_claim` (the claim or attribute carrying groups or
  roles), `all_tenants_groups` (members administer every tenant) and `tenant_groups`
  (a group → the tenants its members may see, each as `COMPANY/ENVIRONMENT` for a
  supervisor's role or `COMPANY/ENVIRONMENT:ROLE`; the highest a person's groups give wins).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.extensions import db
from app.models import IdentityProvider, ProviderKind, Tenant
from app.services.actors import Actor
from app.services.audit.trail import Change, record
from app.services.errors import InvalidInput, NotFound
from app.services.fields import SSO_KIND, SSO_LOCAL_AGENT_PASSWORDS
from app.services.sso import sealing

# How this module's refusals name their fields.
KIND = SSO_KIND.said_as("kind")
LOCAL_AGENT_PASSWORDS = SSO_LOCAL_AGENT_PASSWORDS.said_as("localAgentPasswords")

CONSOLE = "console"


def provider_for(tenant: Tenant | None) -> IdentityProvider | None:
    """The tenant's identity provider (None: the console's), or None when it has none."""
    where = (
        IdentityProvider.tenant_id.is_(None)
        if tenant is None
        else IdentityProvider.tenant_id == tenant.id
    )
    return db.session.scalar(select(IdentityProvider).where(where))


def providers_of(tenants: list[Tenant]) -> dict[int, IdentityProvider]:
    """The identity providers of these tenants by tenant id (one query), for lists."""
    ids = [tenant.id for tenant in tenants]
    if not ids:
        return {}
    found = db.session.scalars(select(IdentityProvider).where(IdentityProvider.tenant_id.in_(ids)))
    return {provider.tenant_id: provider for provider in found}


def _subject(tenant: Tenant | None) -> str:
    return CONSOLE if tenant is None else tenant.label


def set_provider(
    tenant: Tenant | None,
    kind: ProviderKind | str,
    settings: dict[str, Any],
    *,
    secret: str | None = None,
    actor: Actor,
) -> IdentityProvider:
    """Give the tenant (None: the console) this identity provider, in place of any it had.
    `settings` must already be the kind's checked settings; `secret` (when the kind needs one)
    is sealed. The trail records the settings, never the secret."""
    try:
        kind = ProviderKind(kind)
    except ValueError:
        raise InvalidInput(f"kind must be one of {', '.join(ProviderKind)}", field=KIND) from None
    provider = provider_for(tenant)
    before = describe(provider) if provider else None
    if provider is None:
        provider = IdentityProvider(tenant_id=tenant.id if tenant else None)
        db.session.add(provider)
    elif provider.kind != kind:
        provider.sealed_secret = None
    provider.kind = kind
    provider.settings = dict(settings)
    if secret is not None:
        provider.sealed_secret = sealing.seal(secret)
    db.session.flush()
    record(
        actor,
        Change(
            "identity_provider.set",
            "identity_provider",
            _subject(tenant),
            tenant.id if tenant else None,
            before=before,
            after=describe(provider),
        ),
    )
    return provider


def remove_provider(tenant: Tenant | None, *, actor: Actor) -> None:
    """Take the tenant's (None: the console's) identity provider away: sign-in goes back to
    passwords (agents' own passwords are switched on again, so nobody is locked out)."""
    provider = provider_for(tenant)
    if provider is None:
        raise NotFound(f"{_subject(tenant)} has no identity provider")
    before = describe(provider)
    db.session.delete(provider)
    if tenant is not None:
        tenant.local_agent_passwords = True
    record(
        actor,
        Change(
            "identity_provider.removed",
            "identity_provider",
            _subject(tenant),
            tenant.id if tenant else None,
            before=before,
        ),
    )


def secret_of(provider: IdentityProvider) -> str | None:
    return sealing.unseal(provider.sealed_secret) if provider.sealed_secret else None


# Settings shown back: everything but the provider's whole metadata document.
_NOT_SHOWN = frozenset({"metadata_xml"})


def describe(provider: IdentityProvider) -> dict[str, Any]:
    """The provider as the CLI, the settings page and the trail show it: its kind and
    settings, whether a secret is set (never the secret)."""
    shown = {k: v for k, v in sorted(provider.settings.items()) if k not in _NOT_SHOWN}
    return {"kind": provider.kind, **shown, "secretSet": provider.sealed_secret is not None}


def set_local_agent_passwords(tenant: Tenant, allowed: bool, *, actor: Actor) -> None:
    """Let the tenant's agents sign in with a password of the desk, or not. Off needs an
    identity provider to sign them in instead; existing desk sessions carry on."""
    if not allowed and provider_for(tenant) is None:
        raise InvalidInput(
            "agents' own passwords can be switched off only once the tenant has an identity "
            "provider",
            field=LOCAL_AGENT_PASSWORDS,
        )
    before = tenant.local_agent_passwords
    tenant.local_agent_passwords = allowed
    record(
        actor,
        Change(
            "tenant.agent_passwords_set",
            "tenant",
            str(tenant.id),
            tenant.id,
            before={"localAgentPasswords": before},
            after={"localAgentPasswords": allowed},
        ),
    )
