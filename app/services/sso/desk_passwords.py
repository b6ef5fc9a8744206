"""Which passwords a tenant's desk sign-in form takes, and checking one, in one place for the
desk's form and the words of the supervisors' Sign-in page.

- No identity provider: the agent's own desk password (which cannot be switched off then).
- SAML 2.0 or OpenID Connect: the provider's button; while the agents' own desk passwords are
  on, the desk password form beside it.
- A directory (LDAP): the directory's password first; while the agents' own desk passwords
  are on, a password the directory does not take (or a directory that does not answer) is
  then tried as the agent's own desk password. Off: the directory's alone.

A refusal is the same whichever part was wrong; a directory that is down, or that vouches for
someone who is no agent here, is said so only when no desk password opened the desk either.
"""

from __future__ import annotations

from enum import StrEnum

from app.models import IdentityProvider, ProviderKind, Tenant, User
from app.services.people import agents
from app.services.sso import ldap as directory
from app.services.sso.identity import SignInRefused, agent_for


class Password(StrEnum):
    """A password the desk's form takes, in the order it is tried."""

    DIRECTORY = "directory"
    DESK = "desk"


def passwords_taken(tenant: Tenant, provider: IdentityProvider | None) -> tuple[Password, ...]:
    """The passwords the tenant's sign-in form takes, in the order they are tried."""
    taken = []
    if provider is not None and provider.kind == ProviderKind.LDAP:
        taken.append(Password.DIRECTORY)
    if tenant.local_agent_passwords:
        taken.append(Password.DESK)
    return tuple(taken)


def check_password(
    tenant: Tenant, provider: IdentityProvider | None, login: str, password: str
) -> User | None:
    """The agent these credentials sign in, trying each password the tenant takes in turn;
    None when none opens the desk. DirectoryUnavailable or SignInRefused when the directory
    did not answer, or vouched for someone who is no agent here, and no desk password
    matched."""
    taken = passwords_taken(tenant, provider)
    trouble: Exception | None = None
    if Password.DIRECTORY in taken:
        try:
            identity = directory.authenticate(provider, login, password)
            if identity is not None:
                return agent_for(tenant, identity)
        except (directory.DirectoryUnavailable, SignInRefused) as failed:
            trouble = failed
    if Password.DESK in taken:
        agent = agents.authenticate(tenant, login, password)
        if agent is not None:
            return agent
    if trouble is not None:
        raise trouble
    return None
