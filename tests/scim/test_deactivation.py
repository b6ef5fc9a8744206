"""An identity provider deactivating a user (`active: false`): the agent can no longer
sign in (its desk password, its identity provider, an invitation, the Desk API), its desk
sessions end at once, it goes OFFLINE with the task it held back in the queue, and its
callbacks are the queue's; each with its audit record and event. Reactivated, it signs in
again and works its queues."""

from __future__ import annotations

import pytest
from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.models import AgentSession, Task, User
from app.services.delivery import callbacks
from app.services.errors import InvalidInput
from app.services.people import agents, sessions
from app.services.sso.identity import Identity, SignInRefused, agent_for
from tests.calls.calls_support import add_phones, events
from tests.conftest import SETUP
from tests.delivery.delivery_support import (
    available,
    make_agent,
    offer,
    settings,  # noqa: F401 - short desk timings
)
from tests.delivery.test_callback_lists import NOW, _callback

PASSWORD = "correct horse battery staple 42"
IDENTITY = Identity(kind="saml", issuer="https://idp.example", subject="ann", login="ann")


def _active(scim, user: User, active) -> dict:
    answer = scim.patch(f"/Users/{user.resource_id}",
                        [{"op": "Replace", "path": "active", "value": active}])  # fmt: skip
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return answer.json


def test_a_deactivated_agent_stops_at_once_and_a_reactivated_one_works_again(
    scim, acme, renewals, winback
):
    ann = make_agent(acme, "ann", ("Sales", "Support"))
    agents.set_desk_password(ann, PASSWORD, actor=SETUP)
    kept = _callback(renewals, ann)  # a callback kept for ann
    held = add_phones(winback, "w1")
    available(ann, NOW)
    assert offer(ann, NOW).task.id == held.id  # a task in ann's hands
    token = sessions.start_session(
        ann, sessions.SessionLimits.of(current_app.config), sessions.AGENTS
    )
    db.session.commit()

    assert _active(scim, ann, "False")["active"] is False
    db.session.expire_all()
    ann = db.session.get(User, ann.id)
    assert (ann.active, ann.desk_state) == (False, "OFFLINE")
    assert (
        db.session.scalars(select(AgentSession).where(AgentSession.user_id == ann.id)).all() == []
    )
    limits = sessions.SessionLimits.of(current_app.config)
    assert sessions.live_session(token, limits, sessions.AGENTS) is None
    assert db.session.get(Task, held.id).reserved_by_id is None
    assert db.session.get(Task, kept.id).preferred_agent is None
    cleared = events("task.preferred_agent_cleared")
    assert [e.get("reason") for e in cleared][-1] == "agent deactivated"
    assert [e["after"] for e in events("user.deactivated")] == [{"active": False}]
    # No door lets it in.
    assert agents.authenticate(acme, "ann", PASSWORD) is None
    with pytest.raises(SignInRefused, match="deactivated"):
        agent_for(acme, IDENTITY)

    assert _active(scim, ann, True)["active"] is True
    db.session.expire_all()
    assert agents.authenticate(acme, "ann", PASSWORD).id == ann.id
    assert agent_for(acme, IDENTITY).id == ann.id
    assert [e["after"] for e in events("user.reactivated")] == [{"active": True}]


def test_a_deactivated_agent_is_refused_by_the_desk_api_and_a_hand_over(
    scim, acme, renewals, desk_api
):
    ann = make_agent(acme, "ann")
    kept = _callback(renewals, make_agent(acme, "cy"))
    _active(scim, ann, False)
    answer = desk_api("nextTask", agent="ann")
    assert answer["result"] != "SUCCESS" and "deactivated" in answer["message"]
    with pytest.raises(InvalidInput, match="deactivated"):
        callbacks.hand_over(acme, kept.record_id, "ann", actor=SETUP, now=NOW)
