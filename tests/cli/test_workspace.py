"""The operator commands of the agents' workspace: away reasons and a queue's wrap-up limit."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import SkillQueue
from app.services.delivery import away_reasons
from tests.cli.test_commands import assert_fails, last_line


def test_away_reasons_are_added_listed_and_removed(runner, acme):
    assert (
        runner.invoke(
            args=["away-reason", "add", "Acme", "prod", "Lunch", "--order", "2"]
        ).exit_code
        == 0
    )
    added = runner.invoke(args=["away-reason", "add", "Acme", "prod", "Break", "--order", "1"])
    assert last_line(added) == "Added away reason 'Break'."
    listed = runner.invoke(args=["away-reason", "list", "Acme", "prod"])
    assert listed.output.splitlines() == ["Break\t1", "Lunch\t2"]
    removed = runner.invoke(args=["away-reason", "remove", "Acme", "prod", "lunch"])
    assert last_line(removed) == "Removed away reason 'Lunch'."
    db.session.expire_all()
    assert [r.name for r in away_reasons.list_reasons(acme)] == ["Break"]


def test_a_repeated_or_unknown_reason_fails_in_one_line(runner, acme):
    runner.invoke(args=["away-reason", "add", "Acme", "prod", "Lunch"])
    assert_fails(runner.invoke(args=["away-reason", "add", "Acme", "prod", "LUNCH"]), "exists")
    assert_fails(runner.invoke(args=["away-reason", "remove", "Acme", "prod", "Nap"]), "Nap")


def test_a_queues_wrap_up_limit_is_set_and_cleared(runner, acme):
    done = runner.invoke(args=["skill-queue", "set-wrap-up-limit", "Acme", "prod", "Sales", "90"])
    assert last_line(done) == "Skill queue 'Sales' warns after 1 min 30 s of wrap-up."
    sales = db.session.scalar(select(SkillQueue).filter_by(tenant_id=acme.id, name="Sales"))
    assert sales.wrap_up_limit_seconds == 90
    assert "Sales\t-\t90" in runner.invoke(args=["skill-queue", "list", "Acme", "prod"]).output
    assert_fails(
        runner.invoke(args=["skill-queue", "set-wrap-up-limit", "Acme", "prod", "Sales", "2"]),
        "5 to 3600",
    )
    cleared = runner.invoke(
        args=["skill-queue", "set-wrap-up-limit", "Acme", "prod", "Sales", "--none"]
    )
    assert last_line(cleared) == "Skill queue 'Sales' has no wrap-up limit."
    db.session.expire_all()
    assert sales.wrap_up_limit_seconds is None
