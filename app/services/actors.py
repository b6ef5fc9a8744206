"""Who asks for a change: every service function that changes something takes an Actor.

The actor is what the audit trail records as "who": an API key of a tenant, a supervisor,
an agent, an intake load, an operator at the command line, the tenant's identity provider
(SCIM, by its token), or the system itself (a hold that expired, a reservation that lapsed).
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from enum import StrEnum


class ActorKind(StrEnum):
    API_KEY = "api_key"
    SUPERVISOR = "supervisor"
    AGENT = "agent"
    INTAKE = "intake"
    OPERATOR = "operator"
    SYSTEM = "system"
    IDENTITY_PROVIDER = "provisioning"  # at most 16 characters, as the trail keeps it


@dataclass(frozen=True)
class Actor:
    """Who acts: a kind and an id that names them within it (never a secret)."""

    kind: ActorKind
    id: str
    # What acted for them, when it was not they themselves: "bulk job 7".
    via: str | None = None

    def describe(self) -> str:
        return f"{self.kind.value}:{self.id}" + (f" via {self.via}" if self.via else "")

    @classmethod
    def api_key(cls, key_id: int) -> Actor:
        """A call of a JSON API, authenticated by the tenant's key with this id."""
        return cls(ActorKind.API_KEY, str(key_id))

    @classmethod
    def identity_provider(cls, token_id: int) -> Actor:
        """A SCIM request of the tenant's identity provider, by its token's id."""
        return cls(ActorKind.IDENTITY_PROVIDER, str(token_id))

    @classmethod
    def supervisor(cls, email: str) -> Actor:
        return cls(ActorKind.SUPERVISOR, email)

    @classmethod
    def agent(cls, login_user_id: str) -> Actor:
        return cls(ActorKind.AGENT, login_user_id)

    @classmethod
    def intake(cls, load_id: str) -> Actor:
        """An intake file, by the id of its load."""
        return cls(ActorKind.INTAKE, load_id)

    @classmethod
    def operator(cls) -> Actor:
        """A command run at the shell, by the account that ran it."""
        try:
            name = getpass.getuser()
        except (KeyError, OSError):  # no name for this uid (containers)
            name = "unknown"
        return cls(ActorKind.OPERATOR, name)

    @classmethod
    def system(cls, reason: str) -> Actor:
        """The service itself, e.g. `preferred-agent-hold` or `reservation-timeout`."""
        return cls(ActorKind.SYSTEM, reason)
