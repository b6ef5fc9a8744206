"""Setting a campaign's calling window and limit on attempts: the service and its CLI."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord
from app.services.errors import InvalidInput
from app.services.schedules.calling_windows import set_calling_window, set_max_attempts
from tests.cli.test_commands import assert_fails
from tests.conftest import SETUP
from tests.schedules.window_support import stored


def audit(action: str) -> list[tuple]:
    rows = db.session.scalars(select(AuditRecord).filter_by(action=action).order_by(AuditRecord.id))
    return [(row.entity_id, row.before, row.after) for row in rows]


def test_a_window_and_its_removal_leave_audit_records(renewals):
    set_calling_window(renewals, 480, 1260, actor=SETUP)
    set_calling_window(renewals, 1200, 120, actor=SETUP)
    set_calling_window(renewals, None, None, actor=SETUP)
    db.session.commit()
    assert stored(renewals)[:2] == (None, None)
    entity = str(renewals.id)
    assert audit("campaign.window_set") == [
        (entity, {"callingWindow": None}, {"callingWindow": "08:00-21:00"}),
        (entity, {"callingWindow": "08:00-21:00"}, {"callingWindow": "20:00-02:00"}),
        (entity, {"callingWindow": "20:00-02:00"}, {"callingWindow": None}),
    ]


@pytest.mark.parametrize(
    ("opens", "closes", "words"),
    [
        (480, None, "closing time is required"),
        (None, 1260, "opening time is required"),
        (480, 480, "closing time must differ"),
        (-1, 480, "opening time must be 00:00 to 23:59"),
        (480, 1440, "closing time must be 00:00 to 23:59"),
    ],
)
def test_a_window_that_breaks_a_rule_is_refused_by_field(renewals, opens, closes, words):
    with pytest.raises(InvalidInput, match=words):
        set_calling_window(renewals, opens, closes, actor=SETUP)
    db.session.rollback()
    assert stored(renewals)[:2] == (None, None)
    assert audit("campaign.window_set") == []


def test_max_attempts_and_its_removal_leave_audit_records(renewals):
    set_max_attempts(renewals, 1, actor=SETUP)
    set_max_attempts(renewals, 1000, actor=SETUP)
    set_max_attempts(renewals, None, actor=SETUP)
    db.session.commit()
    assert stored(renewals)[2] is None
    entity = str(renewals.id)
    assert audit("campaign.max_attempts_set") == [
        (entity, {"maxAttempts": None}, {"maxAttempts": 1}),
        (entity, {"maxAttempts": 1}, {"maxAttempts": 1000}),
        (entity, {"maxAttempts": 1000}, {"maxAttempts": None}),
    ]


@pytest.mark.parametrize("n", [0, -3, 1001])
def test_max_attempts_outside_1_to_1000_is_refused(renewals, n):
    with pytest.raises(InvalidInput, match="maximum attempts must be 1 to 1000"):
        set_max_attempts(renewals, n, actor=SETUP)


# --- the CLI ---------------------------------------------------------------------------------


def cli(runner, *args: str):
    return runner.invoke(args=["campaign", *args])


@pytest.mark.parametrize(
    ("window", "minutes", "said"),
    [
        ("08:00-21:00", (480, 1260), "calls its tasks 08:00-21:00, in each task's time zone"),
        ("20:00-02:00", (1200, 120), "calls its tasks 20:00-02:00 (past midnight), in each"),
    ],
)
def test_the_cli_sets_a_window(runner, renewals, window, minutes, said):
    result = cli(runner, "set-window", "Acme", "prod", "Renewals", window)
    assert result.exit_code == 0, result.output
    assert said in result.output
    assert stored(renewals)[:2] == minutes
    [(_entity, _before, after)] = audit("campaign.window_set")
    assert after == {"callingWindow": window}
    record = db.session.scalar(select(AuditRecord).filter_by(action="campaign.window_set"))
    assert record.actor_kind == "operator"


def test_the_cli_removes_a_window(runner, renewals):
    set_calling_window(renewals, 480, 1260, actor=SETUP)
    db.session.commit()
    result = cli(runner, "set-window", "Acme", "prod", "Renewals", "--none")
    assert result.exit_code == 0, result.output
    assert "may call its tasks at any time" in result.output
    assert stored(renewals)[:2] == (None, None)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["Renewals", "25:00-26:00"], ["25:00-26:00", "00:00 to 23:59"]),
        (["Renewals", "8-21"], ["'8-21'", "HH:MM-HH:MM"]),
        (["Renewals", "08:00-08:00"], ["closing time must differ"]),
        (["Renewals"], ["HH:MM-HH:MM or --none"]),
        (["Renewals", "08:00-21:00", "--none"], ["HH:MM-HH:MM or --none"]),
        (["Nope", "08:00-21:00"], ["campaign 'Nope'"]),
    ],
)
def test_the_cli_refuses_a_bad_window_in_one_line(runner, renewals, args, words):
    assert_fails(cli(runner, "set-window", "Acme", "prod", *args), *words)
    assert stored(renewals)[:2] == (None, None)


def test_the_cli_refuses_an_unknown_tenant(runner, renewals):
    assert_fails(cli(runner, "set-window", "Acme", "test", "Renewals", "08:00-21:00"), "test")


def test_the_cli_sets_and_removes_max_attempts(runner, renewals):
    result = cli(runner, "set-max-attempts", "Acme", "prod", "Renewals", "5")
    assert result.exit_code == 0, result.output
    assert "allows 5 attempts per task" in result.output
    assert stored(renewals)[2] == 5
    result = cli(runner, "set-max-attempts", "Acme", "prod", "Renewals", "--none")
    assert result.exit_code == 0, result.output
    assert "no limit on attempts" in result.output
    assert stored(renewals)[2] is None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["0"], ["maximum attempts must be 1 to 1000"]),
        (["-1"], ["maximum attempts must be 1 to 1000"]),
        (["1001"], ["maximum attempts must be 1 to 1000"]),
        (["five"], ["'five'", "whole number"]),
        ([], ["N or --none"]),
        (["5", "--none"], ["N or --none"]),
    ],
)
def test_the_cli_refuses_bad_max_attempts_in_one_line(runner, renewals, args, words):
    assert_fails(cli(runner, "set-max-attempts", "Acme", "prod", "Renewals", *args), *words)
    assert stored(renewals)[2] is None
