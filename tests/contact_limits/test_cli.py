"""`flask contact-limit add|list|remove` and `flask tenant set-person-key`: exact output,
one-line errors with a non-zero exit and nothing added, an audit record and an event for
every change."""

from __future__ import annotations

import pytest

from app.extensions import db
from tests.cli.test_commands import assert_fails
from tests.contact_limits.limits_support import events, stored_limits, trail

TENANT = ["Acme", "prod"]


def run(runner, *args: str):
    return runner.invoke(args=["contact-limit", *args])


def ok(result) -> str:
    assert result.exit_code == 0, result.output
    return result.output


def test_add_prints_the_limit_with_its_id_and_list_shows_one_line_each(runner, acme):
    assert ok(run(runner, "list", *TENANT)) == "no contact limits\n"
    said = ok(run(runner, "add", *TENANT, "--max", "7", "--within", "7d", "--per", "person"))
    (first,) = stored_limits()
    assert said == (
        f"Added contact limit {first.id} at most 7 calls within 7 days per person, "
        "across every campaign\n"
    )
    ok(run(runner, "add", *TENANT, "--max", "1", "--within", "7d", "--per", "person",
           "--counting", "contacts"))  # fmt: skip
    ok(run(runner, "add", *TENANT, "--max", "3", "--within", "24h", "--per", "number",
           "--campaign", "Renewals"))  # fmt: skip
    ok(run(runner, "add", *TENANT, "--max", "2", "--within", "90m", "--per", "task"))
    ids = [limit.id for limit in stored_limits()]
    assert ok(run(runner, "list", *TENANT)).splitlines() == [
        f"{ids[0]} at most 7 calls within 7 days per person, across every campaign",
        f"{ids[1]} at most 1 contact within 7 days per person, across every campaign",
        f"{ids[2]} at most 3 calls within 24 hours per number, in campaign Renewals",
        f"{ids[3]} at most 2 calls within 90 minutes per task, across every campaign",
    ]


def test_every_change_is_in_the_trail_with_its_event(runner, acme):
    ok(run(runner, "add", *TENANT, "--max", "3", "--within", "24h", "--per", "number"))
    (limit,) = stored_limits()
    (added,) = trail("contact_limit.added")
    assert (added.actor_kind, added.entity_id, added.tenant_id) == (
        "operator",
        str(limit.id),
        acme.id,
    )
    assert added.after["per"] == "number" and added.after["max"] == 3
    assert events("contact_limit.added")[0]["limit"]["withinMinutes"] == 24 * 60
    said = ok(run(runner, "remove", *TENANT, str(limit.id)))
    assert said == (
        f"Removed contact limit {limit.id} "
        "(at most 3 calls within 24 hours per number, across every campaign)\n"
    )
    assert stored_limits() == []
    assert trail("contact_limit.removed")[0].before["id"] == limit.id
    assert len(events("contact_limit.removed")) == 1


@pytest.mark.parametrize(
    ("options", "words"),
    [
        pytest.param(
            ["--max", "0", "--within", "7d", "--per", "person"], ["max", "1 to 1,000"], id="count-0"
        ),  # noqa: E501
        pytest.param(
            ["--max", "1001", "--within", "7d", "--per", "person"], ["max"], id="count-1001"
        ),  # noqa: E501
        pytest.param(
            ["--max", "many", "--within", "7d", "--per", "person"], ["max", "many"], id="count-word"
        ),  # noqa: E501
        pytest.param(
            ["--max", "7", "--within", "", "--per", "person"],
            ["within", "30m"],
            id="empty-duration",
        ),  # noqa: E501
        pytest.param(
            ["--max", "7", "--within", "91d", "--per", "person"],
            ["within", "90 days"],
            id="over-long",
        ),  # noqa: E501
        pytest.param(
            ["--max", "7", "--within", "0m", "--per", "person"], ["within"], id="zero-duration"
        ),  # noqa: E501
        pytest.param(
            ["--max", "7", "--within", "7 weeks", "--per", "person"], ["within"], id="bad-unit"
        ),  # noqa: E501
        pytest.param(
            ["--max", "7", "--within", "7d", "--per", "household"],
            ["per", "number, person, task"],
            id="unknown-per",
        ),  # noqa: E501
        pytest.param(
            ["--max", "7", "--within", "7d", "--per", "person", "--counting", "texts"],
            ["counting"],
            id="unknown-counting",
        ),  # noqa: E501
        pytest.param(
            ["--max", "7", "--within", "7d", "--per", "person", "--campaign", "Nope"],
            ["Nope"],
            id="unknown-campaign",
        ),  # noqa: E501
    ],
)
def test_bad_input_is_one_error_line_and_nothing_added(runner, acme, options, words):
    assert_fails(run(runner, "add", *TENANT, *options), *words)
    assert stored_limits() == []
    assert trail("contact_limit.added") == []


def test_the_same_limit_twice_is_refused(runner, acme):
    ok(run(runner, "add", *TENANT, "--max", "3", "--within", "24h", "--per", "number"))
    assert_fails(
        run(runner, "add", *TENANT, "--max", "3", "--within", "1d", "--per", "number"), "same"
    )  # noqa: E501
    assert len(stored_limits()) == 1


def test_remove_of_an_unknown_id_or_another_tenants_limit_fails(runner, acme):
    assert_fails(run(runner, "remove", *TENANT, "42"), "42")
    assert_fails(run(runner, "list", "Acme", "test"), "Acme/test")


def test_set_person_key_names_the_data_item_of_a_person(runner, acme):
    said = runner.invoke(args=["tenant", "set-person-key", *TENANT, "AccountNumber"])
    assert ok(said) == "Tenant Acme/prod: a person is now named by data item 'AccountNumber'.\n"
    db.session.expire_all()
    assert acme.person_key == "AccountNumber"
    (change,) = trail("tenant.person_key_set")
    assert (change.before, change.after) == ({"personKey": None}, {"personKey": "AccountNumber"})
    assert events("tenant.person_key_set")[0]["personKey"] == "AccountNumber"
    again = runner.invoke(args=["tenant", "set-person-key", *TENANT, "AccountNumber"])
    assert "already" in ok(again) and len(trail("tenant.person_key_set")) == 1
    cleared = runner.invoke(args=["tenant", "set-person-key", *TENANT, ""])
    assert ok(cleared) == "Tenant Acme/prod: a person is now named by its clientId.\n"
