"""The evidence kept with every call startCall allows (a controlled clock): the local time
in the task's zone (daylight saving included), the window, the queue's hours, each limit's
count and maximum, the consent relied on; shown by taskAttempts, never changed afterwards,
and downloaded by supervisors as CSV with every cell guarded."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from app.desk.api import call_answer
from app.extensions import db
from app.models import Call
from app.services.calling_rules import rules as calling_rules
from app.services.calling_rules.rules import NewRule
from app.services.consent import ledger as consent
from app.services.consent import requirements as consent_required
from app.services.contact_limits import limits as contact_limits
from app.services.delivery import closing
from app.services.dialer import call_events, placing
from app.services.schedules import calling_windows
from tests.admin.conftest import page
from tests.calls.calls_support import PHONE, S, add_phones, as_agent
from tests.conftest import SETUP
from tests.contact_limits.limits_support import add_limit
from tests.delivery.delivery_support import available, offer

WINTER = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)  # 07:00 in New York (EST, -05:00)
SUMMER = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)  # 08:00 in New York (EDT, -04:00)


def _call(agent, task, now) -> Call:
    available(agent, now - 10 * S)
    assert offer(agent, now - 5 * S).task.id == task.id
    placed = placing.start_call(agent, task.record_id, actor=as_agent(agent), now=now)
    db.session.commit()
    return placed.call


def _ruled(renewals, acme):
    """Renewals calls 06:00-21:00 in each task's zone, requires consent for every number;
    the tenant allows 3 calls a day per person."""
    calling_windows.set_calling_window(renewals, 6 * 60, 21 * 60, actor=SETUP)
    consent_required.set_requirement(renewals, "all", actor=SETUP)
    limit = add_limit(acme, 3, "24h", "person")
    db.session.commit()
    return limit


@pytest.mark.parametrize(
    ("now", "local"),
    [(WINTER, "2026-11-25T07:00:00-05:00"), (SUMMER, "2026-07-01T08:00:00-04:00")],
    ids=["winter", "summer"],
)
def test_a_call_keeps_why_it_was_allowed(renewals, ann, acme, now, local):
    limit = _ruled(renewals, acme)
    rule = calling_rules.add_rule(acme, NewRule("US-CA", hours="06:00-22:00", source="test"),
                                  actor=SETUP)  # fmt: skip
    given = consent.give(acme, [PHONE], actor=SETUP, at=now - timedelta(days=30),
                         source="web form", now=now - timedelta(days=1))[0]  # fmt: skip
    db.session.commit()
    task = add_phones(renewals, "c1")
    call = _call(ann, task, now)
    assert call_answer(call)["evidence"] == {
        "checkedAt": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "rules": [
            "STATE", "NEXT_EARLIEST_TIME", "CAMPAIGN_PAUSED", "QUEUE_CLOSED", "CALLING_WINDOW",
            "REGION_HOURS", "REGION_DAY", "REGION_HOLIDAY",
            "DO_NOT_CALL", "NO_CONSENT", "INVALID_NUMBER", "CONTACT_LIMIT", "ATTEMPT_LIMIT",
        ],
        "phoneKey": "Phone",
        "phoneNumber": PHONE,
        "zones": [{"zone": "America/New_York", "localTime": local}],
        "regions": ["US-CA"],
        "callingWindow": "06:00-21:00",
        "regionalRules": [
            {"ruleId": rule.id, "rule": "US-CA: calls 06:00-22:00", "source": "test"}
        ],
        "queueHours": None,
        "doNotCall": False,
        "limits": [
            {
                "limitId": limit.id,
                "limit": "at most 3 calls within 24 hours per person, across every campaign",
                "scope": "person c1",
                "count": 1,
                "max": 3,
            }
        ],
        "consent": {
            "required": True,
            "recordId": given.id,
            "givenAt": (now - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "source": "web form",
            "campaign": None,
            "purpose": "",
        },
        "attempts": {"before": 0, "max": None},
    }  # fmt: skip


def test_a_redial_counts_itself_and_the_evidence_never_changes_afterwards(renewals, ann, acme):
    limit = _ruled(renewals, acme)
    consent.give(acme, [PHONE], actor=SETUP, now=WINTER - H)
    db.session.commit()
    task = add_phones(renewals, "c1")
    first = _call(ann, task, WINTER)
    call_events.call_event(ann, task.record_id, first.call_id, "ENDED", "NO_ANSWER",
                           actor=as_agent(ann), now=WINTER + 20 * S)  # fmt: skip
    second = placing.start_call(ann, task.record_id, actor=as_agent(ann), now=WINTER + 60 * S).call
    db.session.commit()
    assert [c["count"] for c in second.evidence["limits"]] == [2]
    kept = json.dumps(first.evidence, sort_keys=True)

    # The rules change: no window, the limit removed, the consent revoked.
    calling_windows.set_calling_window(renewals, None, None, actor=SETUP)
    contact_limits.remove_limit(acme, limit.id, actor=SETUP)
    consent.revoke(acme, [PHONE], actor=SETUP, now=WINTER + 2 * H)
    db.session.commit()
    db.session.expire_all()
    assert json.dumps(db.session.get(Call, first.id).evidence, sort_keys=True) == kept


H = timedelta(hours=1)


def test_supervisors_download_every_call_of_a_range_with_its_evidence(
    signed_in, renewals, ann, bob, acme
):
    _ruled(renewals, acme)
    consent.give(acme, [PHONE], actor=SETUP, source='=HYPERLINK("x")', now=WINTER - H)
    db.session.commit()
    task = add_phones(renewals, "c1")
    call = _call(ann, task, WINTER)
    closing.close_task(ann, task.record_id, "COMPLETE", actor=as_agent(ann), now=WINTER + 60 * S)
    old = add_phones(renewals, "c2", Phone="+14155550111")
    consent.give(acme, ["+14155550111"], actor=SETUP, now=WINTER - H)
    db.session.commit()
    before = _call(bob, old, WINTER + H)  # as if placed before evidence was kept
    before.evidence = None
    db.session.commit()

    answer = signed_in.get(
        f"/tenants/{acme.id}/reports/call-evidence.csv?from=2026-11-25&to=2026-11-25"
        "&zone=America/New_York"
    )
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(answer.get_data(as_text=True))))
    assert rows[0][:8] == ["callId", "startedAt", "campaign", "previewRecordID", "agent",
                           "phoneKey", "phoneNumber", "result"]  # fmt: skip
    by_id = {row[0]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    shown = by_id[call.call_id]
    assert (shown["campaign"], shown["previewRecordID"], shown["agent"]) == (
        "Renewals", task.record_id, "ann",
    )  # fmt: skip
    assert shown["zones"] == "America/New_York 2026-11-25T07:00:00-05:00"
    assert shown["callingWindow"] == "06:00-21:00"
    assert shown["limits"].startswith("limit ") and "1 of 3 for person c1" in shown["limits"]
    # A source a spreadsheet would run is written guarded.
    assert shown["consent"].startswith("record ") and "(=HYPERLINK" in shown["consent"]
    assert json.loads(shown["evidence"])["consent"]["source"] == '=HYPERLINK("x")'
    assert by_id[before.call_id]["evidence"].startswith("not kept")
    page_text = page(signed_in, f"/tenants/{acme.id}/reports?from=2026-11-25&to=2026-11-25")
    assert page_text.find("a", string="Download the calls with their evidence as CSV") is not None


def test_a_refused_range_is_a_plain_422(signed_in, acme):
    answer = signed_in.get(f"/tenants/{acme.id}/reports/call-evidence.csv?from=nope&to=2026-11-25")
    assert answer.status_code == 422 and "date" in answer.get_data(as_text=True)
