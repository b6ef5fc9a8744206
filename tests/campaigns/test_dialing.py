"""A campaign's dialling settings: the service's rules, its trail and event, the reader the
desk uses, and `campaign set-dialing`."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Campaign, Event
from app.services.campaigns import dialing
from app.services.campaigns.dialing import DialSettings, dial_settings, set_dialing
from app.services.errors import InvalidInput
from app.services.fields import CAMPAIGN_COUNTDOWN_SECONDS
from app.services.tenants.setup import set_instance
from tests.cli.test_commands import assert_fails
from tests.conftest import SETUP

INSTANCE = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
QUEUE_ARN = f"arn:aws:connect:eu-west-2:123456789012:instance/{INSTANCE}/queue/q-1"
FLOW = "12345678-aaaa-bbbb-cccc-123456789012"


def stored(campaign: Campaign) -> tuple:
    db.session.expire_all()
    found = db.session.get(Campaign, campaign.id)
    return (
        found.auto_dial_seconds,
        found.can_skip,
        found.call_placement,
        found.connect_queue_arn,
        found.connect_contact_flow_id,
        found.connect_caller_id,
    )


DEFAULTS = (None, True, "desk", None, None, None)


def trail() -> list[tuple]:
    rows = db.session.scalars(
        select(AuditRecord).filter_by(action="campaign.updated").order_by(AuditRecord.id)
    )
    return [(row.before, row.after, row.actor_kind) for row in rows]


def events() -> list[dict]:
    rows = db.session.scalars(select(Event).where(Event.type == "campaign.updated"))
    return [row.payload["data"] for row in rows]


@pytest.fixture
def on_connect(acme):
    """Acme's instance is Amazon Connect (eu-west-2), given as its ARN."""
    arn = f"arn:aws:connect:eu-west-2:123456789012:instance/{INSTANCE}"
    set_instance(acme, "amazon-connect", arn, "eu-west-2", actor=SETUP)
    db.session.commit()
    return acme


# --- the service ------------------------------------------------------------------------


def test_a_countdown_and_no_skipping_are_recorded_with_an_event(renewals):
    changed = set_dialing(renewals, auto_dial_seconds=20, can_skip=False, actor=SETUP)
    db.session.commit()
    assert changed == ["autoDialSeconds", "canSkip"]
    assert stored(renewals) == (20, False, "desk", None, None, None)
    before = {"autoDialSeconds": None, "canSkip": True}
    after = {"autoDialSeconds": 20, "canSkip": False}
    assert trail() == [(before, after, "operator")]
    [data] = events()
    assert data["previous"] == before
    assert data["dialing"]["autoDialSeconds"] == 20 and data["dialing"]["canSkip"] is False


def test_the_same_settings_again_change_and_record_nothing(renewals):
    set_dialing(renewals, auto_dial_seconds=30, can_skip=True, actor=SETUP)
    db.session.commit()
    assert set_dialing(renewals, auto_dial_seconds=30, can_skip=True, actor=SETUP) == []
    db.session.commit()
    assert len(trail()) == 1 and len(events()) == 1


@pytest.mark.parametrize("seconds", [5, 300, None])
def test_the_countdown_takes_5_to_300_seconds_or_none(renewals, seconds):
    set_dialing(renewals, auto_dial_seconds=30, can_skip=True, actor=SETUP)
    set_dialing(renewals, auto_dial_seconds=seconds, can_skip=True, actor=SETUP)
    db.session.commit()
    assert stored(renewals)[0] == seconds


@pytest.mark.parametrize("seconds", [4, 0, -5, 301, True, 20.5])
def test_a_countdown_outside_5_to_300_is_refused_by_its_field(renewals, seconds):
    with pytest.raises(InvalidInput, match="auto-dial seconds must be 5 to 300") as refused:
        set_dialing(renewals, auto_dial_seconds=seconds, can_skip=False, actor=SETUP)
    assert refused.value.field == CAMPAIGN_COUNTDOWN_SECONDS
    db.session.rollback()
    assert stored(renewals) == DEFAULTS
    assert trail() == []


@pytest.mark.parametrize(
    ("kind", "seconds", "can_skip", "wanted"),
    [
        ("preview", None, True, DialSettings("PREVIEW", None, True, "desk")),
        ("preview", 45, True, DialSettings("PREVIEW", 45, True, "desk")),
        ("progressive", 20, False, DialSettings("PROGRESSIVE", 20, False, "desk")),
        ("progressive", None, False, DialSettings("PROGRESSIVE", None, False, "desk")),
    ],
)
def test_the_desk_reads_the_mode_from_the_type_and_the_settings(
    renewals, kind, seconds, can_skip, wanted
):
    renewals.type = kind
    set_dialing(renewals, auto_dial_seconds=seconds, can_skip=can_skip, actor=SETUP)
    assert dial_settings(renewals) == wanted


def test_a_contact_flow_placement_with_its_flow_queue_and_caller(on_connect, renewals):
    set_dialing(
        renewals,
        auto_dial_seconds=None,
        can_skip=True,
        call_placement="contact-flow",
        queue_arn=f" {QUEUE_ARN} ",
        contact_flow_id=FLOW,
        caller_id="+442071838750",
        actor=SETUP,
    )
    db.session.commit()
    assert stored(renewals) == (None, True, "contact-flow", QUEUE_ARN, FLOW, "+442071838750")
    assert dial_settings(renewals).queue_arn == QUEUE_ARN
    # Settings left out stay; an empty value removes one.
    set_dialing(renewals, auto_dial_seconds=15, can_skip=True, caller_id="", actor=SETUP)
    db.session.commit()
    assert stored(renewals) == (15, True, "contact-flow", QUEUE_ARN, FLOW, None)


CONNECT_REFUSALS = [
    ({"call_placement": "phone"}, "call placement", "'phone' is not one of desk, contact-flow"),
    ({"queue_arn": "arn:aws:connect:eu-west-2:1:queue/x"}, "queue ARN", "must look like"),
    (
        {"queue_arn": QUEUE_ARN.replace("eu-west-2", "us-east-1")},
        "queue ARN",
        "not the instance's region eu-west-2",
    ),
    ({"queue_arn": QUEUE_ARN.replace(INSTANCE, "other-instance")}, "queue ARN", "not the tenant's"),
    ({"contact_flow_id": "flow one"}, "contact flow id", "must be the flow's id"),
    ({"caller_id": "020 7183 8750"}, "caller id", "must be an E.164 number"),
    ({"call_placement": "contact-flow", "queue_arn": QUEUE_ARN}, "contact flow id", "required"),
    (
        {"call_placement": "contact-flow", "contact_flow_id": FLOW},
        "queue ARN",
        "or a caller id is required",
    ),
]


@pytest.mark.parametrize(("given", "field", "words"), CONNECT_REFUSALS)
def test_bad_amazon_connect_settings_are_refused_by_field(
    on_connect, renewals, given, field, words
):
    with pytest.raises(InvalidInput, match=words) as refused:
        set_dialing(renewals, auto_dial_seconds=None, can_skip=True, actor=SETUP, **given)
    assert str(refused.value.field) == field
    db.session.rollback()
    assert stored(renewals) == DEFAULTS


@pytest.mark.parametrize(
    ("given", "field"),
    [
        (
            {"call_placement": "contact-flow", "contact_flow_id": FLOW, "queue_arn": QUEUE_ARN},
            "call placement",
        ),
        ({"queue_arn": QUEUE_ARN}, "queue ARN"),
        ({"contact_flow_id": FLOW}, "contact flow id"),
        ({"caller_id": "+14155550100"}, "caller id"),
    ],
)
def test_amazon_connect_settings_need_a_connect_tenant(renewals, given, field):
    with pytest.raises(InvalidInput, match="Amazon Connect") as refused:
        set_dialing(renewals, auto_dial_seconds=None, can_skip=True, actor=SETUP, **given)
    assert str(refused.value.field) == field
    db.session.rollback()
    assert stored(renewals) == DEFAULTS


def test_settings_kept_from_connect_do_not_block_a_change_after_leaving_it(on_connect, renewals):
    set_dialing(renewals, auto_dial_seconds=None, can_skip=True, queue_arn=QUEUE_ARN, actor=SETUP)
    set_instance(on_connect, "local", actor=SETUP)
    set_dialing(renewals, auto_dial_seconds=10, can_skip=True, actor=SETUP)
    db.session.commit()
    assert stored(renewals)[:4] == (10, True, "desk", QUEUE_ARN)


# --- the CLI ----------------------------------------------------------------------------


def cli(runner, *args: str):
    return runner.invoke(args=["campaign", "set-dialing", "Acme", "prod", *args])


def test_the_cli_sets_the_countdown_and_no_skipping_as_the_issue_names_them(runner, renewals):
    result = cli(runner, "Renewals", "--auto-dial-seconds", "20", "--no-skip")
    assert result.exit_code == 0, result.output
    assert "dials after 20 s, no skipping, placed by the desk" in result.output
    assert stored(renewals)[:2] == (20, False)
    assert trail()[0][2] == "operator"
    # What is not given stays; --skip and --no-auto-dial undo.
    result = cli(runner, "Renewals", "--auto-dial-seconds", "30")
    assert stored(renewals)[:2] == (30, False)
    result = cli(runner, "Renewals", "--no-auto-dial", "--skip")
    assert result.exit_code == 0, result.output
    assert "the agent dials, skipping allowed" in result.output
    assert stored(renewals)[:2] == (None, True)
    result = cli(runner, "Renewals", "--skip")
    assert "nothing changed" in result.output


def test_the_cli_sets_a_contact_flow_placement(runner, on_connect, renewals):
    result = cli(
        runner,
        "Renewals",
        "--placement",
        "contact-flow",
        "--queue-arn",
        QUEUE_ARN,
        "--contact-flow-id",
        FLOW,
        "--caller-id",
        "+442071838750",
    )
    assert result.exit_code == 0, result.output
    assert "placed by the contact flow" in result.output
    assert stored(renewals)[2:] == ("contact-flow", QUEUE_ARN, FLOW, "+442071838750")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--auto-dial-seconds", "4"], ["auto-dial seconds must be 5 to 300"]),
        (["--auto-dial-seconds", "-5"], ["auto-dial seconds must be 5 to 300"]),
        (["--auto-dial-seconds", "soon"], ["'soon'", "integer"]),
        (["--auto-dial-seconds", "20", "--no-auto-dial"], ["--no-auto-dial"]),
        (["--placement", "contact-flow"], ["Amazon Connect"]),
        (["--caller-id", "+14155550100"], ["caller id is only for", "Amazon Connect"]),
    ],
)
def test_the_cli_refuses_bad_settings_in_one_line(runner, renewals, args, words):
    assert_fails(cli(runner, "Renewals", *args), *words)
    assert stored(renewals) == DEFAULTS


def test_the_cli_names_an_unknown_campaign(runner, renewals):
    assert_fails(cli(runner, "Nope", "--no-skip"), "campaign 'Nope'")


def test_the_campaign_list_shows_the_dialling(runner, renewals):
    set_dialing(renewals, auto_dial_seconds=25, can_skip=False, actor=SETUP)
    renewals.type = "progressive"
    db.session.commit()
    result = runner.invoke(args=["campaign", "list", "Acme", "prod"])
    assert "Renewals: progressive" in result.output
    assert "dialling: progressive: the desk dials after 25 s, no skipping" in result.output
    assert dialing.summary(renewals) in result.output


@pytest.mark.parametrize(
    ("campaign_type", "seconds", "said"),
    [
        ("preview", None, "preview: the agent dials"),
        ("preview", 20, "preview with a countdown: the desk dials after 20 s"),
        ("progressive", 20, "progressive: the desk dials after 20 s"),
        ("progressive", None, "progressive without a countdown (set one): the agent dials"),
    ],
)
def test_the_summary_says_who_dials_as_the_desk_does(renewals, campaign_type, seconds, said):
    # Never "progressive, the agent dials": progressive means the desk dials by itself.
    renewals.type = campaign_type
    renewals.auto_dial_seconds = seconds
    assert dialing.summary(renewals).startswith(said + ", ")
