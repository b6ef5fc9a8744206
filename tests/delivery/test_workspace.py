"""The agent's workspace rules: away reasons (the tenant's list, AWAY with one), wrap-up
after a call (its start, its end, the queue's limit) and the note kept with an attempt."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AgentStateSpan, Attempt, AuditRecord, SkillQueue
from app.services.actors import Actor
from app.services.delivery import agent_state, away_reasons, closing, progress, wrap_up
from app.services.dialer import call_events, placing
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.fields import AGENT_AWAY_REASON, AWAY_REASON_NAME, TASK_NOTE, WRAP_UP_LIMIT
from tests.calls.calls_support import add_phones, as_agent, deliver
from tests.calls.calls_support import events as told
from tests.conftest import SETUP
from tests.delivery.delivery_support import (  # noqa: F401 - settings: short desk timings
    settings,
    start,
)

S = timedelta(seconds=1)


@pytest.fixture
def reasons(acme):
    for order, name in enumerate(("Break", "Lunch", "Training")):
        away_reasons.add_reason(acme, name, sort_order=order, actor=SETUP)
    db.session.commit()
    return acme


def spans(agent) -> list[tuple[str, str | None]]:
    db.session.expire_all()
    rows = db.session.scalars(
        select(AgentStateSpan)
        .where(AgentStateSpan.agent_id == agent.id)
        .order_by(AgentStateSpan.id)
    )
    return [(span.state, span.reason) for span in rows]


def events(kind: str) -> list[dict]:
    """The events' data without their actor."""
    return [{k: v for k, v in data.items() if k != "actor"} for data in told(kind)]


def audit(action: str) -> list[AuditRecord]:
    db.session.expire_all()
    return list(db.session.scalars(select(AuditRecord).where(AuditRecord.action == action)))


# --- away reasons ---------------------------------------------------------------------------


def test_a_tenant_keeps_its_away_reasons_in_order_each_change_audited_with_its_event(acme):
    away_reasons.add_reason(acme, "Lunch", sort_order=2, actor=SETUP)
    away_reasons.add_reason(acme, "Break", sort_order=1, actor=SETUP)
    db.session.commit()
    assert [r.name for r in away_reasons.list_reasons(acme)] == ["Break", "Lunch"]
    away_reasons.remove_reason(acme, "lunch", actor=SETUP)
    db.session.commit()
    assert [r.name for r in away_reasons.list_reasons(acme)] == ["Break"]
    assert [r.after for r in audit("away_reason.added")] == [
        {"name": "Lunch", "sortOrder": 2},
        {"name": "Break", "sortOrder": 1},
    ]
    assert [r.before for r in audit("away_reason.removed")] == [{"name": "Lunch", "sortOrder": 2}]
    assert events("away_reason.removed") == [{"reason": "Lunch", "sortOrder": 2}]


@pytest.mark.parametrize(
    ("name", "refusal", "field"),
    [
        ("", InvalidInput, AWAY_REASON_NAME),
        ("x" * 41, InvalidInput, AWAY_REASON_NAME),
        ("break", Conflict, AWAY_REASON_NAME),
    ],
)
def test_a_reason_refused_names_its_field_and_adds_nothing(reasons, name, refusal, field):
    with pytest.raises(refusal) as refused:
        away_reasons.add_reason(reasons, name, actor=SETUP)
    assert refused.value.field == field
    db.session.rollback()
    assert len(away_reasons.list_reasons(reasons)) == 3


def test_removing_an_unknown_reason_is_refused(reasons):
    with pytest.raises(NotFound):
        away_reasons.remove_reason(reasons, "Nap", actor=SETUP)


def test_away_with_a_reason_is_kept_on_the_agent_its_span_and_its_event(reasons, ann):
    now = start()
    agent_state.set_agent_state(ann, "AVAILABLE", actor=as_agent(ann), now=now)
    agent_state.set_agent_state(ann, "AWAY", reason="lunch", actor=as_agent(ann), now=now + S)
    db.session.commit()
    assert (ann.desk_state, ann.desk_state_reason) == ("AWAY", "Lunch")
    assert spans(ann) == [("AVAILABLE", None), ("AWAY", "Lunch")]
    assert events("agent.state_changed")[-1] == {
        "agent": "ann",
        "from": "AVAILABLE",
        "to": "AWAY",
        "fromReason": None,
        "reason": "Lunch",
    }


def test_another_reason_while_away_is_a_change_and_leaving_away_clears_it(reasons, ann):
    now = start()
    agent_state.set_agent_state(ann, "AWAY", reason="Break", actor=as_agent(ann), now=now)
    agent_state.set_agent_state(ann, "AWAY", reason="Break", actor=as_agent(ann), now=now + S)
    agent_state.set_agent_state(
        ann, "AWAY", reason="Training", actor=as_agent(ann), now=now + 2 * S
    )
    assert ann.desk_state_since == now + 2 * S
    agent_state.set_agent_state(ann, "AVAILABLE", actor=as_agent(ann), now=now + 3 * S)
    db.session.commit()
    assert spans(ann) == [("AWAY", "Break"), ("AWAY", "Training"), ("AVAILABLE", None)]
    assert ann.desk_state_reason is None


def test_away_without_a_reason_is_plain_away(reasons, ann):
    agent_state.set_agent_state(ann, "AWAY", reason="", actor=as_agent(ann), now=start())
    db.session.commit()
    assert spans(ann) == [("AWAY", None)]


@pytest.mark.parametrize(
    ("state", "reason"), [("AWAY", "Nap"), ("AVAILABLE", "Lunch"), ("OFFLINE", "Break")]
)
def test_an_unknown_reason_or_one_with_another_state_is_refused_and_nothing_stored(
    reasons, ann, state, reason
):
    with pytest.raises(InvalidInput) as refused:
        agent_state.set_agent_state(ann, state, reason=reason, actor=as_agent(ann), now=start())
    assert refused.value.field == AGENT_AWAY_REASON
    db.session.rollback()
    assert (ann.desk_state, ann.desk_state_reason, spans(ann)) == ("OFFLINE", None, [])


# --- wrap-up --------------------------------------------------------------------------------


def ended_call(agent, task, at):
    placed = placing.start_call(agent, task.record_id, actor=as_agent(agent), now=at)
    call_events.call_event(
        agent, task.record_id, placed.call_id, "ENDED", "BUSY", actor=as_agent(agent), now=at + S
    )
    db.session.commit()
    return placed


def test_wrap_up_runs_from_the_calls_end_and_warns_past_the_queues_limit(acme, renewals, ann):
    sales = db.session.scalar(select(SkillQueue).filter_by(tenant_id=acme.id, name="Sales"))
    wrap_up.set_wrap_up_limit(sales, 60, actor=SETUP)
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    attempt = placing.current_call(task)
    assert wrap_up.wrap_up_of(task, attempt, now) is None  # no call yet
    ended_call(ann, task, now + S)
    attempt = placing.current_call(task)
    during = wrap_up.wrap_up_of(task, attempt, now + 32 * S)
    assert (during.since, during.elapsed, during.over_limit) == (now + 2 * S, 30 * S, False)
    assert wrap_up.wrap_up_of(task, attempt, now + 63 * S).over_limit
    board = {row.agent.id: row for row in progress.agent_board(task.campaign.tenant, now + 63 * S)}
    assert board[ann.id].wrap_up.over_limit
    closing.close_task(ann, task.record_id, "COMPLETE", actor=as_agent(ann), now=now + 70 * S)
    db.session.commit()
    assert wrap_up.wrap_up_of(task, attempt, now + 71 * S) is None
    assert attempt.wrap_up_time == 68 * S  # the reports' wrap-up seconds: the same stretch


def test_a_redial_ends_the_wrap_up(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    ended_call(ann, task, now + S)
    placing.start_call(ann, task.record_id, actor=as_agent(ann), now=now + 5 * S)
    db.session.commit()
    assert wrap_up.wrap_up_of(task, placing.current_call(task), now + 6 * S) is None


@pytest.mark.parametrize("seconds", [4, 3601])
def test_a_wrap_up_limit_out_of_bounds_is_refused(acme, seconds):
    sales = db.session.scalar(select(SkillQueue).filter_by(tenant_id=acme.id, name="Sales"))
    with pytest.raises(InvalidInput) as refused:
        wrap_up.set_wrap_up_limit(sales, seconds, actor=SETUP)
    assert refused.value.field == WRAP_UP_LIMIT


def test_setting_the_wrap_up_limit_is_audited(acme):
    sales = db.session.scalar(select(SkillQueue).filter_by(tenant_id=acme.id, name="Sales"))
    wrap_up.set_wrap_up_limit(sales, 120, actor=Actor.supervisor("boss@example.com"))
    wrap_up.set_wrap_up_limit(sales, None, actor=SETUP)
    db.session.commit()
    assert [(r.before, r.after) for r in audit("skill_queue.wrap_up_limit_set")] == [
        (
            {"name": "Sales", "wrapUpLimitSeconds": None},
            {"name": "Sales", "wrapUpLimitSeconds": 120},
        ),
        (
            {"name": "Sales", "wrapUpLimitSeconds": 120},
            {"name": "Sales", "wrapUpLimitSeconds": None},
        ),
    ]
    assert wrap_up.limit_words(90) == "1 min 30 s"


# --- notes ----------------------------------------------------------------------------------


def test_a_note_is_kept_with_the_attempt_and_told_by_task_closed(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    closing.close_task(
        ann, task.record_id, "COMPLETE", note="  Asked for <b>email</b>  ", actor=as_agent(ann),
        now=now + S,
    )  # fmt: skip
    db.session.commit()
    attempt = db.session.scalar(select(Attempt))
    assert attempt.note == "Asked for <b>email</b>"
    assert events("task.closed")[-1]["note"] == "Asked for <b>email</b>"


def test_a_note_past_the_limit_is_refused_naming_the_field_and_nothing_is_closed(renewals, ann):
    add_phones(renewals, "c1")
    task, now = deliver(ann)
    with pytest.raises(InvalidInput) as refused:
        closing.close_task(
            ann, task.record_id, "COMPLETE", note="x" * (closing.NOTE_LIMIT + 1),
            actor=as_agent(ann), now=now + S,
        )  # fmt: skip
    assert refused.value.field == TASK_NOTE
    db.session.rollback()
    attempt = db.session.scalar(select(Attempt))
    assert (attempt.ended_how, attempt.note, events("task.closed")) == (None, None, [])
    closing.close_task(
        ann, task.record_id, "COMPLETE", note="x" * closing.NOTE_LIMIT, actor=as_agent(ann),
        now=now + S,
    )  # fmt: skip
    db.session.commit()
    assert len(db.session.scalar(select(Attempt)).note) == 2000
