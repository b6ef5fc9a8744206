"""Who an identity provider says signed in, and who that is here."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from app.extensions import db
from app.models import Tenant, User
from app.services.errors import ServiceError


class SignInRefused(ServiceError):
    """The identity provider's answer does not sign anyone in here; the message says why in
    words for the person at the browser (never which accounts exist elsewhere)."""


@dataclass(frozen=True)
class Identity:
    """The person an identity provider vouched for.

    `login` is what maps to an agent's loginUserId (or a supervisor's e-mail address);
    `groups` the group or role claim, for the console; `session_index` and `logout_url`
    what a later sign-out at the provider needs, when it offers one."""

    kind: str
    issuer: str
    subject: str
    login: str
    groups: tuple[str, ...] = ()
    session_index: str | None = None
    logout_url: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


NOT_PROVISIONED = (
    "Your identity provider signed you in, but {company}/{environment} has no agent "
    "'{login}'. Ask your supervisor to add you."
)


def agent_for(tenant: Tenant, identity: Identity) -> User:
    """The tenant's provisioned user whose loginUserId is the identity's login: the exact
    spelling first, else the one user equal to it without regard to case (e-mail addresses
    come back from providers in either case); nothing is created for anyone else."""
    login = identity.login.strip()
    agent = db.session.scalar(
        select(User).where(User.tenant_id == tenant.id, User.login_user_id == login)
    )
    if agent is None and login:
        alike = db.session.scalars(
            select(User)
            .where(User.tenant_id == tenant.id, func.lower(User.login_user_id) == login.lower())
            .limit(2)
        ).all()
        agent = alike[0] if len(alike) == 1 else None
    if agent is None:
        raise SignInRefused(
            NOT_PROVISIONED.format(
                company=tenant.company_code, environment=tenant.environment, login=login
            )
        )
    return agent
