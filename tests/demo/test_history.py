"""The demo's past is one that could have happened: every demo task says what its attempts
say (state, workAttempts, last attempt, work codes), nothing is attempted after it was
completed or removed, no agent works two attempts at once, no number is called while it is
on the do-not-call list, the reports count no more completions than tasks, and the rollups
are the attempts' recount; after `make run`'s seed, seeding again, and at any time of the
week."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from app.demo import tenant as demo
from app.extensions import db
from app.models import (
    AgentStateSpan,
    Attempt,
    Call,
    Campaign,
    ContactMark,
    DncNumber,
    Task,
    WorkCodeChoice,
    WorkedState,
)
from app.services.actors import Actor
from app.services.contact_limits.counts import person_of
from app.services.contact_limits.limits import limit_words, list_limits
from app.services.contact_rules.engine import explain
from app.services.reports.scope import report_scope
from app.services.reports.summary import campaign_summary
from app.services.tenants import setup as tenants
from tests.conftest import PLATFORM
from tests.demo.test_tenant import count, seed_cli
from tests.reports.test_rollups import rollups

FINAL = {"COMPLETE": WorkedState.COMPLETED, "REMOVE": WorkedState.REMOVED}


def attempts_by_task() -> dict[int, list[Attempt]]:
    found: dict[int, list[Attempt]] = defaultdict(list)
    for attempt in db.session.scalars(select(Attempt).order_by(Attempt.delivered_at, Attempt.id)):
        found[attempt.task_id].append(attempt)
    return found


def check_task(task: Task, attempts: list[Attempt], now: datetime) -> None:
    """The task is what its attempts (oldest first) made it."""
    closed = [a for a in attempts if a.ended_how == "CLOSED"]
    said = f"{task.client_id}: {[(a.ended_how, a.outcome) for a in attempts]}"
    assert task.work_attempts == len(closed), said
    for earlier, later in zip(attempts, attempts[1:], strict=False):
        assert earlier.ended_at <= later.delivered_at, said  # one delivery at a time
        assert earlier.outcome not in FINAL, said  # nothing after a final outcome
    if attempts:
        assert task.created_at <= attempts[0].delivered_at, said
        last = attempts[-1]
        assert (task.last_attempt_at, task.last_attempt_agent) == (
            last.delivered_at,
            last.agent_login,
        ), said
        assert last.ended_at < now, said
    else:
        assert (task.last_attempt_at, task.last_attempt_agent) == (None, None), said
    if not closed:
        assert task.worked_state == WorkedState.NOTWORKED, said
        assert task.work_codes == [], said
        return
    final = closed[-1]
    assert [(c.key, c.value) for c in task.work_codes] == [
        (c["key"], c["value"]) for c in final.work_codes
    ], said
    assert task.worked_state == FINAL.get(final.outcome, WorkedState.WORKED), said
    if task.worked_state == WorkedState.WORKED:
        assert task.next_earliest_work_at > final.closed_at, said
    limit = task.campaign.max_attempts
    assert limit is None or len(closed) <= limit, said
    if limit and len(closed) == limit and final.outcome == "COMPLETE" and task.close_reason:
        assert task.close_reason == f"attempt limit reached ({limit} attempts)"


def check_agents(now: datetime) -> None:
    """An agent works one attempt at a time, only while Available."""
    spans: dict[str, list[AgentStateSpan]] = defaultdict(list)
    for span in db.session.scalars(select(AgentStateSpan).order_by(AgentStateSpan.started_at)):
        spans[span.agent_login].append(span)
    worked: dict[str, list[Attempt]] = defaultdict(list)
    for attempt in db.session.scalars(select(Attempt).order_by(Attempt.delivered_at)):
        worked[attempt.agent_login].append(attempt)
    for login, attempts in worked.items():
        for earlier, later in zip(attempts, attempts[1:], strict=False):
            assert earlier.ended_at <= later.delivered_at, login
        for attempt in attempts:
            [span] = [
                s
                for s in spans[login]
                if s.started_at <= attempt.delivered_at < (s.ended_at or now)
            ]
            assert span.state == "AVAILABLE", (login, attempt.delivered_at)
            assert attempt.ended_at <= (span.ended_at or now)


def check_do_not_call(tenant_id: int) -> None:
    """No call to a number from the moment it is listed; a "Do not call" close lists it."""
    listed = {
        entry.number: entry.created_at
        for entry in db.session.scalars(select(DncNumber).filter_by(tenant_id=tenant_id))
    }
    lists = {
        (choice.group.name, choice.name)
        for choice in db.session.scalars(select(WorkCodeChoice))
        if choice.adds_to_dnc
    }
    for attempt in db.session.scalars(select(Attempt).where(Attempt.call_id.is_not(None))):
        since = listed.get(attempt.phone_number)
        assert since is None or attempt.call_started_at < since, attempt.phone_number
        if {(c["key"], c["value"]) for c in attempt.work_codes} & lists:
            assert listed[attempt.phone_number] == attempt.closed_at


def check_reports(tenant, now: datetime) -> None:
    """Over a week and 90 days, no campaign completes or removes more tasks than it has,
    and each completion and removal is one of its tasks'."""
    for campaign in db.session.scalars(select(Campaign).filter_by(tenant_id=tenant.id)):
        tasks = list(db.session.scalars(select(Task).filter_by(campaign_id=campaign.id)))
        states = [task.worked_state for task in tasks]
        for days in (7, 90):
            scope = report_scope(
                tenant, now - timedelta(days=days), now, campaign_name=campaign.name
            )
            summary = campaign_summary(scope)
            assert summary.completed + summary.removed <= summary.tasks == len(tasks)
            assert summary.completed == states.count(WorkedState.COMPLETED), campaign.name
            assert summary.removed == states.count(WorkedState.REMOVED), campaign.name
            assert summary.attempted_tasks <= summary.tasks


def check_limits(tenant, now: datetime) -> None:
    """No call the tenant's contact limits would have refused: in every window of each
    limit, at most its count of calls to one person, as the kept marks count them."""
    limits = list_limits(tenant)
    assert limits, "the demo's contact limits"
    calls: dict[str, list[datetime]] = defaultdict(list)
    for task_id, started in db.session.execute(select(Call.task_id, Call.started_at)):
        task = db.session.get(Task, task_id)
        calls[person_of(task, tenant.person_key)].append(started)
    for person, moments in calls.items():
        moments.sort()
        for limit in limits:
            window = timedelta(minutes=limit.within_minutes)
            for index, moment in enumerate(moments):
                within = [m for m in moments[: index + 1] if m > moment - window]
                assert len(within) <= limit.max_count, (person, limit_words(limit))
    marked = db.session.scalar(
        select(func.count()).select_from(ContactMark).where(ContactMark.kind == "call")
    )
    assert marked == 3 * count(Call)  # each call marks its number, person and task


def check_story(now: datetime) -> None:
    db.session.expire_all()
    tenant = tenants.get_tenant(PLATFORM, demo.COMPANY, demo.ENVIRONMENT)
    found = attempts_by_task()
    tasks = list(db.session.scalars(select(Task)))
    assert None not in found and set(found) <= {task.id for task in tasks}
    for task in tasks:
        check_task(task, found.get(task.id, []), now)
    check_agents(now)
    check_do_not_call(tenant.id)
    check_reports(tenant, now)
    check_limits(tenant, now)
    states = {task.worked_state for task in tasks}
    assert states == set(WorkedState)  # the past shows every state
    assert any(task.close_reason for task in tasks)  # Win-back's attempt limit at work


def test_after_make_runs_seed_and_again_every_demo_task_tells_its_attempts_story(
    app, runner, tmp_path
):
    seed_cli(app, runner, tmp_path)
    check_story(datetime.now(UTC))
    assert count(Attempt) > 200
    kept = rollups()
    result = runner.invoke(args=["reports", "rebuild-rollups"])
    assert result.exit_code == 0, result.output
    assert rollups() == kept  # the seed's rollups are the attempts' recount

    counts = (count(Task), count(Attempt), count(DncNumber))
    seed_cli(app, runner, tmp_path)  # `make run` again
    check_story(datetime.now(UTC))
    assert (count(Task), count(Attempt), count(DncNumber)) == counts


@pytest.mark.parametrize(
    "now",
    [
        datetime(2026, 3, 29, 20, 0, tzinfo=UTC),  # a Sunday evening, no shift today
        datetime(2026, 3, 30, 3, 0, tzinfo=UTC),  # Monday before the shifts
        datetime(2026, 4, 1, 16, 30, tzinfo=UTC),  # Wednesday, both agents at work
        datetime(2026, 4, 4, 12, 0, tzinfo=UTC),  # Saturday: Retention open 10:00-14:00
    ],
)
def test_the_past_is_consistent_whenever_the_demo_is_seeded(app, tmp_path, now):
    demo.seed(PLATFORM, str(tmp_path), actor=Actor.operator(), now=now)
    db.session.commit()
    check_story(now)
    # The desk's reschedules were each called once by their agent, before the seeding.
    for client_id, agent, minutes in (("SPR-0027", demo.JANE, 5), ("WIN-0026", demo.RAJ, 20)):
        task = db.session.scalar(select(Task).filter_by(client_id=client_id))
        assert (task.worked_state, task.work_attempts) == (WorkedState.WORKED, 1)
        assert task.last_attempt_agent == agent.login
        assert task.next_earliest_work_at == now + timedelta(minutes=minutes)
    # The customer who never answers: called in Spring Renewals until Regulation F's seven
    # calls in seven days held the account back, in Win-back too (never called there).
    unanswered, also = (
        db.session.scalar(select(Task).filter_by(client_id=client_id))
        for client_id in ("SPR-0030", "WIN-0030")
    )
    calls = list(
        db.session.scalars(select(Call).filter_by(task_id=unanswered.id).order_by(Call.started_at))
    )
    assert len(calls) == 7 and {c.result for c in calls} == {"NO_ANSWER"}
    assert unanswered.worked_state == WorkedState.WORKED
    assert unanswered.next_earliest_work_at < now  # due, but for the limit
    assert (also.worked_state, also.work_attempts) == (WorkedState.NOTWORKED, 0)
    for task in (unanswered, also):
        [reason] = [r for r in explain(task, now).reasons if r.rule == "CONTACT_LIMIT"]
        assert reason.until == calls[0].started_at + timedelta(days=7), task.client_id
        assert "person ACC-0030" in reason.message
    assert explain(unanswered, now).rules == ["CONTACT_LIMIT"]  # Sales has no hours
