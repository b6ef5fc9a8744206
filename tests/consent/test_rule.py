"""The consent ledger and the contact rule NO_CONSENT, on a controlled clock: a number whose
campaign requires consent is dialled only while one is in force; a revocation holds it back
at once in every campaign; a consent given for one campaign counts there alone; the doors
(delivery, startCall, the explanation, the agent view, the panel) agree."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import AuditRecord, Event
from app.services.consent import ledger
from app.services.consent import requirements as consent_required
from app.services.contact_rules import engine
from app.services.delivery import closing, progress
from app.services.dialer import placing
from app.services.errors import InvalidInput, NotAvailable
from app.services.work_codes import groups as work_codes
from app.services.work_codes.groups import CodeSettings
from tests.calls.calls_support import MOBILE, PHONE, add_phones, as_agent
from tests.conftest import SETUP
from tests.delivery.delivery_support import (
    available,
    offer,
    settings,  # noqa: F401 - short desk timings
)

H = timedelta(hours=1)
NOON = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
MARCH = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def _require_all(campaign) -> None:
    consent_required.set_requirement(campaign, "all", actor=SETUP)
    db.session.commit()


def _rules(task, now=NOON) -> list[str]:
    db.session.expire_all()
    return engine.explain(task, now).rules


def test_a_campaign_requiring_consent_dials_a_number_only_while_one_is_in_force(renewals, acme):
    task = add_phones(renewals, "c1")
    _require_all(renewals)
    assert _rules(task) == [engine.NO_CONSENT]
    [number] = engine.explain(task, NOON).numbers
    assert number.sentence() == (
        f"NO_CONSENT: no consent to call {PHONE} is on record; the campaign requires consent "
        "for its Phone"
    )

    ledger.give(acme, [PHONE], actor=SETUP, at=MARCH, source="web form", now=NOON - H)
    db.session.commit()
    assert _rules(task) == []
    # Before the moment it was given, it was not in force.
    assert _rules(task, MARCH - H) == [engine.NO_CONSENT]

    ledger.revoke(acme, [PHONE], actor=SETUP, how="asked on a call", now=NOON)
    db.session.commit()
    assert _rules(task, NOON) == [engine.NO_CONSENT]
    [number] = engine.explain(task, NOON).numbers
    assert "was revoked at 2026-11-25 12:00 UTC (asked on a call)" in number.sentence()
    # A consent given again after the revocation is in force again.
    ledger.give(acme, [PHONE], actor=SETUP, now=NOON + H)
    db.session.commit()
    assert _rules(task, NOON + H) == []


def test_a_revocation_holds_the_number_back_at_once_in_every_campaign(renewals, winback, acme):
    first, second = add_phones(renewals, "c1"), add_phones(winback, "c2")
    _require_all(renewals)
    _require_all(winback)
    ledger.give(acme, [PHONE], actor=SETUP, at=MARCH, now=NOON - H)
    db.session.commit()
    assert _rules(first) == [] and _rules(second) == []
    ledger.revoke(acme, [PHONE], actor=SETUP, now=NOON)
    db.session.commit()
    assert _rules(first) == [engine.NO_CONSENT] and _rules(second) == [engine.NO_CONSENT]


def test_a_consent_given_for_one_campaign_counts_there_alone(renewals, winback, acme):
    first, second = add_phones(renewals, "c1"), add_phones(winback, "c2")
    _require_all(renewals)
    _require_all(winback)
    ledger.give(acme, [PHONE], actor=SETUP, campaign=winback, purpose="win-back offers", now=NOON)
    db.session.commit()
    assert _rules(first) == [engine.NO_CONSENT]
    assert _rules(second) == []


def test_a_revocation_at_the_moment_of_a_consent_wins(renewals, acme):
    task = add_phones(renewals, "c1")
    _require_all(renewals)
    ledger.revoke(acme, [PHONE], actor=SETUP, at=MARCH, now=NOON)
    ledger.give(acme, [PHONE], actor=SETUP, at=MARCH, now=NOON)
    db.session.commit()
    assert _rules(task) == [engine.NO_CONSENT]
    history = ledger.history(acme, PHONE)
    assert [entry.action for entry in history] == ["given", "revoked"]
    assert ledger.standing(history) == []


def test_a_campaign_without_the_requirement_dials_without_consent(renewals, acme):
    task = add_phones(renewals, "c1")
    ledger.revoke(acme, [PHONE], actor=SETUP, now=NOON - H)
    db.session.commit()
    assert _rules(task) == []


def test_keys_require_consent_for_the_numbers_under_them_only(renewals, ann, acme):
    task = add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE)
    consent_required.set_requirement(renewals, None, ["mobile_phone "], actor=SETUP)
    db.session.commit()
    found = engine.explain(task, NOON)
    assert found.callable_now
    assert [(n.key, n.callable) for n in found.numbers] == [
        ("Phone", True),
        ("Mobile_Phone", False),
    ]
    assert found.numbers[1].reasons[0].rule == engine.NO_CONSENT
    available(ann, NOON)
    assert offer(ann, NOON).task.id == task.id
    assert placing.check_callable(ann, task, None, NOON) == ("Phone", PHONE)
    with pytest.raises(NotAvailable) as refused:
        placing.check_callable(ann, task, "Mobile_Phone", NOON)
    assert refused.value.rule == engine.NO_CONSENT


def test_delivery_and_the_panel_hold_back_a_task_without_consent(renewals, ann, acme):
    add_phones(renewals, "c1")
    _require_all(renewals)
    available(ann, NOON)
    assert offer(ann, NOON).task is None
    counted = progress.campaign_progress(renewals, NOON)
    assert {why.key: why.count for why in counted.kept_back_by}["consent"] == 1
    ledger.give(acme, [PHONE], actor=SETUP, now=NOON)
    db.session.commit()
    assert offer(ann, NOON).task is not None


def test_each_record_leaves_its_audit_record_and_event(acme, renewals):
    ledger.give(
        acme,
        [PHONE, MOBILE],
        actor=SETUP,
        at=MARCH,
        source="signed form",
        campaign=renewals,
        purpose="renewals",
        now=NOON,
    )
    ledger.revoke(acme, [PHONE], actor=SETUP, how="letter", now=NOON)
    db.session.commit()
    audits = db.session.scalars(
        select(AuditRecord).where(AuditRecord.action.like("consent.%")).order_by(AuditRecord.id)
    ).all()
    assert [a.action for a in audits] == ["consent.given", "consent.given", "consent.revoked"]
    events = db.session.scalars(
        select(Event).where(Event.type.like("consent.%")).order_by(Event.id)
    ).all()
    assert [(e.type, e.subject) for e in events] == [
        ("consent.given", PHONE),
        ("consent.given", MOBILE),
        ("consent.revoked", PHONE),
    ]
    given = events[0].payload["data"]["consent"]
    assert given == {
        "number": PHONE,
        "action": "given",
        "at": "2026-03-01 10:00:00.000",
        "source": "signed form",
        "campaign": "Renewals",
        "purpose": "renewals",
    }
    revoked = events[2].payload["data"]["consent"]
    assert revoked["how"] == "letter" and revoked["action"] == "revoked"


@pytest.mark.parametrize(
    ("numbers", "at", "words"),
    [
        pytest.param(["4155550100"], None, "E.164", id="not-e164"),
        pytest.param([], None, "at least one number", id="none"),
        pytest.param([PHONE], NOON + H, "in the future", id="future"),
        pytest.param([PHONE], datetime(2026, 3, 1, 10), "zone", id="no-zone"),
    ],
)
def test_bad_input_records_nothing(acme, numbers, at, words):
    with pytest.raises(InvalidInput) as refused:
        ledger.give(acme, [*numbers, MOBILE] if numbers else [], actor=SETUP, at=at, now=NOON)
    assert words in refused.value.message
    db.session.rollback()
    assert ledger.history(acme, MOBILE) == []


def test_a_work_code_revokes_the_consent_of_the_task_s_numbers(renewals, winback, ann, acme):
    group = work_codes.create_group(acme, "Result", actor=SETUP)
    work_codes.add_code(
        group, "Stop calling", CodeSettings(outcome="REMOVE", revokes_consent=True), actor=SETUP
    )
    work_codes.set_queue_groups(acme, "Sales", ["Result"], actor=SETUP)
    _require_all(winback)
    ledger.give(acme, [PHONE], actor=SETUP, at=MARCH, now=NOON - H)
    db.session.commit()
    task, other = add_phones(renewals, "c1"), add_phones(winback, "c2")
    assert _rules(other) == []
    available(ann, NOON)
    assert offer(ann, NOON).task.id == task.id
    closing.close_task(
        ann,
        task.record_id,
        work_codes=[("Result", "Stop calling")],
        actor=as_agent(ann),
        now=NOON + H,
    )
    db.session.commit()
    [revoked] = [e for e in ledger.history(acme, PHONE) if e.action == "revoked"]
    assert (revoked.at, revoked.source, revoked.recorded_by) == (
        NOON + H,
        ledger.BY_WORK_CODE,
        "agent:ann",
    )
    assert _rules(other, NOON + 2 * H) == [engine.NO_CONSENT]
