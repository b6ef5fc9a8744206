"""Who an identity provider says signed in, and who that is here."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from app.extensions import db
from app.models import GivenBy, IdentityProvider, Role, Supervisor, Tenant, User
from app.services.actors import Actor, ActorKind
from app.services.audit.trail import Change, record
from app.services.errors import InvalidInput, ServiceError
from app.services.fields import SSO_IDENTITY
from app.services.people import supervisors
from app.services.people.supervisors import EMAIL

# How this module's refusals name their fields.
SUBJECT = SSO_IDENTITY.said_as("subject")


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
    # Whether the provider vouches that `login` is the person's own e-mail address
    # (OpenID Connect's `email_verified: true`); only then may it link an account by it.
    email_verified: bool = False

    @property
    def key(self) -> str:
        """How a linked supervisor is known: the provider and its subject."""
        return f"{self.issuer}|{self.subject}"[:512]


DEACTIVATED = (
    "Your identity provider signed you in, but your account in {company}/{environment} is "
    "deactivated. Ask your supervisor."
)
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
    if not agent.active:
        raise SignInRefused(
            DEACTIVATED.format(company=tenant.company_code, environment=tenant.environment)
        )
    return agent


NOT_A_SUPERVISOR = (
    "Your identity provider signed you in, but none of your groups makes you a supervisor "
    "here. Ask your administrator for access."
)


@dataclass(frozen=True)
class Grant:
    """What the console provider's groups give a person: every tenant (as an
    administrator), or these tenants, each with its role."""

    all_tenants: bool
    roles: tuple[tuple[Tenant, Role], ...]

    @property
    def tenants(self) -> tuple[Tenant, ...]:
        return tuple(tenant for tenant, _role in self.roles)


def tenant_role(entry: str) -> tuple[str, Role]:
    """A `tenant_groups` entry's tenant label and role: ``Acme/prod`` (a supervisor's) or
    ``Acme/prod:analyst``."""
    label, colon, role = entry.rpartition(":")
    if colon and role in set(Role):
        return label, Role(role)
    return entry, Role.SUPERVISOR


def grant_of(provider: IdentityProvider, groups: tuple[str, ...]) -> Grant:
    """Every tenant when a group is among `all_tenants_groups`; else the tenants that
    `tenant_groups` gives the groups, each with the highest role a group gives there
    (tenants named there that no longer exist give none)."""
    settings = provider.settings
    held = set(groups)
    if held & set(settings.get("all_tenants_groups", [])):
        return Grant(True, ())
    best: dict[str, Role] = {}
    for group, named in settings.get("tenant_groups", {}).items():
        if group not in held:
            continue
        for label, role in map(tenant_role, named):
            if label not in best or role.holds(best[label]):
                best[label] = role
    found = []
    for label in sorted(best):
        company, _, environment = label.partition("/")
        tenant = db.session.scalar(
            select(Tenant).filter_by(company_code=company, environment=environment)
        )
        if tenant is not None:
            found.append((tenant, best[label]))
    return Grant(False, tuple(found))


NOT_LINKED = (
    "Your identity provider signed you in, but this console account cannot be linked to it "
    "automatically. Ask an operator to link it, giving them your identity: issuer {issuer}, "
    "subject {subject}."
)


def _by_email(identity: Identity, email: str) -> Supervisor | None:
    """The unlinked account the identity's e-mail address names, when it may be linked to
    it: never one linked to another identity, one with a password (a break-glass account
    included: its tenants are its own), nor by an address the provider has not verified.
    Those are refused; an operator links them (`link_identity`)."""
    found = db.session.scalar(select(Supervisor).filter_by(email=email))
    if found is None:
        return None
    linked_elsewhere = found.sso_subject is not None
    if linked_elsewhere or found.password_hash or found.break_glass or not identity.email_verified:
        raise SignInRefused(NOT_LINKED.format(issuer=identity.issuer, subject=identity.subject))
    return found


def supervisor_for(provider: IdentityProvider, identity: Identity) -> Supervisor:
    """The supervisor the console's provider signed in, made or brought up to date from the
    groups at each sign-in (the provider is the authority: a group taken away there takes
    the tenants away here at the next sign-in). Found by the provider's subject once
    linked; else an account is linked by e-mail address only as `_by_email` allows, or made;
    nobody whose groups grant nothing is signed in, and a break-glass account keeps its own
    tenants. Each link is in the audit trail."""
    grant = grant_of(provider, identity.groups)
    email = identity.login.strip().lower()
    if not grant.all_tenants and not grant.tenants and not _scim_gives(identity, email):
        raise SignInRefused(NOT_A_SUPERVISOR)
    supervisor = db.session.scalar(select(Supervisor).filter_by(sso_subject=identity.key))
    if supervisor is None:
        supervisor = _by_email(identity, email)
    by_provider = Actor(ActorKind.SYSTEM, "identity-provider", via=identity.issuer)
    if supervisor is None:
        if not EMAIL.fullmatch(email) or len(email) > 255:
            raise SignInRefused(
                "Your identity provider gave no e-mail address to sign you in with."
            )
        supervisor = Supervisor(email=email, password_hash="", all_tenants=False, roles=[])
        db.session.add(supervisor)
        before = None
    else:
        before = supervisors.access(supervisor)
    if supervisor.sso_subject != identity.key:
        supervisor.sso_subject = identity.key
        _record_link(by_provider, supervisor, identity.key)
    if not supervisor.break_glass:
        if grant.all_tenants:
            supervisor.all_tenants, supervisor.roles = True, []
        else:
            supervisors.set_roles(supervisor, dict(grant.roles), GivenBy.CONSOLE_PROVIDER)
    after = supervisors.access(supervisor)
    if after != before:
        action = "supervisor.added" if before is None else "supervisor.access_changed"
        record(
            by_provider,
            Change(action, "supervisor", supervisor.email, None, before=before, after=after),
        )
    return supervisor


def _scim_gives(identity: Identity, email: str) -> bool:
    """Whether a tenant's SCIM role group gives the person's account a role (then the
    console's groups need give none)."""
    account = db.session.scalar(
        select(Supervisor).where(
            (Supervisor.sso_subject == identity.key)
            | ((Supervisor.email == email) & Supervisor.sso_subject.is_(None))
        )
    )
    return account is not None and any(g.given_by == GivenBy.SCIM for g in account.roles)


def link_identity(supervisor: Supervisor, issuer: str, subject: str, *, actor: Actor) -> None:
    """Link the account to a provider's identity (an operator's decision): that identity
    then signs in to it, and the console provider's groups decide its tenants from then on
    (a break-glass account keeps its own). Refused when another account has it."""
    key = f"{issuer.strip()}|{subject.strip()}"[:512]
    if not issuer.strip() or not subject.strip():
        raise InvalidInput("give the provider's issuer and the person's subject", field=SUBJECT)
    holder = db.session.scalar(select(Supervisor).filter_by(sso_subject=key))
    if holder is not None and holder.id != supervisor.id:
        raise InvalidInput(f"that identity is linked to {holder.email} already", field=SUBJECT)
    supervisor.sso_subject = key
    _record_link(actor, supervisor, key)


def unlink_identity(supervisor: Supervisor, *, actor: Actor) -> None:
    """Undo the link: the provider's identity no longer signs in to the account."""
    supervisor.sso_subject = None
    _record_link(actor, supervisor, None)


def _record_link(actor: Actor, supervisor: Supervisor, key: str | None) -> None:
    record(
        actor,
        Change(
            "supervisor.identity_linked" if key else "supervisor.identity_unlinked",
            "supervisor",
            supervisor.email,
            None,
            after={"email": supervisor.email, "identity": key},
        ),
    )
