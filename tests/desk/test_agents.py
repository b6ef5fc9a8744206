"""Agents' skill queues (service, Users page, template defaults) and desk invitations."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, User
from app.models.types import utcnow
from app.services.errors import InvalidInput
from app.services.people import agents
from app.services.people.users import NewUser, add_user
from app.services.tenants import setup as tenants
from tests.admin.conftest import page, soup, submit
from tests.conftest import SETUP
from tests.desk.desk_support import AGENT, make_agent

NEW_PASSWORD = "purple lantern orchestra 42"


def names(user: User) -> list[str]:
    db.session.refresh(user)
    return [q.name for q in user.skill_queues]


# The queues -----------------------------------------------------------------------------


def test_set_agent_queues_gives_exactly_the_set(acme):
    agent = make_agent(acme, queues=("Sales", "Support"))
    assert names(agent) == ["Sales", "Support"]
    agents.set_agent_queues(agent, ["Support"], actor=SETUP)
    db.session.commit()
    assert names(agent) == ["Support"]


def test_an_unknown_queue_is_refused_by_name_and_nothing_changes(acme):
    agent = make_agent(acme, queues=("Sales",))
    with pytest.raises(InvalidInput, match="'Nope'"):
        agents.set_agent_queues(agent, ["Support", "Nope"], actor=SETUP)
    db.session.rollback()
    assert names(agent) == ["Sales"]


def test_a_queue_change_leaves_an_audit_record(acme):
    agent = make_agent(acme, queues=("Sales",))
    agents.set_agent_queues(agent, ["Support"], actor=SETUP)
    db.session.commit()
    trail = db.session.scalars(
        select(AuditRecord)
        .filter_by(action="agent.queues_set", entity_id=AGENT)
        .order_by(AuditRecord.id)
    ).all()
    assert trail[-1].before == {"skillQueues": ["Sales"]}
    assert trail[-1].after == {"skillQueues": ["Support"]}
    assert trail[-1].actor_kind == SETUP.kind.value


def test_users_made_from_a_template_get_its_queues(acme):
    tenants.create_user_template(acme, "Closers", actor=SETUP, skill_queues=["Support"])
    user = add_user(acme, NewUser("bob", "Bob", "B", "Closers"), actor=SETUP)
    assert names(user) == ["Support"]


def test_a_template_with_an_unknown_queue_is_refused(acme):
    with pytest.raises(InvalidInput, match="'Nope'"):
        tenants.create_user_template(acme, "Closers", actor=SETUP, skill_queues=["Nope"])


def test_the_users_page_edits_an_agents_queues(signed_in, acme):
    agent = make_agent(acme, queues=("Sales",))
    url = f"/tenants/{acme.id}/users/{agent.id}/desk"
    response = submit(signed_in, url, "/desk/queues", {"desk-queues": ["Support"]})
    assert response.status_code == 302
    assert names(agent) == ["Support"]
    users_page = page(signed_in, f"/tenants/{acme.id}/users")
    assert "Support" in users_page.find("table", class_="users").get_text()


def test_the_users_page_can_take_every_queue_away(signed_in, acme):
    agent = make_agent(acme, queues=("Sales", "Support"))
    url = f"/tenants/{acme.id}/users/{agent.id}/desk"
    response = submit(signed_in, url, "/desk/queues", {"desk-queues": None})
    assert response.status_code == 302
    assert names(agent) == []


def test_the_template_form_sets_default_queues(signed_in, acme):
    url = f"/tenants/{acme.id}/users"
    response = submit(
        signed_in, url, "/templates", {"template-name": "Closers", "template-skill_queues": "Sales"}
    )
    assert response.status_code == 302
    template = tenants.find_user_template(acme, "Closers")
    assert [q.name for q in template.default_skill_queues] == ["Sales"]


@pytest.mark.parametrize("settings", [{"WTF_CSRF_ENABLED": True}], indirect=True)
def test_a_queue_change_without_its_csrf_token_is_refused(signed_in, acme):
    agent = make_agent(acme, queues=("Sales",))
    response = signed_in.post(
        f"/tenants/{acme.id}/users/{agent.id}/desk/queues", data={"desk-queues": ["Support"]}
    )
    assert response.status_code in (400, 422)
    assert names(agent) == ["Sales"]


# Invitations ----------------------------------------------------------------------------


def test_an_invitation_lasts_72_hours(acme):
    agent = make_agent(acme, password=None)
    start = utcnow()
    token = agents.invite(agent, actor=SETUP, now=start)
    db.session.commit()
    assert agents.invited(token, start + timedelta(hours=72) - timedelta(seconds=1)) == agent
    assert agents.invited(token, start + timedelta(hours=72)) is None
    with pytest.raises(InvalidInput, match="not valid"):
        agents.accept_invite(token, NEW_PASSWORD, now=start + timedelta(hours=72, minutes=1))


def test_an_invitation_is_kept_hashed_and_never_in_the_trail(acme):
    agent = make_agent(acme, password=None)
    token = agents.invite(agent, actor=SETUP)
    db.session.commit()
    assert agent.invite_hash == hashlib.sha256(token.encode()).hexdigest()
    trail = db.session.scalars(select(AuditRecord)).all()
    assert all(token not in str((r.before, r.after)) for r in trail)


def test_an_invitation_works_once(acme):
    agent = make_agent(acme, password=None)
    token = agents.invite(agent, actor=SETUP)
    agents.accept_invite(token, NEW_PASSWORD)
    db.session.commit()
    assert agents.authenticate(acme, AGENT, NEW_PASSWORD) == agent
    with pytest.raises(InvalidInput, match="not valid"):
        agents.accept_invite(token, "another fine password 77")


def test_a_new_invitation_voids_the_previous_one(acme):
    agent = make_agent(acme, password=None)
    first = agents.invite(agent, actor=SETUP)
    second = agents.invite(agent, actor=SETUP)
    db.session.commit()
    assert agents.invited(first) is None
    assert agents.invited(second) == agent


@pytest.mark.parametrize("weak", ["short pw", "password1234", "qwertyuiopasdf"])
def test_the_invited_password_follows_the_supervisors_rules(acme, weak):
    agent = make_agent(acme, password=None)
    token = agents.invite(agent, actor=SETUP)
    with pytest.raises(InvalidInput, match="password"):
        agents.accept_invite(token, weak)


def test_the_invite_page_sets_the_password_and_signs_in(client, acme):
    agent = make_agent(acme, password=None)
    token = agents.invite(agent, actor=SETUP)
    db.session.commit()
    shown = client.get(f"/desk/invite/{token}")
    assert shown.status_code == 200
    assert shown.headers["Referrer-Policy"] == "no-referrer"
    assert shown.headers["Cache-Control"] == "no-store"
    response = client.post(
        f"/desk/invite/{token}", data={"new": NEW_PASSWORD, "again": NEW_PASSWORD}
    )
    assert response.status_code == 302 and response.location.endswith("/desk")
    assert client.get("/desk").status_code == 200
    assert client.get(f"/desk/invite/{token}").status_code == 404  # spent


def test_the_invite_page_refuses_a_weak_password_and_keeps_the_invitation(client, acme):
    agent = make_agent(acme, password=None)
    token = agents.invite(agent, actor=SETUP)
    db.session.commit()
    response = client.post(
        f"/desk/invite/{token}", data={"new": "password1234", "again": "password1234"}
    )
    assert response.status_code == 422
    assert "common or breached" in soup(response).get_text()
    assert agents.invited(token) is not None


@pytest.mark.parametrize("token", ["nope", "x" * 43, "x" * 500])
def test_an_unknown_invitation_is_a_404(client, acme, token):
    assert client.get(f"/desk/invite/{token}").status_code == 404


def test_a_supervisor_invites_from_the_users_page_and_sees_the_link_once(signed_in, acme):
    agent = make_agent(acme, password=None)
    url = f"/tenants/{acme.id}/users/{agent.id}/desk"
    answer = submit(signed_in, url, "/desk/invite")
    assert (answer.status_code, answer.location) == (303, url + "/invite")
    response = signed_in.get(answer.location)
    assert response.headers["Cache-Control"] == "no-store"
    link = soup(response).find("code", class_="invite-link").get_text()
    assert link.startswith("http://localhost:9443/desk/invite/")
    token = link.rsplit("/", 1)[1]
    assert agents.invited(token) == agent
    assert link not in page(signed_in, url).get_text()  # shown on that page only
    reloaded = page(signed_in, answer.location)  # ... and only once
    assert link not in reloaded.get_text() and reloaded.select("[data-link-gone]")
    assert agents.invited(token) == agent  # a reload made no new invitation


def test_an_error_on_the_invite_page_logs_no_token(app, client, acme, monkeypatch, caplog):
    app.config["PROPAGATE_EXCEPTIONS"] = False
    token = agents.invite(make_agent(acme, password=None), actor=SETUP)
    db.session.commit()

    def broken(_token):
        raise RuntimeError("boom")

    monkeypatch.setattr(agents, "invited", broken)
    assert client.get(f"/desk/invite/{token}").status_code == 500
    assert "Unhandled error on GET /desk/invite/[redacted]" in caplog.text
    assert token not in caplog.text
