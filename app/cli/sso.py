"""Operator commands for identity providers: `flask --app wsgi sso show|remove|passwords`.

Each kind's own command (`sso saml`, `sso oidc`, `sso ldap`) sets a tenant's provider, or
the console's with `--console` in place of COMPANY ENVIRONMENT.
"""

from __future__ import annotations

import json

import click
from flask import current_app

from app.cli.common import tenant_of, transactional
from app.models import ProviderKind, Role, Tenant
from app.services.actors import Actor
from app.services.sso import ldap, oidc, providers, saml
from app.services.sso.identity import tenant_role

sso_group = click.Group("sso", help="Identity providers: sign-in for agents and supervisors.")


def realm_tenant(company: str | None, environment: str | None, console: bool) -> Tenant | None:
    """The tenant the command names, or None for `--console`; one or the other."""
    if console == bool(company or environment):
        raise click.UsageError("name COMPANY ENVIRONMENT, or --console, not both")
    if console:
        return None
    if not (company and environment):
        raise click.UsageError("name both COMPANY and ENVIRONMENT")
    return tenant_of(company, environment)


def realm_arguments(command):
    command = click.option(
        "--console", is_flag=True, help="The supervisors' console instead of a tenant."
    )(command)
    command = click.argument("environment", required=False)(command)
    return click.argument("company", required=False)(command)


@sso_group.command("show")
@realm_arguments
@transactional
def show(company: str | None, environment: str | None, console: bool) -> str:
    """Show the identity provider (never its secret)."""
    tenant = realm_tenant(company, environment, console)
    provider = providers.provider_for(tenant)
    shown = providers.describe(provider) if provider else {"kind": None}
    if tenant is not None:
        shown["localAgentPasswords"] = tenant.local_agent_passwords
    return json.dumps(shown, indent=2, sort_keys=True)


@sso_group.command("remove")
@realm_arguments
@transactional
def remove(company: str | None, environment: str | None, console: bool) -> str:
    """Remove the identity provider: passwords sign in again."""
    tenant = realm_tenant(company, environment, console)
    providers.remove_provider(tenant, actor=Actor.operator())
    return "Identity provider removed; passwords sign in again."


@sso_group.command("passwords")
@click.argument("company")
@click.argument("environment")
@click.option("--on/--off", "allowed", required=True, help="Agents' own desk passwords.")
@transactional
def passwords(company: str, environment: str, allowed: bool) -> str:
    """Let the tenant's agents sign in with a password of the desk, or not."""
    tenant = tenant_of(company, environment)
    providers.set_local_agent_passwords(tenant, allowed, actor=Actor.operator())
    return f"Agents' own passwords {'on' if allowed else 'off'} for {tenant.label}."


def console_options(command):
    """The options that map the console provider's groups to supervisors' tenants."""
    command = click.option(
        "--tenant-group",
        "tenant_groups",
        multiple=True,
        metavar="GROUP=COMPANY/ENVIRONMENT[:ROLE]",
        help="(--console) Members of GROUP have ROLE (analyst, supervisor: the default, or "
        "administrator) in that tenant; repeat for more.",
    )(command)
    command = click.option(
        "--all-tenants-group",
        "all_tenants_groups",
        multiple=True,
        metavar="GROUP",
        help="(--console) Members of GROUP administer every tenant; repeat for more.",
    )(command)
    return click.option(
        "--groups-claim",
        default="groups",
        show_default=True,
        help="(--console) The claim or attribute that carries the person's groups or roles.",
    )(command)


def console_settings(
    tenant: Tenant | None,
    groups_claim: str,
    all_tenants_groups: tuple[str, ...],
    tenant_groups: tuple[str, ...],
) -> dict:
    """The console's group mapping from the options (nothing for a tenant's provider, which
    signs agents in by their login alone)."""
    if tenant is not None:
        if all_tenants_groups or tenant_groups:
            raise click.UsageError("group options are for --console only")
        return {}
    mapping: dict[str, list[str]] = {}
    for pair in tenant_groups:
        group, equals, entry = pair.partition("=")
        label, role = tenant_role(entry)
        company, slash, environment = label.partition("/")
        if not (equals and group and slash and company and environment) or ":" in label:
            raise click.UsageError(
                f"--tenant-group '{pair}' is not GROUP=COMPANY/ENVIRONMENT[:ROLE] "
                f"(ROLE: {', '.join(Role)})"
            )
        tenant_of(company, environment)  # a tenant that exists
        mapping.setdefault(group, []).append(label if role is Role.SUPERVISOR else entry)
    if not all_tenants_groups and not mapping:
        raise click.UsageError(
            "--console needs --all-tenants-group or --tenant-group: else nobody may sign in"
        )
    return {
        "groups_claim": groups_claim,
        "all_tenants_groups": list(all_tenants_groups),
        "tenant_groups": mapping,
    }


@sso_group.command("saml")
@realm_arguments
@click.option(
    "--metadata",
    "metadata",
    required=True,
    metavar="FILE_OR_URL",
    help="The identity provider's SAML metadata: a file, or an http(s) URL to read it from.",
)
@click.option(
    "--login-attribute",
    default=None,
    metavar="NAME",
    help="The attribute whose value is the login (default: the assertion's NameID).",
)
@click.option(
    "--allow-sha1",
    is_flag=True,
    help="Accept answers signed with SHA-1 (refused by default: SHA-1 signatures can be forged).",
)
@console_options
@transactional
def saml_provider(
    company: str | None,
    environment: str | None,
    console: bool,
    metadata: str,
    login_attribute: str | None,
    allow_sha1: bool,
    groups_claim: str,
    all_tenants_groups: tuple[str, ...],
    tenant_groups: tuple[str, ...],
) -> str:
    """Sign in through a SAML 2.0 identity provider; prints the service provider's
    metadata URL to give the provider."""
    tenant = realm_tenant(company, environment, console)
    mapping = console_settings(tenant, groups_claim, all_tenants_groups, tenant_groups)
    if metadata.lower().startswith(("https://", "http://")):
        xml, url = None, metadata
    else:
        try:
            with open(metadata, encoding="utf-8") as document:
                xml, url = document.read(), None
        except (OSError, UnicodeDecodeError) as failed:
            raise click.BadParameter(str(failed), param_hint="--metadata") from None
    settings = saml.settings_from(xml, url, login_attribute, mapping, allow_sha1=allow_sha1)
    providers.set_provider(tenant, ProviderKind.SAML, settings, actor=Actor.operator())
    base = current_app.config["PUBLIC_BASE_URL"].rstrip("/")
    where = (
        "/sso/saml/metadata"
        if tenant is None
        else f"/desk/sso/{tenant.company_code}/{tenant.environment}/saml/metadata"
    )
    warning = "\nWarning: answers signed with SHA-1 are accepted." if allow_sha1 else ""
    return (
        f"SAML identity provider {settings['idp_entity_id']} set.{warning}\n"
        f"Give it the service provider's metadata: {base}{where}"
    )


@sso_group.command("oidc")
@realm_arguments
@click.option("--issuer", required=True, help="The provider's issuer URL (exactly as it says).")
@click.option("--client-id", required=True, help="This service's client id at the provider.")
@click.option(
    "--client-secret-file",
    required=True,
    type=click.File("r"),
    help="A file holding the client secret (never on the command line); '-' reads stdin.",
)
@click.option(
    "--login-claim",
    type=click.Choice(oidc.LOGIN_CLAIMS),
    default="email",
    show_default=True,
    help="The claim whose value is the agent's loginUserId (or the supervisor's e-mail).",
)
@console_options
@transactional
def oidc_command(
    company: str | None,
    environment: str | None,
    console: bool,
    issuer: str,
    client_id: str,
    client_secret_file,
    login_claim: str,
    groups_claim: str,
    all_tenants_groups: tuple[str, ...],
    tenant_groups: tuple[str, ...],
) -> str:
    """Sign in through an OpenID Connect provider (its discovery document is checked now)."""
    tenant = realm_tenant(company, environment, console)
    mapping = console_settings(tenant, groups_claim, all_tenants_groups, tenant_groups)
    secret = client_secret_file.read().strip()
    if not secret:
        raise click.UsageError("the client secret file is empty")
    settings = oidc.settings_from(issuer, client_id, login_claim, console=mapping or None)
    providers.set_provider(tenant, "oidc", settings, secret=secret, actor=Actor.operator())
    return json.dumps(providers.describe(providers.provider_for(tenant)), indent=2, sort_keys=True)


@sso_group.command("ldap")
@click.argument("company")
@click.argument("environment")
@click.option(
    "--url", required=True, help="ldaps://host[:636], or ldap://host[:389] with --start-tls."
)
@click.option(
    "--bind-dn-template",
    required=True,
    help="The DN agents bind as, with {login}: 'uid={login},ou=people,dc=example,dc=org'.",
)
@click.option("--start-tls", is_flag=True, help="Upgrade an ldap:// connection to TLS.")
@click.option(
    "--ca-file",
    type=click.Path(dir_okay=False),
    help="CA certificates (PEM) the directory's certificate must chain to, on every web host.",
)
@click.option(
    "--timeout",
    "timeout_seconds",
    type=int,
    default=ldap.DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds to wait for the directory at each step (1 to 10).",
)
@click.option(
    "--insecure-plain",
    is_flag=True,
    help="Allow ldap:// without TLS: passwords cross the network in the clear (labs only).",
)
@transactional
def ldap_command(
    company: str,
    environment: str,
    url: str,
    bind_dn_template: str,
    start_tls: bool,
    ca_file: str | None,
    timeout_seconds: int,
    insecure_plain: bool,
) -> str:
    """Sign the tenant's agents in with their directory's user name and password (agents
    only: the console's provider is SAML or OpenID Connect)."""
    tenant = tenant_of(company, environment)
    settings = ldap.settings_from(
        url, bind_dn_template, start_tls, timeout_seconds, ca_file, insecure_plain=insecure_plain
    )
    providers.set_provider(tenant, "ldap", settings, actor=Actor.operator())
    return json.dumps(
        {
            "kind": "ldap",
            **settings,
            "signInUrl": f"/desk/login/{tenant.company_code}/{tenant.environment}",
        },
        indent=2,
        sort_keys=True,
    )
