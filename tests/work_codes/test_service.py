"""The work-code groups and codes: their rules, what a queue offers, the audit trail, and
that a task keeps its codes whatever becomes of them."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, WorkCodeChoice, WorkCodeGroup
from app.services.errors import Conflict, InvalidInput, NotFound
from app.services.tenants import setup as tenants
from app.services.work_codes import groups as work_codes
from app.services.work_codes.choices import offered
from app.services.work_codes.groups import CodeSettings
from tests.conftest import SETUP, make_tenant
from tests.delivery.delivery_support import make_agent, start, stored
from tests.work_codes.test_closing import close, held


def trail(action: str) -> list[AuditRecord]:
    return list(
        db.session.scalars(select(AuditRecord).filter_by(action=action).order_by(AuditRecord.id))
    )


def offered_names(acme, queue: str = "Sales") -> list[tuple[str, list[str]]]:
    db.session.expire_all()
    return [
        (group.name, [code.name for code in group.codes])
        for group in offered(tenants.get_skill_queue(acme, queue))
    ]


def test_a_new_group_is_recorded_with_its_actor(acme):
    group = work_codes.create_group(acme, "  Result ", required=True, actor=SETUP)
    db.session.commit()
    assert (group.name, group.required, group.multiple) == ("Result", True, False)
    [audit] = trail("work_code_group.added")
    assert (audit.actor_kind, audit.actor_id) == (SETUP.kind.value, SETUP.id)
    assert (audit.entity_kind, audit.tenant_id) == ("work_code_group", acme.id)
    assert audit.after == {"name": "Result", "required": True, "multiple": False}


@pytest.mark.parametrize(
    ("name", "error", "words"),
    [
        ("", InvalidInput, "1 to 255"),
        ("   ", InvalidInput, "1 to 255"),
        ("x" * 256, InvalidInput, "1 to 255"),
        ("Result", Conflict, "'Result' already exists"),
    ],
    ids=["empty", "blank", "too-long", "taken"],
)
def test_a_group_name_is_checked(acme, name, error, words):
    work_codes.create_group(acme, "Result", actor=SETUP)
    with pytest.raises(error, match=words):
        work_codes.create_group(acme, name, actor=SETUP)


def test_the_same_group_name_in_two_tenants(acme):
    other, _ = make_tenant("Globex")
    work_codes.create_group(acme, "Result", actor=SETUP)
    work_codes.create_group(other, "Result", actor=SETUP)
    db.session.commit()
    assert db.session.scalar(select(db.func.count()).select_from(WorkCodeGroup)) == 2


@pytest.mark.parametrize(
    ("code_settings", "words"),
    [
        (CodeSettings(outcome="SKIP"), "outcome 'SKIP' is not one of"),
        (CodeSettings(outcome="COMPLETE", reschedule_minutes=30), "only for a code whose"),
        (CodeSettings(reschedule_minutes=30), "only for a code whose"),
        (CodeSettings(outcome="RESCHEDULE", reschedule_minutes=0), "delay must be 1 to"),
        (CodeSettings(outcome="RESCHEDULE", reschedule_minutes=527_041), "delay must be 1 to"),
        (CodeSettings(description="x" * 1001), "description must be at most 1000"),
        (CodeSettings(sort_order=10**7), "sort order"),
    ],
    ids=[
        "unknown-outcome",
        "delay-on-complete",
        "delay-on-a-label",
        "no-delay",
        "over-a-year",
        "long-description",
        "huge-order",
    ],
)
def test_a_codes_settings_are_checked(acme, code_settings, words):
    group = work_codes.create_group(acme, "Result", actor=SETUP)
    with pytest.raises(InvalidInput, match=words):
        work_codes.add_code(group, "Sale", code_settings, actor=SETUP)


def test_a_code_name_is_unique_in_its_group_only(acme):
    result = work_codes.create_group(acme, "Result", actor=SETUP)
    topics = work_codes.create_group(acme, "Topics", actor=SETUP)
    work_codes.add_code(result, "Other", actor=SETUP)
    work_codes.add_code(topics, "Other", actor=SETUP)
    with pytest.raises(Conflict, match="'Other' already exists in group 'Result'"):
        work_codes.add_code(result, "Other ", actor=SETUP)
    db.session.rollback()
    code = work_codes.add_code(result, "Sale", actor=SETUP)
    with pytest.raises(Conflict, match="'Other' already exists"):
        work_codes.change_code(code, "Other", CodeSettings(), actor=SETUP)


def test_a_code_change_is_recorded_before_and_after(acme):
    group = work_codes.create_group(acme, "Result", actor=SETUP)
    code = work_codes.add_code(group, "No answer", actor=SETUP)
    work_codes.change_code(
        code, "No reply", CodeSettings("Nobody", 3, "RESCHEDULE", 90, True), actor=SETUP
    )
    work_codes.set_code_enabled(code, False, actor=SETUP)
    db.session.commit()
    [changed] = trail("work_code.changed")
    assert (changed.before["name"], changed.after["name"]) == ("No answer", "No reply")
    assert changed.after["rescheduleMinutes"] == 90 and changed.after["addsToDnc"] is True
    [disabled] = trail("work_code.disabled")
    assert (disabled.before["enabled"], disabled.after["enabled"]) == (True, False)
    assert work_codes.delay_words(90) == "90 minutes"


@pytest.mark.parametrize(
    ("minutes", "said"),
    [(None, None), (1, "1 minute"), (45, "45 minutes"), (60, "1 hour"), (120, "2 hours"),
     (1440, "1 day"), (2880, "2 days"), (1500, "25 hours")],
)  # fmt: skip
def test_a_delay_is_said_as_people_say_it(minutes, said):
    assert work_codes.delay_words(minutes) == said


def test_a_queue_offers_its_groups_enabled_codes_in_sort_order(acme, groups):
    result = ["Sale", "No answer", "Callback", "Left message", "Wrong number", "Do not call"]
    assert offered_names(acme) == [("Result", result), ("Topics", ["Price", "Resolved", "Later"])]
    assert offered_names(acme, "Support") == []


def test_a_group_without_an_enabled_code_is_not_offered(acme, groups):
    for code in groups["Topics"].codes:
        work_codes.set_code_enabled(code, False, actor=SETUP)
    db.session.commit()
    assert [name for name, _codes in offered_names(acme)] == ["Result"]


def test_assigning_groups_to_a_queue_sets_exactly_those(acme, groups):
    assert work_codes.set_queue_groups(acme, "Sales", ["Topics"], actor=SETUP) == ["Topics"]
    db.session.commit()
    assert [name for name, _codes in offered_names(acme)] == ["Topics"]
    work_codes.set_queue_groups(acme, "Support", ["Elsewhere", "Topics"], actor=SETUP)
    db.session.commit()
    assert [name for name, _codes in offered_names(acme, "Support")] == ["Elsewhere", "Topics"]
    assert [name for name, _codes in offered_names(acme)] == ["Topics"]
    [*_, audit] = trail("skill_queue.work_code_groups_set")
    assert audit.before["workCodeGroups"] == []
    assert audit.after["workCodeGroups"] == ["Elsewhere", "Topics"]


@pytest.mark.parametrize(
    ("queue", "names", "error", "words"),
    [
        ("Sales", ["Result", "Nope"], NotFound, "work code group 'Nope'"),
        ("Nowhere", ["Result"], InvalidInput, "'Nowhere' is not a skill queue"),
    ],
)
def test_assigning_refuses_unknown_names(acme, groups, queue, names, error, words):
    with pytest.raises(error, match=words):
        work_codes.set_queue_groups(acme, queue, names, actor=SETUP)


def test_another_tenants_group_cannot_be_assigned_or_found(acme, groups):
    other, _ = make_tenant("Globex")
    theirs = work_codes.create_group(other, "Theirs", actor=SETUP)
    db.session.commit()
    with pytest.raises(NotFound):
        work_codes.set_queue_groups(acme, "Sales", ["Theirs"], actor=SETUP)
    assert work_codes.group_by_id(acme, theirs.id) is None
    assert work_codes.group_by_id(other, theirs.id) is theirs
    work_codes.set_group_queues(theirs, ["Sales"], actor=SETUP)  # Globex's own Sales
    db.session.commit()
    assert [name for name, _codes in offered_names(acme)] == ["Result", "Topics"]
    assert theirs.skill_queues[0].tenant_id == other.id


def test_a_group_assigned_from_its_side(acme, groups):
    names = work_codes.set_group_queues(groups["Elsewhere"], ["Support", "Sales"], actor=SETUP)
    db.session.commit()
    assert names == ["Sales", "Support"]
    assert [name for name, _codes in offered_names(acme)] == ["Elsewhere", "Result", "Topics"]
    [audit] = trail("work_code_group.queues_set")
    assert audit.after["skillQueues"] == ["Sales", "Support"]


def test_tasks_keep_their_codes_when_codes_change_or_go(acme, groups, renewals):
    ann = make_agent(acme, "ann")
    now = start()
    task = held(renewals, ann, now)
    close(ann, task, now, codes=[("Result", "Sale"), ("Topics", "Price")])
    result = groups["Result"]
    work_codes.set_code_enabled(work_codes.get_code(result, "Sale"), False, actor=SETUP)
    work_codes.change_group(result, "Outcome", required=False, multiple=True, actor=SETUP)
    work_codes.delete_group(groups["Topics"], actor=SETUP)
    db.session.commit()
    kept = [(code.key, code.value) for code in stored("c1").work_codes]
    assert kept == [("Result", "Sale"), ("Topics", "Price")]
    gone = select(WorkCodeChoice).filter_by(group_id=groups["Topics"].id)
    assert db.session.scalars(gone).all() == []


def test_deleting_a_group_unassigns_it_and_is_recorded(acme, groups):
    work_codes.delete_group(groups["Topics"], actor=SETUP)
    db.session.commit()
    assert [name for name, _codes in offered_names(acme)] == ["Result"]
    [audit] = trail("work_code_group.deleted")
    assert audit.before["codes"] == ["Price", "Resolved", "Later"]
    assert work_codes.find_group(acme, "Topics") is None


def test_renaming_a_group_to_a_taken_name_is_refused(acme, groups):
    with pytest.raises(Conflict, match="'Topics' already exists"):
        work_codes.change_group(
            groups["Result"], "Topics", required=True, multiple=False, actor=SETUP
        )
