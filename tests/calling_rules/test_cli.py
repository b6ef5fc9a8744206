"""`flask calling-rules add|list|remove|load-us`: exact output, one-line errors with a
non-zero exit and nothing stored, the US pack loaded once however often it is loaded."""

from __future__ import annotations

import csv

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import AuditRecord, CallingRule, ContactLimit, Event
from app.services.calling_rules import pack
from tests.cli.test_commands import assert_fails

TENANT = ["Acme", "prod"]


def run(runner, *args: str):
    return runner.invoke(args=["calling-rules", *args])


def ok(result) -> str:
    assert result.exit_code == 0, result.output
    return result.output


def _count(model) -> int:
    db.session.expire_all()
    return db.session.scalar(select(func.count()).select_from(model))


def test_add_list_and_remove_a_rule_with_its_limit(runner, acme):
    said = ok(run(runner, "add", *TENANT, "--region", "us-fl", "--hours", "08:00-20:00",
                  "--no-calls-on", "sun", "--holidays", "--max", "3", "--within", "24h",
                  "--per", "person", "--source", "Fla. Stat. 501.616"))  # fmt: skip
    rule = db.session.scalar(select(CallingRule))
    assert said.strip() == (
        f"Added calling rule {rule.id}: US-FL: calls 08:00-20:00, none on sun, none on public "
        "holidays, at most 3 calls within 24 hours per person."
    )
    limit = db.session.scalar(select(ContactLimit))
    assert (limit.region, limit.max_count, limit.per) == ("US-FL", 3, "person")
    listed = run(runner, "list", *TENANT)
    assert ok(listed) and listed.stdout.splitlines() == [
        f"{rule.id}\tUS-FL: calls 08:00-20:00, none on sun, none on public holidays, at most 3 "
        "calls within 24 hours per person\tFla. Stat. 501.616"
    ]
    event = db.session.scalar(select(Event).where(Event.type == "calling_rule.added"))
    assert event.payload["data"]["rule"]["region"] == "US-FL"
    said = ok(run(runner, "remove", *TENANT, str(rule.id)))
    assert said.startswith(f"Removed calling rule {rule.id}: US-FL")
    assert _count(CallingRule) == 0 and _count(ContactLimit) == 0
    actions = db.session.scalars(select(AuditRecord.action).order_by(AuditRecord.id)).all()
    assert actions[-2:] == ["contact_limit.removed", "calling_rule.removed"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param(
            ["--region", "XX-ZZ", "--hours", "08:00-20:00"], ["XX-ZZ", "ISO 3166-2"], id="region"
        ),
        pytest.param(["--region", "US-FL", "--hours", "8-20"], ["hours", "HH:MM"], id="hours"),
        pytest.param(
            ["--region", "US-FL", "--hours", "08:00-08:00"], ["at once"], id="empty-hours"
        ),
        pytest.param(["--region", "US-FL", "--days", "sun"], ["give the hours"], id="days-alone"),
        pytest.param(
            ["--region", "US-FL", "--no-calls-on", "sunday"], ["sunday", "weekday"], id="day"
        ),
        pytest.param(["--region", "US-FL"], ["say what the rule allows"], id="nothing"),
        pytest.param(
            ["--region", "US-FL", "--max", "3", "--within", "24h", "--per", "task"],
            ["task", "person or number"],
            id="per",
        ),
        pytest.param(
            ["--region", "US-FL", "--max", "0", "--within", "24h", "--per", "person"],
            ["max"],
            id="max",
        ),
    ],
)
def test_a_refused_rule_is_one_line_and_stores_nothing(runner, acme, args, words):
    assert_fails(run(runner, "add", *TENANT, *args), *words)
    assert _count(CallingRule) == 0 and _count(ContactLimit) == 0


def test_removing_an_unknown_rule_is_refused(runner, acme):
    assert_fails(run(runner, "remove", *TENANT, "99"), "no calling rule 99")


def test_the_us_pack_loads_once_and_every_row_is_a_rule_with_its_source(runner, acme):
    with pack.PACK.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert rows and all(row["source"] for row in rows)
    said = ok(run(runner, "load-us", *TENANT))
    assert said.splitlines()[-1] == (
        f"Loaded the US pack (checked {pack.CHECKED}): {len(rows)} rules added, 0 already there."
    )
    assert _count(CallingRule) == len(rows)
    regions = {rule.region for rule in db.session.scalars(select(CallingRule))}
    assert {"US-FL", "US-OK", "US-MD", "US-TX"} <= regions
    again = ok(run(runner, "load-us", *TENANT))
    assert again.strip() == (
        f"Loaded the US pack (checked {pack.CHECKED}): 0 rules added, {len(rows)} already there."
    )
    assert _count(CallingRule) == len(rows)
    florida = [r for r in db.session.scalars(select(CallingRule)) if r.region == "US-FL"]
    assert [(r.opens_at, r.closes_at, r.limit.max_count) for r in florida] == [(480, 1200, 3)]


def test_a_rule_with_the_limit_another_rule_of_its_region_has_shares_it(runner, acme):
    limit = ["--max", "3", "--within", "24h", "--per", "person"]
    ok(run(runner, "add", *TENANT, "--region", "US-FL", "--hours", "08:00-20:00", *limit))
    ok(run(runner, "add", *TENANT, "--region", "US-FL", "--no-calls-on", "sun", *limit))
    first, second = db.session.scalars(select(CallingRule).order_by(CallingRule.id)).all()
    assert first.limit_id == second.limit_id and _count(ContactLimit) == 1
    ok(run(runner, "remove", *TENANT, str(first.id)))
    assert _count(ContactLimit) == 1  # the other rule keeps it
    ok(run(runner, "remove", *TENANT, str(second.id)))
    assert _count(ContactLimit) == 0
