"""startCall through the Desk API refuses a call a contact limit holds back: NOT_AVAILABLE,
`call: null`, a message naming the limit, and `nextCallableAt` (epoch ms), all as
published in /openapi.json; an allowed call answers `nextCallableAt: null`."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.extensions import db
from app.models import ContactMark
from app.wire.times import to_epoch_ms
from tests.calls.calls_support import PHONE, add_phones
from tests.contact_limits.limits_support import add_limit
from tests.dialer.test_desk_api_calls import holding


def test_a_limited_number_is_not_available_until_the_time_it_says(desk, acme, renewals, ann):
    limit = add_limit(acme, 1, "24h", "number")
    add_phones(renewals, "c1")
    add_phones(renewals, "c2")  # the same number
    first = holding(desk)
    placed = desk("startCall", agent="ann", previewRecordID=first)
    assert (placed["result"], placed["nextCallableAt"]) == ("SUCCESS", None)
    call_id = placed["call"]["callId"]
    desk("callEvent", agent="ann", previewRecordID=first, callId=call_id, event="ENDED",
         result="NO_ANSWER")  # fmt: skip
    answer = desk("startCall", agent="ann", previewRecordID=first)  # Call again
    started = db.session.scalar(select(ContactMark.at).where(ContactMark.kind == "call"))
    assert answer["result"] == "NOT_AVAILABLE"
    assert answer["call"] is None
    assert answer["rule"] == "CONTACT_LIMIT"
    assert f"contact limit {limit.id} reached for number {PHONE}" in answer["message"]
    assert answer["nextCallableAt"] == to_epoch_ms(started + timedelta(hours=24))
    desk("closeTask", agent="ann", previewRecordID=first, outcome="COMPLETE")
    nothing = desk("nextTask", agent="ann")  # c2 calls the same number: held back
    assert nothing["task"] is None
    assert "contact limits" in nothing["message"]
    assert nothing["nextDueTime"] == to_epoch_ms(started + timedelta(hours=24))
