"""Who is signing in through an identity provider and where it answers (`Realm`), and what
the session keeps meanwhile: shared by app/web/sso_flow and each protocol's flow, which
sso_flow dispatches to (so they cannot import it back)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.models import Tenant

PENDING_KEY = "_sso_pending"
# Kept in the session after a sign-in through a provider: what signing out there needs.
LOGOUT_KEY = "_sso_logout"


@dataclass(frozen=True)
class Realm:
    """Who is signing in and where the provider answers: a tenant's desk, or (no tenant)
    the console. `url(name)` is the absolute URL of the realm's `metadata`, `acs`, `slo`
    or `oidc_callback` endpoint; `home` where a signed-in person lands."""

    tenant: Tenant | None
    url: Callable[[str], str]
    home: str

    @property
    def key(self) -> str:
        return "console" if self.tenant is None else f"desk:{self.tenant.id}"
