"""Helpers for the desk's tests: agents, invitations, a signed-in desk."""

from __future__ import annotations

from datetime import timedelta

from app.desk.auth import AGENT_TOKEN_KEY
from app.extensions import db
from app.models import Tenant, User
from app.services.people import agents, sessions
from app.services.people.users import NewUser, add_user
from app.services.tenants import setup as tenants
from tests.admin.conftest import PASSWORD, csrf_token, soup
from tests.conftest import SETUP

AGENT = "ann@acme.example"


def make_agent(
    tenant: Tenant,
    login: str = AGENT,
    queues: tuple[str, ...] = ("Sales",),
    password: str | None = PASSWORD,
    template: str = "Agent",
) -> User:
    """A committed user of the tenant working `queues`, with a desk password when given."""
    if tenants.find_user_template(tenant, template) is None:
        tenants.create_user_template(tenant, template, actor=SETUP)
    user = add_user(tenant, NewUser(login, "Ann", "Agent", template), actor=SETUP)
    agents.set_agent_queues(user, queues, actor=SETUP)
    if password:
        token = agents.invite(user, actor=SETUP)
        agents.accept_invite(token, password)
    db.session.commit()
    return user


def desk_session(client, agent: User):
    """Sign the client in to the desk as the sign-in form does, without the form's cost."""
    limits = sessions.SessionLimits(timedelta(hours=1), timedelta(hours=12))
    token = sessions.start_session(agent, limits, sessions.AGENTS)
    db.session.commit()
    with client.session_transaction() as session:
        session[AGENT_TOKEN_KEY] = token
    return client


def desk_sign_in(
    client,
    login: str = AGENT,
    password: str = PASSWORD,
    company: str = "Acme",
    environment: str = "prod",
    next_: str | None = None,
):
    """Sign in through the desk's form (with its CSRF token when the page has one)."""
    data = {
        "company": company,
        "environment": environment,
        "login_user_id": login,
        "password": password,
    }
    if token := csrf_token(soup(client.get("/desk/login?other=1"))):
        data["csrf_token"] = token
    return client.post("/desk/login", query_string={"next": next_} if next_ else None, data=data)
