"""Closing through the delivery service: the work-code rules, the outcome they imply, the
attempt limit and the do-not-call list (a controlled clock throughout)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.api.fields import WIRE_NAMES
from app.extensions import db
from app.models import AuditRecord, DncNumber, Task
from app.services.actors import Actor
from app.services.delivery import closing
from app.services.errors import PAST, InvalidInput, WorkCodeRefused
from app.services.fields import TASK_NEXT_EARLIEST
from app.services.work_codes import groups as work_codes
from app.wire.times import sent_time
from tests.conftest import SETUP
from tests.delivery.delivery_support import add, available, events, make_agent, offer, start, stored
from tests.work_codes.cases import CASES, LATER, Case, closing_cases, ms

PHONE = "+14155550100"  # the phone of every task `add` makes


@pytest.fixture
def ann(acme, groups):
    return make_agent(acme, "ann", ("Sales", "Support"))


def held(campaign, agent, now, client_id: str = "c1", **fields) -> Task:
    """A task of the campaign, delivered to the agent at `now`."""
    add(campaign, client_id, **fields)
    available(agent, now)
    found = offer(agent, now)
    assert found.task is not None and found.task.client_id == client_id, found
    return found.task


def close(agent, task: Task, now, outcome=None, codes=(), later=False):
    closed = closing.close_task(
        agent,
        task.record_id,
        outcome,
        next_earliest=sent_time(ms(LATER), "nextEarliestWorkTimeUTC") if later else None,
        work_codes=codes,
        actor=Actor.agent(agent.login_user_id),
        now=now,
    )
    db.session.commit()
    return closed


def check_closed(case: Case, client_id: str, earliest, latest) -> Task:
    """The task closed as the case says; a default delay counted from a moment between
    `earliest` and `latest` (the service's clock, or a door's real one around the call)."""
    task = stored(client_id)
    assert (task.worked_state, task.work_attempts, task.reserved_by_id) == (case.state, 1, None)
    assert [(code.key, code.value) for code in task.work_codes] == list(case.codes)
    assert task.close_reason is None
    if case.state == "WORKED" and case.delay:
        wait = timedelta(minutes=case.delay)
        assert earliest + wait <= task.next_earliest_work_at <= latest + wait
    elif case.state == "WORKED":
        assert task.next_earliest_work_at == LATER
    return task


def check_refused(case: Case, message: str, client_id: str, agent) -> None:
    """Refused in words naming the case's group or code; the task is still the agent's."""
    for word in case.words:
        assert word in message, message
    task = stored(client_id)
    assert (task.work_attempts, task.worked_state) == (0, "NOTWORKED")
    assert task.reserved_by_id == agent.id
    assert task.work_codes == []


# What each refusal of the table says of itself, for a door to word it (app/desk/refusals.py):
# its field, what is wrong with it, and for the codes the group and code at fault.
REFUSED_AS = {
    "required-group-missing": ("workCodes", "required", "Result", None),
    "only-an-optional-group": ("workCodes", "required", "Result", None),
    "group-not-of-the-queue": ("workCodes", "group_not_offered", "Elsewhere", None),
    "unknown-group": ("workCodes", "group_not_offered", "Mood", None),
    "code-not-of-the-group": ("workCodes", "unknown_code", "Result", "Price"),
    "disabled-code": ("workCodes", "disabled", "Result", "Old"),
    "two-codes-in-a-single-group": ("workCodes", "one_only", "Result", None),
    "a-code-twice": ("workCodes", "twice", "Topics", "Price"),
    "reschedule-code-without-delay-needs-a-time": ("nextEarliestWorkTimeUTC", "required"),
    "label-codes-imply-no-outcome": ("outcome", "required"),
    "explicit-reschedule-without-time-or-delay": ("nextEarliestWorkTimeUTC", "required"),
}


@pytest.mark.parametrize(("name", "said"), list(REFUSED_AS.items()), ids=list(REFUSED_AS))
def test_a_refusal_names_its_field_and_what_is_wrong(name, said, renewals, ann):
    case = CASES[name]
    now = start()
    task = held(renewals, ann, now)
    with pytest.raises(InvalidInput) as refused:
        closing.outcome_of(ann, task.record_id, case.outcome, work_codes=case.codes, now=now)
    error = refused.value
    assert (WIRE_NAMES[error.field], error.kind) == said[:2]  # the field, by the spec's name
    if isinstance(error, WorkCodeRefused):
        assert (error.group, error.code) == said[2:]


def test_a_time_in_the_past_is_refused_as_past(winback, ann):
    now = start()
    task = held(winback, ann, now)
    past = sent_time(ms(now) - 1, "nextEarliestWorkTimeUTC")
    with pytest.raises(InvalidInput) as refused:
        closing.close_task(ann, task.record_id, "RESCHEDULE", next_earliest=past,
                           actor=Actor.agent("ann"), now=now)  # fmt: skip
    assert (refused.value.field, refused.value.kind) == (TASK_NEXT_EARLIEST, PAST)


@pytest.mark.parametrize(
    ("outcome", "codes", "implied"),
    [
        (None, [("Result", "Wrong number"), ("Topics", "Resolved")], "REMOVE"),
        ("REMOVE", [("Result", "Sale")], "REMOVE"),
        ("COMPLETE", [("Result", "Wrong number")], "COMPLETE"),
        (None, [("Result", "No answer")], "RESCHEDULE"),
    ],
)
def test_the_outcome_of_a_closing_is_told_and_nothing_changes(
    renewals, ann, outcome, codes, implied
):
    now = start()
    task = held(renewals, ann, now)
    assert closing.outcome_of(ann, task.record_id, outcome, work_codes=codes, now=now) == implied
    db.session.commit()
    untouched = stored("c1")
    assert (untouched.worked_state, untouched.work_attempts) == ("NOTWORKED", 0)
    assert untouched.reserved_by_id == ann.id and untouched.work_codes == []


@closing_cases()
def test_closing_rules_through_the_service(case, renewals, ann):
    now = start()
    task = held(renewals, ann, now)
    if case.state is None:
        with pytest.raises(InvalidInput) as refused:
            close(ann, task, now, case.outcome, case.codes, case.later)
        db.session.rollback()
        check_refused(case, refused.value.message, "c1", ann)
    else:
        close(ann, task, now, case.outcome, case.codes, case.later)
        check_closed(case, "c1", now, now)


def test_a_queue_without_groups_takes_any_codes_as_labels_and_needs_an_outcome(winback, ann):
    now = start()
    task = held(winback, ann, now)
    with pytest.raises(InvalidInput, match="outcome is required"):
        close(ann, task, now, None, [("Mood", "Happy")])
    db.session.rollback()
    close(ann, task, now, "COMPLETE", [("Mood", "Happy"), ("Mood", "Happy")])
    assert [(c.key, c.value) for c in stored("c1").work_codes] == [("Mood", "Happy")] * 2


def test_a_required_group_without_an_enabled_code_asks_for_none(renewals, ann, groups):
    for code in groups["Result"].codes:
        work_codes.set_code_enabled(code, False, actor=SETUP)
    db.session.commit()
    now = start()
    task = held(renewals, ann, now)
    close(ann, task, now, "COMPLETE")
    assert stored("c1").worked_state == "COMPLETED"


def test_the_last_attempts_codes_replace_the_earlier_ones(renewals, ann):
    now = start()
    task = held(renewals, ann, now)
    close(ann, task, now, codes=[("Result", "No answer"), ("Topics", "Price")])
    again = now + timedelta(minutes=61)
    offer(ann, again)
    close(ann, task, again, codes=[("Result", "Sale")])
    shown = stored("c1")
    assert [(c.key, c.value) for c in shown.work_codes] == [("Result", "Sale")]
    assert (shown.worked_state, shown.work_attempts) == ("COMPLETED", 2)


def test_the_closed_event_tells_the_outcome_the_codes_chose(renewals, ann):
    now = start()
    task = held(renewals, ann, now)
    close(ann, task, now, codes=[("Result", "Wrong number")])
    [event] = events("task.closed")
    assert (event["outcome"], event["attempt"], event["closeReason"]) == ("REMOVE", 1, None)
    assert event["workCodes"] == [{"key": "Result", "value": "Wrong number"}]


# --- the attempt limit ----------------------------------------------------------------------

LIMIT = 3


@pytest.mark.parametrize(
    ("max_attempts", "before", "outcome", "codes", "state", "reason"),
    [
        (LIMIT, 0, "RESCHEDULE", [("Result", "Callback")], "WORKED", None),
        (LIMIT, 1, "RESCHEDULE", [("Result", "Callback")], "WORKED", None),
        (LIMIT, 2, "RESCHEDULE", [("Result", "Callback")], "COMPLETED", "(3 attempts)"),
        (LIMIT, 5, "RESCHEDULE", [("Result", "Callback")], "COMPLETED", "(6 attempts)"),
        (LIMIT, 2, None, [("Result", "No answer")], "COMPLETED", "(3 attempts)"),
        (LIMIT, 2, "REMOVE", [("Result", "No answer")], "REMOVED", None),
        (LIMIT, 2, "COMPLETE", [("Result", "Sale")], "COMPLETED", None),
        (None, 40, "RESCHEDULE", [("Result", "Callback")], "WORKED", None),
        (1, 0, "RESCHEDULE", [("Result", "Callback")], "COMPLETED", "(1 attempt)"),
    ],
    ids=[
        "first-of-three",
        "second-of-three",
        "third-reaches-the-limit",
        "already-past-the-limit",
        "a-reschedule-the-codes-chose",
        "remove-is-not-limited",
        "complete-is-not-limited",
        "no-limit",
        "limit-of-one",
    ],
)
def test_a_reschedule_reaching_the_attempt_limit_completes_the_task(
    renewals, ann, max_attempts, before, outcome, codes, state, reason
):
    renewals.max_attempts = max_attempts
    db.session.commit()
    now = start()
    task = held(renewals, ann, now)
    task.work_attempts = before
    db.session.commit()
    close(ann, task, now, outcome, codes, later=outcome == "RESCHEDULE")
    shown = stored("c1")
    assert (shown.worked_state, shown.work_attempts) == (state, before + 1)
    [event] = events("task.closed")
    if reason is None:
        assert shown.close_reason is None and event["closeReason"] is None
        return
    said = f"attempt limit reached {reason}"
    assert shown.close_reason == said
    assert (event["outcome"], event["closeReason"]) == ("COMPLETE", said)
    assert shown.reserved_by_id is None and shown.next_earliest_work_at is None
    audit = db.session.scalar(select(AuditRecord).filter_by(action="task.closed"))
    assert audit.after["closeReason"] == said and audit.after["workedState"] == "COMPLETED"


def test_a_task_reaching_the_limit_is_not_delivered_again(renewals, ann):
    renewals.max_attempts = 1
    db.session.commit()
    now = start()
    task = held(renewals, ann, now)
    close(ann, task, now, "RESCHEDULE", [("Result", "Callback")], later=True)
    assert offer(ann, LATER + timedelta(minutes=1)).task is None


# --- the do-not-call list -------------------------------------------------------------------


def test_a_code_adding_to_dnc_lists_the_tasks_numbers(renewals, ann, acme):
    now = start()
    task = held(renewals, ann, now)
    close(ann, task, now, codes=[("Result", "Do not call")])
    listed = db.session.scalars(select(DncNumber).filter_by(tenant_id=acme.id)).all()
    assert [entry.number for entry in listed] == [PHONE]
    assert stored("c1").worked_state == "REMOVED"


def test_a_code_without_dnc_lists_nothing(renewals, ann):
    now = start()
    task = held(renewals, ann, now)
    close(ann, task, now, codes=[("Result", "Wrong number")])
    assert db.session.scalars(select(DncNumber)).all() == []


def test_a_refused_closing_lists_nothing(renewals, ann):
    now = start()
    task = held(renewals, ann, now)
    with pytest.raises(InvalidInput):
        close(ann, task, now, codes=[("Result", "Do not call"), ("Result", "Sale")])
    db.session.rollback()
    assert db.session.scalars(select(DncNumber)).all() == []
