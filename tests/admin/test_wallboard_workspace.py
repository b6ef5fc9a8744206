"""The wallboard's and the Agents page's rows of agents: AWAY's reason with its time in
state, and an agent in wrap-up with its time, marked past the queue's limit."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.extensions import db
from app.models import SkillQueue
from app.models.types import utcnow
from app.services.actors import Actor
from app.services.delivery import agent_state, away_reasons, progress, wrap_up
from app.services.dialer import call_events, placing
from tests.admin.conftest import page
from tests.conftest import SETUP
from tests.delivery.delivery_support import add, available, make_agent, offer

S = timedelta(seconds=1)


def rows(html) -> dict[str, str]:
    return {
        tr["data-agent"]: tr.find("td", attrs={"data-label": "State"}).get_text(" ", strip=True)
        for tr in html.select("tr[data-agent]")
    }


def test_the_board_shows_aways_reason_and_wrap_up_past_the_limit(acme, renewals, signed_in):
    away_reasons.add_reason(acme, "Lunch", actor=SETUP)
    sales = db.session.scalar(select(SkillQueue).filter_by(tenant_id=acme.id, name="Sales"))
    wrap_up.set_wrap_up_limit(sales, 60, actor=SETUP)
    now = utcnow() - timedelta(minutes=5)
    bob = make_agent(acme, "bob")
    agent_state.set_agent_state(bob, "AWAY", reason="Lunch", actor=Actor.agent("bob"), now=now)
    add(renewals, "c1")
    ann = make_agent(acme, "ann")
    available(ann, now)
    task = offer(ann, now).task
    placed = placing.start_call(ann, task.record_id, actor=Actor.agent("ann"), now=now + S)
    call_events.call_event(
        ann,
        task.record_id,
        placed.call_id,
        "ENDED",
        "BUSY",
        actor=Actor.agent("ann"),
        now=now + 2 * S,
    )
    agent_state.heartbeat(ann)
    agent_state.heartbeat(bob)
    db.session.commit()

    board = {row.agent.login_user_id: row for row in progress.agent_board(acme)}
    assert (board["bob"].state, board["bob"].reason, board["bob"].wrap_up) == (
        "AWAY",
        "Lunch",
        None,
    )
    assert board["ann"].reason is None and board["ann"].wrap_up.over_limit

    shown = rows(page(signed_in, f"/tenants/{acme.id}/wallboard"))
    assert shown["bob"] == "AWAY Lunch"
    assert shown["ann"] == "AVAILABLE Wrap-up 4 min past the limit"
    tr = page(signed_in, f"/tenants/{acme.id}/wallboard").select_one("tr[data-agent='bob']")
    assert tr.find("td", attrs={"data-label": "Time in state"}).get_text() == "5 min"
    agents_page = page(signed_in, f"/tenants/{acme.id}/agents").get_text(" ", strip=True)
    assert "AWAY Lunch" in agents_page and "Wrap-up 4 min past the limit" in agents_page
