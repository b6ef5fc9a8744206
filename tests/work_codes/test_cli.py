"""`flask work-codes ...`: groups, codes, queues and the list; one-line errors, exit 1,
nothing half-made."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, WorkCodeChoice, WorkCodeGroup
from app.services.tenants import setup as tenants
from app.services.work_codes.choices import offered
from tests.cli.test_commands import assert_fails, last_line


@pytest.fixture
def work(runner, acme):
    """Run `work-codes ARGS...` for Acme/prod."""

    def run(command: str, *args: str):
        return runner.invoke(args=["work-codes", command, "Acme", "prod", *args])

    return run


def count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def offered_names(acme, queue: str = "Sales") -> list[str]:
    db.session.expire_all()
    return [g.name for g in offered(tenants.get_skill_queue(acme, queue))]


def test_a_group_with_codes_assigned_to_a_queue(work, acme):
    result = work("group-create", "Result", "--required")
    assert result.exit_code == 0, result.output
    assert last_line(result) == "Created work code group 'Result' (required, single choice)."
    result = work(
        "add", "Result", "No answer", "--description", "Nobody picked up.",
        "--outcome", "RESCHEDULE", "--delay-minutes", "120", "--order", "2",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "'No answer'" in last_line(result) and "RESCHEDULE in 2 hours" in last_line(result)
    assert work("add", "Result", "Sale", "--outcome", "COMPLETE", "--order", "1").exit_code == 0
    assert work("assign", "Sales", "Result").exit_code == 0
    [group] = offered(tenants.get_skill_queue(acme, "Sales"))
    assert (group.name, group.required, group.multiple) == ("Result", True, False)
    assert [(c.name, c.outcome, c.reschedule_minutes) for c in group.codes] == [
        ("Sale", "COMPLETE", None),
        ("No answer", "RESCHEDULE", 120),
    ]
    assert group.codes[1].description == "Nobody picked up."
    audit = db.session.scalar(select(AuditRecord).filter_by(action="work_code.added"))
    assert audit.actor_kind == "operator"


def test_multiple_and_dnc_flags(work):
    assert work("group-create", "Topics", "--multiple").exit_code == 0
    result = work("add", "Topics", "Do not call", "--outcome", "REMOVE", "--adds-to-dnc")
    assert result.exit_code == 0, result.output
    code = db.session.scalar(select(WorkCodeChoice).filter_by(name="Do not call"))
    assert (code.outcome, code.adds_to_dnc, code.group.multiple) == ("REMOVE", True, True)


def test_disable_and_enable_a_code(work, acme):
    work("group-create", "Result")
    work("add", "Result", "Sale")
    assert work("assign", "Sales", "Result").exit_code == 0
    result = work("disable", "Result", "Sale")
    assert result.exit_code == 0 and "disabled" in last_line(result)
    assert offered_names(acme) == []  # no enabled code: the group is not offered
    assert work("enable", "Result", "Sale").exit_code == 0
    assert offered_names(acme) == ["Result"]


def test_assign_sets_exactly_the_groups_given(work, acme):
    for name in ("A", "B", "C"):
        work("group-create", name)
        work("add", name, "x")
    work("assign", "Sales", "A", "B")
    assert offered_names(acme) == ["A", "B"]
    result = work("assign", "Sales", "C")
    assert last_line(result) == "Skill queue 'Sales' now offers C."
    assert offered_names(acme) == ["C"]
    assert work("assign", "Sales", "--none").exit_code == 0
    assert offered_names(acme) == []


def test_list_shows_groups_codes_queues_and_free_queues(work):
    work("group-create", "Result", "--required")
    work("add", "Result", "Later", "--outcome", "RESCHEDULE", "--delay-minutes", "1440")
    work("add", "Result", "Old", "--description", "Not used any more")
    work("disable", "Result", "Old")
    work("assign", "Sales", "Result")
    result = work("list")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Result (required, single choice) · queues: Sales"
    assert "Later → RESCHEDULE in 1 day" in lines[1]
    assert "Old [disabled]" in lines[2] and "Not used any more" in lines[3]
    assert lines[-1] == "Queues without work codes (free labels): Support"


def test_list_of_nothing(work):
    assert work("list").output.splitlines() == [
        "No work code group yet.",
        "Queues without work codes (free labels): Sales, Support",
    ]


@pytest.mark.parametrize(
    ("command", "args", "words"),
    [
        ("group-create", ["Result"], ["'Result' already exists"]),
        ("group-create", [" "], ["1 to 255"]),
        ("add", ["Nope", "Sale"], ["'Nope'"]),
        ("add", ["Result", "Sale", "--delay-minutes", "5"], ["only for a code whose"]),
        ("add", ["Result", "Sale", "--outcome", "SKIP"], ["SKIP"]),
        ("add", ["Result", "Soon", "--outcome", "RESCHEDULE", "--delay-minutes", "0"], ["delay"]),
        ("disable", ["Result", "Nope"], ["'Nope'", "'Result'"]),
        ("enable", ["Nope", "Sale"], ["'Nope'"]),
        ("assign", ["Sales", "Result", "Nope"], ["'Nope'"]),
        ("assign", ["Nowhere", "Result"], ["'Nowhere'"]),
        ("assign", ["Sales"], ["GROUP", "--none"]),
        ("assign", ["Sales", "Result", "--none"], ["GROUP", "--none"]),
    ],
    ids=[
        "group-taken",
        "group-blank",
        "add-to-unknown-group",
        "delay-without-reschedule",
        "unknown-outcome",
        "zero-delay",
        "disable-unknown-code",
        "enable-in-unknown-group",
        "assign-unknown-group",
        "assign-unknown-queue",
        "assign-nothing",
        "assign-both",
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(work, command, args, words):
    work("group-create", "Result")
    groups, codes, records = count(WorkCodeGroup), count(WorkCodeChoice), count(AuditRecord)
    assert_fails(work(command, *args), *words)
    db.session.expire_all()
    assert (count(WorkCodeGroup), count(WorkCodeChoice), count(AuditRecord)) == (
        groups,
        codes,
        records,
    )


def test_an_unknown_tenant_is_one_line(runner):
    assert_fails(runner.invoke(args=["work-codes", "list", "Nobody", "prod"]), "Nobody")


@pytest.mark.parametrize(
    ("options", "flags", "said"),
    [
        (("--contact",), (True, False), "counts as: contact."),
        (("--success",), (False, True), "counts as: success."),
        (("--contact", "--success"), (True, True), "counts as: contact and success."),
        (("--no-contact",), (False, False), "counts as: no report flag."),
    ],
)
def test_flag_sets_and_clears_the_report_flags(work, options, flags, said):
    work("group-create", "Result")
    assert work("add", "Result", "Sale").exit_code == 0
    result = work("flag", "Result", "Sale", *options)
    assert result.exit_code == 0, result.output
    assert last_line(result).endswith(said)
    db.session.expire_all()
    code = db.session.scalar(select(WorkCodeChoice).filter_by(name="Sale"))
    assert (code.contact, code.success) == flags
    audit = db.session.scalar(select(AuditRecord).filter_by(action="work_code.changed"))
    assert audit.after["contact"] == flags[0] and audit.actor_kind == "operator"


def test_add_with_flags_and_the_list_shows_them(work):
    work("group-create", "Result")
    result = work("add", "Result", "Sale", "--outcome", "COMPLETE", "--contact", "--success")
    assert result.exit_code == 0, result.output
    assert "counts as contact and success" in last_line(result)
    assert work("flag", "Result", "Sale", "--no-success").exit_code == 0
    assert "Sale → COMPLETE, counts as contact" in work("list").output


def test_flag_needs_a_flag(work):
    work("group-create", "Result")
    work("add", "Result", "Sale")
    result = work("flag", "Result", "Sale")
    assert result.exit_code != 0 and "--contact" in result.output
