"""`flask consent give|revoke|import|show` and `flask campaign set-consent`: exact output,
one-line errors with a non-zero exit, an import all or nothing with its refused rows."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import AuditRecord
from app.services.actors import Actor
from app.services.campaigns.catalogue import find_campaign
from app.services.consent import ledger
from app.services.work_codes import groups as work_codes
from tests.cli.test_commands import assert_fails
from tests.conftest import SETUP

TENANT = ["Acme", "prod"]
PHONE, MOBILE = "+14155550100", "+14155550199"


def ok(result) -> str:
    assert result.exit_code == 0, result.output
    return result.output


def consent(runner, *args: str):
    return runner.invoke(args=["consent", *args])


def test_give_revoke_and_show_a_number_s_history(runner, acme):
    said = ok(
        consent(
            runner,
            "give",
            *TENANT,
            PHONE,
            MOBILE,
            "--at",
            "2026-03-01T10:00:00Z",
            "--source",
            "web form",
        )
    )
    assert said.strip() == "Recorded consent given for 2 numbers of Acme/prod, for every campaign."
    said = ok(
        consent(
            runner,
            "give",
            *TENANT,
            PHONE,
            "--campaign",
            "Renewals",
            "--purpose",
            "offers",
            "--at",
            "2026-04-01T09:00:00+02:00",
        )
    )
    assert said.strip().endswith("for campaign 'Renewals'.")
    said = ok(consent(runner, "revoke", *TENANT, MOBILE, "--source", "by phone"))
    assert said.strip() == "Recorded consent revoked for 1 numbers of Acme/prod, in every campaign."

    shown = consent(runner, "show", *TENANT, PHONE)
    ok(shown)
    first, second = (line.split("\t") for line in shown.stdout.splitlines())
    assert first[:5] == ["2026-03-01 10:00:00 UTC", "given", "web form", "every campaign", "—"]
    assert first[5] == Actor.operator().describe()
    assert second[:5] == ["2026-04-01 07:00:00 UTC", "given", "—", "campaign Renewals", "offers"]
    assert shown.stderr.strip() == (
        f"{PHONE}: 2 records; consent in force for every campaign, campaign Renewals"
    )
    shown = consent(runner, "show", *TENANT, MOBILE)
    ok(shown)
    assert shown.stdout.splitlines()[1].split("\t")[1:3] == ["revoked", "by phone"]
    assert shown.stderr.strip().endswith("2 records; no consent in force")
    shown = consent(runner, "show", *TENANT, "+14155550111")
    assert (
        ok(shown)
        and shown.stdout == ""
        and shown.stderr.strip().endswith("0 records; no consent on record")
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param(["give", *TENANT, PHONE, "415"], ["415", "E.164"], id="bad-number"),
        pytest.param(["give", *TENANT, PHONE, "--at", "yesterday"], ["yesterday", "ISO"], id="at"),
        pytest.param(["give", *TENANT, PHONE, "--at", "2026-03-01T10:00"], ["zone"], id="zone"),
        pytest.param(
            ["give", *TENANT, PHONE, "--at", "2999-01-01T00:00Z"], ["future"], id="future"
        ),
        pytest.param(["give", *TENANT, PHONE, "--campaign", "Nope"], ["Nope"], id="campaign"),
        pytest.param(["revoke", "Acme", "dev", PHONE], ["Acme", "dev"], id="tenant"),
    ],
)
def test_bad_input_is_one_line_and_records_nothing(runner, acme, args, words):
    assert_fails(consent(runner, *args), *words)
    db.session.expire_all()
    assert ledger.history(acme, PHONE) == []


CSV = f"""number,action,at,source,campaign,purpose
{PHONE},given,2026-03-01T10:00:00Z,web form,,
'{MOBILE},given,,signed form,Renewals,renewal offers
{PHONE},revoked,2026-05-01T10:00:00Z,letter,,
"""


def test_an_import_records_every_row(runner, acme, tmp_path):
    path = tmp_path / "consent.csv"
    path.write_text(CSV)
    said = ok(consent(runner, "import", *TENANT, str(path)))
    assert said.strip() == "3 rows: 2 given, 1 revoked"
    assert [e.action for e in ledger.history(acme, PHONE)] == ["given", "revoked"]
    [mobile] = ledger.history(acme, MOBILE)
    assert (mobile.campaign.name, mobile.purpose, mobile.source) == (
        "Renewals",
        "renewal offers",
        "signed form",
    )
    summary = db.session.query(AuditRecord).filter_by(action="consent.imported").one()
    assert summary.after == {"file": "consent.csv", "given": 2, "revoked": 1}


def test_an_import_with_a_refused_row_records_nothing_and_names_every_refused_row(
    runner, acme, tmp_path
):
    path = tmp_path / "consent.csv"
    path.write_text(
        CSV
        + "4155550100,given,,,,\n+14155550100,maybe,,,,\n"
        + f"{PHONE},revoked,,letter,Renewals,\n"
    )
    result = consent(runner, "import", *TENANT, str(path))
    assert result.exit_code != 0
    lines = result.output.splitlines()
    assert lines[0] == "row 5: refused: '4155550100' is not an E.164 number (+ then 2 to 15 digits)"
    assert lines[1] == "row 6: refused: the action 'maybe' is not given or revoked"
    assert lines[2].startswith("row 7: refused: a revocation counts for every campaign")
    assert "3 rows refused: nothing recorded" in result.output
    db.session.expire_all()
    assert ledger.history(acme, PHONE) == [] and ledger.history(acme, MOBILE) == []


def test_set_consent_requires_all_keys_or_none(runner, acme):
    run = runner.invoke
    said = ok(run(args=["campaign", "set-consent", *TENANT, "Renewals", "--require", "all"]))
    assert said.strip() == "Campaign 'Renewals' dials every number only with a consent in force."
    said = ok(
        run(
            args=[
                "campaign",
                "set-consent",
                *TENANT,
                "Renewals",
                "--require-keys",
                "Mobile Phone, Cell",
            ]
        )
    )
    assert said.strip() == (
        "Campaign 'Renewals' dials the numbers under Mobile Phone, Cell only with a consent"
        " in force."
    )
    db.session.expire_all()
    campaign = find_campaign(acme, "Renewals")
    assert (campaign.consent_required, campaign.consent_keys) == ("keys", "Mobile Phone, Cell")
    said = ok(run(args=["campaign", "set-consent", *TENANT, "Renewals", "--require", "none"]))
    assert said.strip() == "Campaign 'Renewals' dials its numbers without asking for consent."
    assert_fails(run(args=["campaign", "set-consent", *TENANT, "Renewals"]), "--require")
    assert_fails(
        run(
            args=[
                "campaign",
                "set-consent",
                *TENANT,
                "Renewals",
                "--require",
                "all",
                "--require-keys",
                "Cell",
            ]
        ),
        "--require",
    )


def test_a_work_code_may_revoke_consent(runner, acme):
    work_codes.create_group(acme, "Result", actor=SETUP)
    db.session.commit()
    said = ok(
        runner.invoke(
            args=[
                "work-codes",
                "add",
                *TENANT,
                "Result",
                "Stop",
                "--outcome",
                "REMOVE",
                "--revokes-consent",
            ]
        )
    )
    assert "revokes consent" in said
    db.session.expire_all()
    code = work_codes.get_code(work_codes.get_group(acme, "Result"), "Stop")
    assert code.revokes_consent
