"""The agent view's phone details say whether the contact rules let each number be called
now (`callable`) and, when not, which rule and until when (`blockedBy`)."""

from __future__ import annotations

from app.services.dnc import numbers as dnc
from tests.calls.calls_support import MOBILE, PHONE, add_phones
from tests.conftest import SETUP


def test_each_phone_detail_says_whether_it_may_be_called(desk_api, acme, renewals, ann):
    add_phones(renewals, "c1", Phone=PHONE, Mobile_Phone=MOBILE, City="Paris")
    dnc.add_numbers(acme, [PHONE], actor=SETUP)
    desk_api("setAgentState", agent="ann", state="AVAILABLE")
    task = desk_api("nextTask", agent="ann")["task"]
    details = {d["key"]: d for d in task["agentView"]["details"]}
    assert (details["Phone"]["callable"], details["Mobile_Phone"]["callable"]) == (False, True)
    assert details["Phone"]["blockedBy"] == f"DO_NOT_CALL: {PHONE} is on the do-not-call list"
    assert details["Mobile_Phone"]["blockedBy"] is None
    assert (details["City"]["callable"], details["City"]["blockedBy"]) == (None, None)
