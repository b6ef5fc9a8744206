"""`callback list` prints the callbacks kept now (the same list as the supervisors' page)
and `callback hand-over` keeps one for another agent of its queue, refusing in one line an
agent who does not work it and changing nothing."""

from __future__ import annotations

import pytest

from app.cli import callbacks as callback_commands
from app.extensions import db
from app.models import Task
from tests.cli.test_commands import assert_fails
from tests.delivery.delivery_support import make_agent
from tests.delivery.test_callback_lists import NOW, _callback


@pytest.fixture
def kept(acme, renewals, ann, bob, monkeypatch):
    monkeypatch.setattr(callback_commands, "utcnow", lambda: NOW)
    make_agent(acme, "cy", ("Support",))
    return _callback(renewals, ann).record_id


def _preferred(record_id: str) -> str | None:
    db.session.expire_all()
    return db.session.query(Task).filter_by(record_id=record_id).one().preferred_agent


def test_list_prints_each_callback_kept_now(runner, kept):
    result = runner.invoke(args=["callback", "list", "Acme", "prod"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"{kept}\tann\t2026-11-24 18:00 UTC\t2026-11-24 18:30 UTC\tC1\tAmerica/New_York"
    ]
    assert "1 callbacks kept for an agent" in result.stderr
    other = runner.invoke(args=["callback", "list", "Acme", "prod", "--agent", "bob"])
    assert other.exit_code == 0 and other.stdout == ""


def test_hand_over_keeps_the_task_for_the_other_agent(runner, kept):
    result = runner.invoke(args=["callback", "hand-over", "Acme", "prod", kept, "--to", "bob"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == f"Task {kept} is kept for bob."
    assert _preferred(kept) == "bob"


@pytest.mark.parametrize(
    ("to", "words"),
    [("cy", ("'cy' does not work the task's queue Sales",)), ("zed", ("'zed' does not exist",))],
)
def test_a_refused_hand_over_says_why_in_one_line_and_changes_nothing(runner, kept, to, words):
    result = runner.invoke(args=["callback", "hand-over", "Acme", "prod", kept, "--to", to])
    assert_fails(result, *words)
    assert _preferred(kept) == "ann"
