"""The campaign's default country through the CLI: set, cleared, refused in one line with
nothing changed, and in the audit trail with its event."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Campaign


def cli(runner, *args):
    return runner.invoke(args=["campaign", "set-country", *args])


def country(campaign: Campaign) -> str | None:
    db.session.expire_all()
    return db.session.get(Campaign, campaign.id).default_country


def test_the_cli_sets_and_clears_the_default_country(runner, renewals):
    result = cli(runner, "Acme", "prod", "Renewals", "us")
    assert result.exit_code == 0, result.output
    assert "as US numbers, stored in E.164" in result.output
    assert country(renewals) == "US"
    result = cli(runner, "Acme", "prod", "Renewals", "--none")
    assert result.exit_code == 0, result.output
    assert "E.164 numbers only" in result.output
    assert country(renewals) is None
    changes = [
        (record.before, record.after)
        for record in db.session.scalars(
            select(AuditRecord)
            .filter_by(action="campaign.default_country_set")
            .order_by(AuditRecord.id)
        )
    ]
    assert changes == [
        ({"defaultCountry": None}, {"defaultCountry": "US"}),
        ({"defaultCountry": "US"}, {"defaultCountry": None}),
    ]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["XX"], "'XX' is not a country code"),
        (["USA"], "'USA' is not a country code"),
        ([], "CC or --none"),
        (["US", "--none"], "CC or --none"),
    ],
)
def test_the_cli_refuses_a_bad_country_in_one_line(runner, renewals, args, words):
    result = cli(runner, "Acme", "prod", "Renewals", *args)
    assert result.exit_code != 0
    [line] = result.output.strip().splitlines()
    assert line.startswith("Error: ") and words in line
    assert country(renewals) is None
