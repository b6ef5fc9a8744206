"""An agent's own time zone: set by the CLI and the Users page, and the desk's "due at" in it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord
from app.services.errors import InvalidInput
from app.services.people import agents
from app.wire.times import sent_time
from tests.admin.conftest import csrf_token, page
from tests.cli.test_commands import assert_fails
from tests.conftest import SETUP
from tests.delivery.delivery_support import add, available, ms, offer

DUE = datetime(2027, 1, 15, 14, 30, tzinfo=UTC)  # 09:30 in New York (EST), 15:30 in Paris


def zone_of(agent) -> str | None:
    db.session.expire_all()
    return agent.time_zone


@pytest.mark.parametrize(
    ("zone", "said"),
    [
        (None, "the next task is due at 2027-01-15 14:30 UTC"),
        ("America/New_York", "the next task is due at 2027-01-15 09:30 America/New_York"),
        ("Europe/Paris", "the next task is due at 2027-01-15 15:30 Europe/Paris"),
    ],
)
def test_the_next_due_time_is_said_in_the_agents_zone(renewals, ann, zone, said):
    agents.set_agent_zone(ann, zone, actor=SETUP)
    add(renewals, "later", next_earliest=sent_time(ms(DUE), "nextEarliestWorkTimeUTC"))
    now = DUE - timedelta(hours=2)
    available(ann, now)
    found = offer(ann, now)
    assert found.task is None
    assert found.reason == said
    assert found.next_due == DUE


def test_a_zone_that_is_not_iana_is_refused_and_nothing_changes(ann):
    with pytest.raises(InvalidInput, match="'Mars/Olympus'"):
        agents.set_agent_zone(ann, "Mars/Olympus", actor=SETUP)
    db.session.rollback()
    assert zone_of(ann) is None


def test_a_zone_change_leaves_an_audit_record(ann):
    agents.set_agent_zone(ann, "Europe/Paris", actor=SETUP)
    db.session.commit()
    record = db.session.scalar(select(AuditRecord).filter_by(action="agent.zone_set"))
    assert (record.before, record.after) == ({"timeZone": None}, {"timeZone": "Europe/Paris"})


def test_the_cli_sets_and_clears_the_zone(runner, ann):
    result = runner.invoke(args=["agent", "zone", "Acme", "prod", "ann", "Asia/Tokyo"])
    assert result.exit_code == 0, result.output
    assert zone_of(ann) == "Asia/Tokyo"
    result = runner.invoke(args=["agent", "zone", "Acme", "prod", "ann", "--none"])
    assert result.exit_code == 0, result.output
    assert zone_of(ann) is None


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["ann", "Mars/Olympus"], ["Mars/Olympus"]),
        (["nobody", "Asia/Tokyo"], ["nobody"]),
    ],
)
def test_the_cli_refuses_an_unknown_zone_or_user(runner, ann, args, words):
    assert_fails(runner.invoke(args=["agent", "zone", "Acme", "prod", *args]), *words)
    assert zone_of(ann) is None


def test_the_cli_needs_a_zone_or_none(runner, ann):
    assert runner.invoke(args=["agent", "zone", "Acme", "prod", "ann"]).exit_code != 0


def test_the_users_desk_page_sets_the_zone(signed_in, acme, ann):
    url = f"/tenants/{acme.id}/users/{ann.id}/desk"
    token = csrf_token(page(signed_in, url))
    answer = signed_in.post(
        f"{url}/zone", data={"zone-csrf_token": token, "zone-time_zone": "Europe/Paris"}
    )
    assert answer.status_code == 302
    assert zone_of(ann) == "Europe/Paris"
    refused = signed_in.post(
        f"{url}/zone", data={"zone-csrf_token": token, "zone-time_zone": "Nowhere"}
    )
    assert refused.status_code == 422
    assert zone_of(ann) == "Europe/Paris"
